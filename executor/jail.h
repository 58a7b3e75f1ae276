/* The jail: a process in fresh user, PID, mount, network, IPC, UTS and cgroup
 * namespaces, in a root of read-only binds, without capabilities, under
 * no_new_privs, a seccomp filter, rlimits and a per-run cgroup. Every setup
 * step fails closed: the program is exec'd only after all of them worked. */
#ifndef MCPFS_EXECUTOR_JAIL_H
#define MCPFS_EXECUTOR_JAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../common/err.h"

/* Inside the jail. */
#define JAIL_WORKSPACE "/workspace"  /* the customer's workspace, read-write, the cwd */
#define JAIL_SKILLS "/skills"	     /* the customer's skills, read-write; shared ones in shared/ */
#define JAIL_TREE "/mcp"	     /* the tool tree (README.md, servers/), read-only */
#define JAIL_CODE_DIR "/run/code"    /* the program, with the tree's servers/ beside it */
#define JAIL_BRIDGE_DIR "/run/mcpfs" /* the run's bridge socket folder */
#define JAIL_RUNTIME_DIR "/run/rt"   /* executor/runtime files (the TypeScript loader) */

/* The jail's user and group inside; mapped to jail_spec.host_uid/gid. */
#define JAIL_INNER_ID 1000

/* Host uids (and gids) of jails. A customer's code and that customer's
 * servers share one, as they share the customer's folders; the servers that
 * every customer shares have their own. Never root. */
#define JAIL_CUSTOMER_UID 64000
#define JAIL_SHARED_SERVER_UID 64001

/* The host ids a jail gets: @as_root (uid and gid) when mcpfs runs as root;
 * else the caller's own, the only ones an unprivileged user namespace may
 * map (executor/README.md, "Rootless"). */
void jail_host_ids(uid_t as_root, uid_t *uid, gid_t *gid);

/* A file written into the jail's root before it turns read-only. */
struct jail_file {
	const char *path; /* absolute, in the jail; its folder is created */
	const char *data;
	size_t len;
	mode_t mode;
};

/* A host folder bound into the jail. */
struct jail_bind {
	const char *src; /* host path */
	const char *dst; /* path in the jail */
	bool rw;
	/* Read-only, mounted as a file system of its own whose root is src (an
	 * overlay, src a folder): the jail's mount table then names nothing of
	 * the host, where a bind would show src's path in its file system. */
	bool neutral;
};

struct jail_limits {
	double cpu_s;		 /* RLIMIT_CPU; 0: none (a long-lived server) */
	unsigned long fsize_mb;	 /* RLIMIT_FSIZE */
	unsigned long nofile;	 /* RLIMIT_NOFILE */
	unsigned long nproc;	 /* RLIMIT_NPROC (counted per host uid, across runs) */
	unsigned long data_mb;	 /* RLIMIT_DATA */
	unsigned long memory_mb; /* cgroup memory (and memory+swap) limit */
	unsigned long pids;	 /* cgroup pids.max */
	unsigned long tmp_mb;	 /* size of /tmp and /dev/shm (tmpfs) */
};

struct jail_spec {
	const char *const *argv; /* argv[0] is an absolute path in the jail */
	const char *const *envp; /* the whole environment; nothing is inherited */
	const struct jail_bind *binds;
	size_t nbinds;
	const struct jail_file *files;
	size_t nfiles;
	const char *cwd; /* in the jail */
	uid_t host_uid;	 /* non-zero: what the kernel sees outside (jail_host_ids) */
	gid_t host_gid;
	struct jail_limits limits;
	int stdin_fd, stdout_fd, stderr_fd; /* become 0, 1, 2 in the jail */
	const char *run_id;		    /* names the cgroup */
	/* a unix socket path in the jail (its folder is made, under one that
	 * exists): the child listens there, in its own root, and the parent
	 * takes the socket with jail_take_listen_fd; NULL: none */
	const char *listen_path;
	bool share_net; /* stay in mcpfs's network namespace (a server that needs the network) */
	/* cgroup v2: the group (as in /proc/self/cgroup, delegated to mcpfs)
	 * to make the run's group in; NULL: the one mcpfs runs in */
	const char *cgroup_parent;
	/* Parked (jail_park.c): the program's file, its path in the jail (in a
	 * folder that exists), written at jail_handoff. jail_start then returns
	 * with the jail set up short of its last steps (that file, the read-only
	 * root, rlimits, capabilities, seccomp, exec), which jail_handoff runs.
	 * NULL: a jail that runs its program at once. */
	const char *park_file;
};

