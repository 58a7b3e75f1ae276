/* Starting server processes that die with mcpfs, even when it is killed
 * outright (SIGKILL), whichever thread asks for them. */
#ifndef MCPFS_SERVERS_SPAWNER_H
#define MCPFS_SERVERS_SPAWNER_H

#include <sys/types.h>

struct spawn_spec {
	const char *file;	   /* looked up in $PATH when it has no '/' */
	char *const *argv;	   /* NULL-terminated */
	char *const *envp;	   /* NULL-terminated: the whole environment */
	const char *cwd;	   /* NULL: ours */
	int fd_in, fd_out, fd_err; /* become its 0, 1, 2; it gets no other */
};

/* Start @s: in a process group of its own, signals at their defaults and
 * none blocked, killed by SIGKILL when this process ends. Returns 0 with
 * *pid, or an errno value (from the exec when that failed). */
int spawner_spawn(const struct spawn_spec *s, pid_t *pid);

/* Run @fn(@arg) on the same thread and wait for it, for whoever starts
 * processes of its own way that must die with mcpfs (a sandbox asks for
 * PR_SET_PDEATHSIG). Returns what @fn returned, or an errno value when the
 * thread could not be started. */
int spawner_call(int (*fn)(void *arg), void *arg);

#endif
