#define _GNU_SOURCE
#include "fsx.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int fsx_read_fd(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *data, *p;
	ssize_t r;
	int rc = -ENOMEM;

	data = malloc(cap);
	if (!data)
		return rc;
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max + 1) {
				rc = -E2BIG;
				goto out_free;
			}
			p = realloc(data, cap * 2);
			if (!p)
				goto out_free;
			data = p;
			cap *= 2;
		}
		r = read(fd, data + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			goto out_free;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			rc = -E2BIG;
			goto out_free;
		}
	}
	data[n] = '\0';
	*out = data;
	if (len)
		*len = n;
	return 0;
out_free:
	free(data);
	return rc;
}

int fsx_read(const char *path, size_t max, char **out, size_t *len)
{
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = fsx_read_fd(fd, max, out, len);
	close(fd);
	return rc;
}

/* write(2), or send(2) with MSG_NOSIGNAL when @sock, until all @n bytes are out. */
static int put_all(int fd, const char *c, size_t n, bool sock)
{
	while (n) {
		ssize_t w = sock ? send(fd, c, n, MSG_NOSIGNAL) : write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int fsx_write_all(int fd, const void *p, size_t n)
{
	return put_all(fd, p, n, false);
}

int fsx_send_all(int fd, const void *p, size_t n)
{
	return put_all(fd, p, n, true);
}

/* Open @path's folder (symlinks followed: the path is ours) and copy its last
 * component (trailing slashes aside) to @base. Returns the folder's fd or
 * -errno. */
static int open_parent(const char *path, char base[NAME_MAX + 1])
{
	char dir[PATH_MAX], *slash, *name;
	size_t n = strlen(path);
	int fd;

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	name = slash ? slash + 1 : dir;
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	if (strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	strcpy(base, name);
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int fsx_write_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	char base[NAME_MAX + 1];
	int dirfd = open_parent(path, base), rc;

	if (dirfd < 0)
		return dirfd;
	rc = fsx_write_atomic_at(dirfd, base, data, len, mode);
	close(dirfd);
	return rc;
}

/* The exchange in three plain renames: @to aside, @from in its place, the
 * old one to @from. */
static int exchange_by_renames(int dfd, const char *from, const char *to)
{
	char aside[NAME_MAX + 1];
	int rc;

	if ((size_t)snprintf(aside, sizeof(aside), "%s.mcpfs-aside", from) >= sizeof(aside))
		return -ENAMETOOLONG;
	if (renameat(dfd, to, dfd, aside) < 0)
		return -errno;
	if (renameat(dfd, from, dfd, to) < 0) {
		rc = -errno;
		renameat(dfd, aside, dfd, to);
		return rc;
	}
	return renameat(dfd, aside, dfd, from) < 0 ? -errno : 0;
}

int fsx_rename_flags(int dfd, const char *from, const char *to, unsigned flags)
{
	struct stat st;

	if (renameat2(dfd, from, dfd, to, flags) == 0)
		return 0;
	if (errno != EINVAL || !(flags & (RENAME_NOREPLACE | RENAME_EXCHANGE)))
		return -errno;
	if (flags & RENAME_EXCHANGE)
		return exchange_by_renames(dfd, from, to);
	if (fstatat(dfd, to, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	return renameat(dfd, from, dfd, to) < 0 ? -errno : 0;
}

int fsx_mkdirs(const char *path, mode_t mode)
{
	char p[PATH_MAX];
	size_t i;

	if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (i = 1; p[i]; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		p[i] = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int fsx_remove_tree(const char *path)
{
	char base[NAME_MAX + 1];
	int dirfd = open_parent(path, base), rc;

	if (dirfd < 0)
		return dirfd == -ENOENT ? 0 : dirfd;
	rc = fsx_remove_tree_at(dirfd, base);
	close(dirfd);
	return rc;
}
