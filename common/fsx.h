/* File helpers shared by every part: whole-file reads with a ceiling,
 * atomic writes (temp file, fsync, rename), and mkdir -p. */
#ifndef MCPFS_COMMON_FSX_H
#define MCPFS_COMMON_FSX_H

#include <stddef.h>
#include <sys/types.h>

/* Read all of @path (at most @max bytes) into a new NUL-terminated string.
 * Returns 0 or -errno (-E2BIG past @max); *out is set only on success. */
int fsx_read(const char *path, size_t max, char **out, size_t *len);

/* The same from an open descriptor (borrowed: not closed). */
int fsx_read_fd(int fd, size_t max, char **out, size_t *len);

/* write(2) all @n bytes, retrying on EINTR and short writes. 0 or -errno. */
int fsx_write_all(int fd, const void *p, size_t n);

/* Write @len bytes to @path atomically: a temp file beside it, fsync, rename,
 * fsync of the folder. A crash at any instant leaves the old file or the new
 * one, never a mix. Returns 0 or -errno. */
int fsx_write_atomic(const char *path, const void *data, size_t len, mode_t mode);

/* renameat2(@dfd, @from, @dfd, @to, @flags) for RENAME_NOREPLACE or
 * RENAME_EXCHANGE, also on file systems that have neither (NFS, 9p: EINVAL).
 * There the step is no longer atomic: for a moment @to is missing (exchange)
 * or may be taken after it was found free (noreplace), so callers that can
 * race with each other must hold a lock. Returns 0 or -errno. */
int fsx_rename_flags(int dfd, const char *from, const char *to, unsigned flags);

/* mkdir -p with @mode for every folder created. Returns 0 or -errno. */
int fsx_mkdirs(const char *path, mode_t mode);

/* rm -rf that never follows symlinks and never leaves @path's file system.
 * Returns 0 or -errno. */
int fsx_remove_tree(const char *path);

#endif
