/* Internals shared by the jail's layers (jail_*.c). Each layer has a
 * parent-side and/or child-side step; executor/jail.c runs them in order.
 *
 * Child steps run between clone and exec in a copy of a multithreaded
 * process: they make system calls and format into stack buffers only (no
 * malloc, no stdio), and report failure as one line in @why. */
#ifndef MCPFS_EXECUTOR_JAIL_I_H
#define MCPFS_EXECUTOR_JAIL_I_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "../common/err.h"
#include "jail.h"

#define JAIL_MAX_BINDS 32
#define JAIL_CGROUP_CONTROLLERS 2 /* memory, pids */

/* v1 groups (one folder per controller) or one v2 group. */
struct jail_cgroup {
	int version;				  /* 0: none made, 1 or 2 */
	char dirs[JAIL_CGROUP_CONTROLLERS][4096]; /* v1: memory, pids; v2: dirs[0] only */
	int ndirs;
	int tasks_fds[JAIL_CGROUP_CONTROLLERS]; /* v1: each dir's "tasks", for the child; -1 */
	int dirfd;	  /* v2: the group, for clone3(CLONE_INTO_CGROUP); -1 */
	bool born_inside; /* v2: the child started in it; else the parent moves it */
};

struct jail {
	const struct jail_spec *spec; /* borrowed, valid during jail_start */
	bool rootless; /* mcpfs is not root: the caller's ids, no cgroup of its own */
	pid_t pid;
	int pidfd;
	bool reaped;
	bool status_read;   /* pid 1's line was read (jail_ended) */
	int sync_sock[2];   /* parent -> child: the parent's steps are done */
	int err_pipe[2];    /* child -> parent: one line when a step fails; CLOEXEC */
	int status_pipe[2]; /* pid 1 -> parent: how the program ended; CLOEXEC */
	struct jail_cgroup cg;
	struct jail_limits in_force; /* jail_cgroup_create: the spec's, less what no cgroup holds */
	int listen_fd;		     /* parent: jail_spec.listen_path's socket, until taken; -1 */
	int src_fds[JAIL_MAX_BINDS + 8]; /* child: O_PATH fds of bind sources */
	/* child, neutral binds: the source itself, bound as it is where the
	 * kernel makes no such overlay (Debian 12's 6.1 takes no layer from a
	 * detached mount; tmpfs before 6.6 has no user xattrs); -1 */
	int plain_fds[JAIL_MAX_BINDS];
	bool as_bind[JAIL_MAX_BINDS]; /* child: bound as it is, not as an overlay */
	bool parked;		      /* parent: waits for jail_handoff */
	/* child, parked: the environment exec gets, the spec's with the hand-off's entry */
	const char *envp[64];
	char env[JAIL_HANDOFF_ENV_MAX + 1];
};

/* A child step: 0, or -1 with one line in @why. */
typedef int (*jail_child_fn)(struct jail *j, char *why, size_t n);
/* A parent step: 0, or -1 with @err. */
typedef int (*jail_parent_fn)(struct jail *j, struct err *err);

/* Format "call(args): strerror(errno)" into @why; returns -1. */
int jail_why(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The jail's one way to write a file, for both sides (no malloc, no stdio):
 * open @path with O_WRONLY | O_CLOEXEC | @flags, write all @len bytes (in one
 * write(2) when the kernel takes it: /proc maps and cgroup files need that)
 * and, with O_CREAT, set @mode exactly, whatever the umask. Returns 0, or -1
 * with errno set, as a system call does; the caller names the step. */
int jail_write_file(const char *path, int flags, mode_t mode, const void *data, size_t len);

/* jail_user.c: ids. */
int jail_user_setup_parent(struct jail *j, struct err *err); /* uid_map, gid_map */
int jail_user_setup_child(struct jail *j, char *why, size_t n);

/* jail_mount.c: the root. */
int jail_mount_open_child(struct jail *j, char *why, size_t n);	 /* open sources, as host root */
int jail_mount_setup_child(struct jail *j, char *why, size_t n); /* build it, pivot_root */
int jail_mount_root_readonly(char *why, size_t n);		 /* after pivot_root: / read-only */

/* jail_listen.c: the socket at jail_spec.listen_path, made in the child's
 * root (from jail_mount_setup_child, before the root turns read-only) and
 * received by the parent once the child reached exec. */
int jail_listen_child(struct jail *j, char *why, size_t n);
int jail_listen_parent(struct jail *j, struct err *err);

/* jail_park.c: a parked child waits for its program, writes it, and turns
 * its root read-only (the step jail_mount_setup_child leaves it, parked);
 * the parent waits until it parked. Read the child's error line with
 * jail_read_verdict. */
int jail_park_child(struct jail *j, char *why, size_t n);
int jail_park_parent(struct jail *j, struct err *err);
int jail_read_verdict(struct jail *j, struct err *err);

/* jail_net.c: a private loopback. */
int jail_net_setup_child(struct jail *j, char *why, size_t n);

/* jail_rlimit.c */
int jail_rlimit_setup_child(struct jail *j, char *why, size_t n);

/* jail_caps.c: no capabilities, no_new_privs. */
int jail_caps_setup_child(struct jail *j, char *why, size_t n);

/* jail_seccomp.c: the filter, made at build time from
 * executor/policy/seccomp_policy.c (gen/seccomp_filter.c). */
extern const struct sock_fprog jail_seccomp_prog;
int jail_seccomp_setup_child(struct jail *j, char *why, size_t n);

/* jail_init.c: pid 1 reaps, and the program is its child. In the child, past
 * every other step: returns 0 in the program (which then execs), -1 with
 * @why; pid 1 itself never returns. */
pid_t jail_init_start(struct jail *j, char *why, size_t n);
/* In the parent, pid 1 reaped or its status pipe readable: how the program
 * ended, into @out, and true; false, @out left as it is, when pid 1 was
 * killed before it could say, or it was read already. */
bool jail_init_status(struct jail *j, struct jail_exit *out);

/* jail_cgroup.c: a per-run group (v2 where delegated, else v1). */
int jail_cgroup_create(struct jail *j, struct err *err);	  /* before clone */
int jail_cgroup_join_child(struct jail *j, char *why, size_t n);  /* v1: move itself in */
int jail_cgroup_setup_parent(struct jail *j, struct err *err);	  /* v2: move the child in */
int jail_cgroup_setup_child(struct jail *j, char *why, size_t n); /* a cgroup namespace */
void jail_cgroup_close(struct jail *j);				  /* the parent's tasks_fds */
void jail_cgroup_kill(struct jail *j);
void jail_cgroup_events(struct jail *j, bool *memory, bool *pids);
void jail_cgroup_remove(struct jail *j);

#endif
