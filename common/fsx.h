/* The file helpers every part uses, in two families with the same verbs.
 *
 * By path (fsx.c): for mcpfs's own files (the data root, caches, pid files,
 * generated trees), where the path is ours.
 *
 * Beneath a folder, the *_at functions (fsx_at.c): for folders whose
 * contents someone else controls (a customer's workspace, skills, session
 * logs). Every path is resolved relative to a folder fd with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS), so
 * neither ".." nor a symlink planted by the customer's own code leads
 * anywhere else. Needs Linux >= 5.6.
 *
 * All return 0 (or an fd) on success and -errno on failure; -ELOOP means a
 * symlink was in the way. */
#ifndef MCPFS_COMMON_FSX_H
#define MCPFS_COMMON_FSX_H

#include <stddef.h>
#include <sys/types.h>

/* --- by path --- */

/* Read all of @path (at most @max bytes) into a new NUL-terminated string.
 * -E2BIG past @max; *out is set only on success. */
int fsx_read(const char *path, size_t max, char **out, size_t *len);

/* The same from an open descriptor (borrowed: not closed). */
int fsx_read_fd(int fd, size_t max, char **out, size_t *len);

/* write(2) all @n bytes, retrying on EINTR and short writes. */
int fsx_write_all(int fd, const void *p, size_t n);

/* The same on a socket with MSG_NOSIGNAL: a peer that went away is -EPIPE,
 * never a SIGPIPE that takes a daemon down. */
int fsx_send_all(int fd, const void *p, size_t n);

/* Write @len bytes to @path atomically: fsx_write_atomic_at in @path's
 * folder. */
int fsx_write_atomic(const char *path, const void *data, size_t len, mode_t mode);

/* renameat2(@dfd, @from, @dfd, @to, @flags) for RENAME_NOREPLACE or
 * RENAME_EXCHANGE, also on file systems that have neither (NFS, 9p: EINVAL).
 * There the step is no longer atomic: for a moment @to is missing (exchange)
 * or may be taken after it was found free (noreplace), so callers that can
 * race with each other must hold a lock. */
int fsx_rename_flags(int dfd, const char *from, const char *to, unsigned flags);

/* mkdir -p with @mode for every folder created. */
int fsx_mkdirs(const char *path, mode_t mode);

/* rm -rf of @path: fsx_remove_tree_at in @path's folder. */
int fsx_remove_tree(const char *path);

/* --- beneath a folder --- */

/* Open the folder @path itself; its last component must not be a symlink. */
int fsx_open_dir(const char *path);

/* Open @rel (relative, no symlinks on the way) beneath @dirfd. */
int fsx_open_at(int dirfd, const char *rel, int flags, mode_t mode);

/* Make the folder @name in @dirfd unless it exists; an existing entry must be
 * a real folder (-ENOTDIR for a file or a symlink). */
int fsx_mkdir_at(int dirfd, const char *name, mode_t mode);

/* Read all of @rel (at most @max bytes) into a new NUL-terminated string. */
int fsx_read_at(int dirfd, const char *rel, size_t max, char **out, size_t *len);

/* Replace @name (one component) in @dirfd atomically: a temp file beside it,
 * fsync, renameat, fsync of the folder. A crash at any instant leaves the old
 * file or the new one, never a mix. Temp files are named ".<name>.tmp.<pid>"
 * (workspaces/gc.c sweeps what a killed writer left). */
int fsx_write_atomic_at(int dirfd, const char *name, const void *data, size_t len, mode_t mode);

/* rm -rf of @name in @dirfd: never follows symlinks, never crosses into
 * another file system (-EXDEV), at most 64 folders deep (-ELOOP). */
int fsx_remove_tree_at(int dirfd, const char *name);

/* One entry of a walk: its path relative to the walk's folder, its stat,
 * and the folder that holds it (@dirfd, open during the call) with its
 * @name. Act on it with *at(dirfd, name, ...): a path through folders may
 * meet one that was swapped for a symlink meanwhile. */
struct stat;
struct fsx_entry {
	const char *rel;
	const struct stat *st;
	int dirfd;
	const char *name;
};

/* Visit every entry beneath @dirfd (depth first, symlinks not followed, at
 * most @max_entries, not crossing file systems). A non-zero return of @fn
 * stops the walk and is returned. */
typedef int (*fsx_walk_fn)(void *ctx, const struct fsx_entry *e);
int fsx_walk_at(int dirfd, size_t max_entries, fsx_walk_fn fn, void *ctx);

/* chown -R @path to @uid:@gid, never following a symlink, each entry through
 * its own folder's fd (whoever owns the tree may be swapping folders for
 * symlinks meanwhile). Returns 0 or -errno. */
int fsx_chown_tree(const char *path, uid_t uid, gid_t gid);

#endif
