/* Symlink-safe file access under a customer's folder. Every path is resolved
 * relative to a folder fd with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS), so neither ".." nor a symlink planted by the
 * customer's own code leads anywhere else. Needs Linux >= 5.6. All functions
 * return an fd or 0 on success and -errno on failure (-ELOOP: a symlink). */
#ifndef MCPFS_WORKSPACES_WSFS_H
#define MCPFS_WORKSPACES_WSFS_H

#include <stddef.h>
#include <sys/types.h>

/* Open the folder @path itself; its last component must not be a symlink. */
int wsfs_open_dir(const char *path);

/* Open @rel (relative, no symlinks on the way) beneath @dirfd. */
int wsfs_open(int dirfd, const char *rel, int flags, mode_t mode);

/* Make the folder @name in @dirfd unless it exists; an existing entry must be
 * a real folder (-ENOTDIR for a file or a symlink). */
int wsfs_mkdir(int dirfd, const char *name, mode_t mode);

/* Read all of @rel (at most @max bytes) into a new NUL-terminated string. */
int wsfs_read(int dirfd, const char *rel, size_t max, char **out, size_t *len);

/* Replace @name (one component) in @dirfd atomically: a temp file beside it,
 * fsync, renameat, fsync of the folder. A crash at any instant leaves the old
 * file or the new one. Temp files are named ".<name>.tmp.<pid>". */
int wsfs_write_atomic(int dirfd, const char *name, const void *data, size_t len, mode_t mode);

/* rm -rf of @name in @dirfd: never follows symlinks, never crosses into
 * another file system. */
int wsfs_remove_tree(int dirfd, const char *name);

/* One entry of a walk: its path relative to the walk's folder, its stat,
 * and the folder that holds it (@dirfd, open during the call) with its
 * @name. Act on it with *at(dirfd, name, ...): a path through folders may
 * meet one that was swapped for a symlink meanwhile. */
struct stat;
struct wsfs_entry {
	const char *rel;
	const struct stat *st;
	int dirfd;
	const char *name;
};

/* Visit every entry beneath @dirfd (depth first, symlinks not followed, at
 * most @max_entries, not crossing file systems). A non-zero return of @fn
 * stops the walk and is returned. */
typedef int (*wsfs_walk_fn)(void *ctx, const struct wsfs_entry *e);
int wsfs_walk(int dirfd, size_t max_entries, wsfs_walk_fn fn, void *ctx);

#endif
