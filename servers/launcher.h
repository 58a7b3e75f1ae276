/* How a stdio server's process starts and ends: plainly (servers/proc_plain.c),
 * or in a sandbox provided by whoever owns the hub (executor/server_sandbox.c,
 * plugged in through hub_opts.launcher), so that servers/ knows nothing of
 * the jail. */
#ifndef MCPFS_SERVERS_LAUNCHER_H
#define MCPFS_SERVERS_LAUNCHER_H

#include <stdbool.h>

#include "../common/err.h"
#include "config.h"
#include "spawner.h"

struct server_proc;

struct server_proc_ops {
	/* Send @sig to the server and every process it started. */
	void (*signal)(struct server_proc *p, int sig);
	/* Reap the server if it ended within @ms (0: only look): true, with a
	 * waitpid(2)-style *status. */
	bool (*reap)(struct server_proc *p, int ms, int *status);
	/* Kill what is left and free; accepts NULL. */
	void (*free)(struct server_proc *p);
};

/* A started server; backends embed it first in their own struct. */
struct server_proc {
	const struct server_proc_ops *ops;
};

struct server_launcher {
	/* Start @s, the process of stdio server @sc (also one whose config
	 * says "sandbox": false: the launcher decides how): a new process, or
	 * NULL with @err (one line, EXIT_UNREACHABLE). */
	struct server_proc *(*start)(const struct server_launcher *l,
				     const struct server_config *sc, const struct spawn_spec *s,
				     struct err *err);
};

/* The plain way: spawner_spawn, in a process group of its own. */
struct server_proc *server_proc_plain(const struct server_config *sc, const struct spawn_spec *s,
				      struct err *err);

#endif
