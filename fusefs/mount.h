/* `mcpfs mount`: the life cycle of one FUSE mount of the tree, and how other
 * parts find a running one.
 *
 * Pid file: <root>/run/mount-<hash>.json, where <hash> is the FNV-1a 64-bit
 * hash of the absolute mountpoint in 16 lowercase hex digits, holding
 *   {"mountpoint": "/abs/path", "pid": 1234, "langs": "py,ts",
 *    "config": "<the config's origin>"}
 * Written (atomically) once the mount answers; removed when it ends cleanly.
 * A killed daemon leaves it behind: a mount is live only while its pid is
 * alive and its mountpoint answers as a FUSE file system (fusefs_mount_find). */
#ifndef MCPFS_FUSEFS_MOUNT_H
#define MCPFS_FUSEFS_MOUNT_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"
#include "../servers/config.h"
#include "../tree/snapshot.h"

struct hub;

struct fusefs_mount_opts {
	const char *mountpoint;	   /* as given; need not exist as an absolute path */
	const char *fuse_opts;	   /* -o OPTS for libfuse (e.g. "allow_other"), or NULL */
	bool foreground;	   /* -f: no daemon; stderr stays the terminal */
	unsigned langs;		   /* enum cg_lang mask */
	const char *templates_dir; /* --templates DIR, or NULL for the embedded set */
	/* How stdio servers start (hub_opts.launcher); borrowed, NULL: plainly */
	const struct server_launcher *launcher;
	/* One customer's view (its policy, tree/snapshot.h): servers it may not
	 * call are not in the tree, nor tools it may not call in a folder;
	 * borrowed, NULL: everything. */
	const struct tree_filter *filter;
};

/* Mount the tree of @cfg (borrowed) at o->mountpoint and serve it until
 * SIGTERM/SIGINT/SIGHUP or `fusermount3 -u`. Without foreground, forks: the
 * parent returns once the mount answers (0) or failed (its status, with @err
 * set); the daemon returns at the end with @err's text empty when the parent
 * already reported the failure. @root is the data root (pid file in
 * <root>/run, daemon log in <root>/logs/mount.log). Returns an exit status
 * (enum mcpfs_exit). */
int fusefs_mount(const struct config *cfg, const char *root, const struct fusefs_mount_opts *o,
		 struct err *err);

/* A mount of the tree over @hub, which someone else holds and which
 * outlives it (`mcpfs serve --mount`): the mount listens to its catalog
 * changes, and serves requests from threads of its own. o->foreground is
 * ignored. Returns once the mount answers (pid file written as above), or
 * NULL with @err. @cfg, @root and o's strings are borrowed until
 * fusefs_mount_stop. Uses SIGUSR2 to wake its loop: a handler that does
 * nothing is installed for it. */
struct fusefs_mount;
struct fusefs_mount *fusefs_mount_start(const struct config *cfg, const char *root, struct hub *hub,
					const struct fusefs_mount_opts *o, struct err *err);
/* Unmount (requests in flight are answered first), stop listening, free.
 * Accepts NULL. */
void fusefs_mount_stop(struct fusefs_mount *fm);

/* Find a live mount under data root @root: the mountpoint into @out (@n
 * bytes) and its langs mask into *langs (may be NULL). With @config_origin
 * (may be NULL) only a mount of that config counts. Returns 0 or -ENOENT. */
int fusefs_mount_find(const char *root, const char *config_origin, char *out, size_t n,
		      unsigned *langs);

/* The pid file path for mountpoint @abs under @root. Returns 0 or -ENAMETOOLONG. */
int fusefs_pidfile_path(const char *root, const char *abs, char *out, size_t n);
/* Write / remove the pid file of this process. 0 or -errno. */
int fusefs_pidfile_write(const char *root, const char *abs, unsigned langs, const char *config);
void fusefs_pidfile_remove(const char *root, const char *abs);
/* Does @abs answer as a FUSE mount? (stat, then statfs f_type) */
bool fusefs_mount_answers(const char *abs);

#endif