struct jail;

/* Set up and start the program. NULL with @err (EXIT_FAILED, the failing
 * step and call in one line) when any step failed: the program never ran. */
struct jail *jail_start(const struct jail_spec *s, struct err *err);

/* What a parked jail is handed: its one program. */
struct jail_handoff {
	const char *data; /* the program, written to jail_spec.park_file, mode 0444 */
	size_t len;
	/* "NAME=value": replaces the spec's environment entry NAME= (or is added);
	 * at most JAIL_HANDOFF_ENV_MAX bytes. NULL: none */
	const char *env;
	double cpu_s; /* RLIMIT_CPU, as jail_limits.cpu_s */
};

#define JAIL_HANDOFF_ENV_MAX 255

/* Run a parked jail's last steps and exec its program. 0, or -1 with @err
 * (the jail ended while parked, or a step failed): the program never ran,
 * and the jail is only good for jail_free. Once per jail. */
int jail_handoff(struct jail *j, const struct jail_handoff *h, struct err *err);

/* The listening socket at jail_spec.listen_path (close-on-exec), now the
 * caller's; -1 when none was asked for or it was taken already. */
int jail_take_listen_fd(struct jail *j);

/* A pidfd of the jail's pid 1 (the init of its PID namespace, which reaps;
 * the program is its child): it turns readable when pid 1 exits, after the
 * program did. */
int jail_pidfd(const struct jail *j);

/* The limits in force: the spec's, but where no cgroup bounds the jail (a
 * normal user without a delegated cgroup v2 group) memory_mb and pids are 0
 * and nproc is at most what pids was (RLIMIT_NPROC counts the processes of
 * the jail's own user namespace, Linux 5.14 on). */
const struct jail_limits *jail_limits_in_force(const struct jail *j);

/* Kill everything in the jail: the PID namespace's init (the kernel then
 * kills the rest) and every process of its cgroup. */
void jail_kill(struct jail *j);

/* Send @sig to the program and what it started (its process group): the
 * init ignores all but SIGKILL, which jail_kill sends. */
void jail_signal(struct jail *j, int sig);

struct jail_exit {
	int exit_code;	   /* valid when !signal */
	int signal;	   /* the killing signal, or 0 */
	bool memory_limit; /* the cgroup's memory limit was hit */
	bool pids_limit;   /* the cgroup's pids limit was hit */
};

/* Wait for the jail's end (after jail_pidfd turned readable, this does not
 * block): how the program ended, and what limits were hit. Returns 0 or
 * -errno. */
int jail_wait(struct jail *j, struct jail_exit *out);

/* Readable once the program ended (pid 1 then says how, before it tears
 * the jail down) or pid 1 is gone: an answer need not wait for the
 * namespaces' teardown. */
int jail_status_fd(const struct jail *j);

/* After jail_status_fd turned readable: how the program ended and what
 * limits were hit, as jail_wait tells, without waiting for pid 1's end when
 * pid 1 said it (jail_free then kills what is left and reaps); else
 * jail_wait. Returns 0 or -errno. */
int jail_ended(struct jail *j, struct jail_exit *out);

/* Kill what is left, remove the cgroups, free. Accepts NULL. */
void jail_free(struct jail *j);

#endif
