#define _GNU_SOURCE
/* The file helpers that work beneath a folder fd (contract in fsx.h). */
#include "fsx.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Folders nested deeper than this are not walked (or removed): a ceiling on
 * recursion that customer code controls. */
#define FSX_MAX_DEPTH 64

int fsx_open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int fsx_open_at(int dirfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how = {
	    .flags = (unsigned long long)(flags | O_CLOEXEC | O_NOFOLLOW),
	    .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	do
		fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN);
	return fd < 0 ? -errno : (int)fd;
}

int fsx_mkdir_at(int dirfd, const char *name, mode_t mode)
{
	struct stat st;

	if (mkdirat(dirfd, name, mode) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int fsx_read_at(int dirfd, const char *rel, size_t max, char **out, size_t *len)
{
	int fd, rc;

	fd = fsx_open_at(dirfd, rel, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	rc = fsx_read_fd(fd, max, out, len);
	close(fd);
	return rc;
}

int fsx_write_atomic_at(int dirfd, const char *name, const void *data, size_t len, mode_t mode)
{
	char tmp[NAME_MAX + 1];
	int fd, rc;

	if (strchr(name, '/'))
		return -EINVAL;
	/* The thread's id, not the process's: threads of one process (serve's
	 * runs) write the same file at once. A temp file a killed writer with
	 * this id left behind is ours to replace. */
	if (snprintf(tmp, sizeof(tmp), ".%s.tmp.%ld", name, (long)gettid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	unlinkat(dirfd, tmp, 0);
	fd = fsx_open_at(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL, mode);
	if (fd < 0)
		return fd;
	rc = fsx_write_all(fd, data, len);
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && renameat(dirfd, tmp, dirfd, name) < 0)
		rc = -errno;
	if (rc) {
		unlinkat(dirfd, tmp, 0);
		return rc;
	}
	return fsync(dirfd) < 0 && errno != EINVAL ? -errno : 0;
}

static int remove_in(int dirfd, const char *name, dev_t dev, int depth)
{
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int fd, rc = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	if (st.st_dev != dev)
		return -EXDEV;
	if (depth > FSX_MAX_DEPTH)
		return -ELOOP;
	fd = fsx_open_at(dirfd, name, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	dir = fdopendir(fd);
	if (!dir) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while (!rc && (d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		rc = remove_in(fd, d->d_name, dev, depth + 1);
	}
	closedir(dir);
	if (rc)
		return rc;
	return unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT ? -errno : 0;
}

int fsx_remove_tree_at(int dirfd, const char *name)
{
	struct stat st;

	if (fstat(dirfd, &st) < 0)
		return -errno;
	return remove_in(dirfd, name, st.st_dev, 0);
}

struct walk {
	fsx_walk_fn fn;
	void *ctx;
	size_t left;
	dev_t dev;
	char path[4096];
};

static int walk_in(struct walk *w, int fd, size_t plen, int depth)
{
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int sub, rc = 0;
	size_t n;

	dir = fdopendir(fd);
	if (!dir) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while (!rc && (d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (!w->left)
			break;
		w->left--;
		if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		n = (size_t)snprintf(w->path + plen, sizeof(w->path) - plen, "%s%s",
				     plen ? "/" : "", d->d_name);
		if (plen + n >= sizeof(w->path))
			continue;
		rc = w->fn(w->ctx, &(struct fsx_entry){w->path, &st, dirfd(dir), d->d_name});
		if (rc || !S_ISDIR(st.st_mode) || st.st_dev != w->dev || depth >= FSX_MAX_DEPTH)
			continue;
		sub = fsx_open_at(dirfd(dir), d->d_name, O_RDONLY | O_DIRECTORY, 0);
		if (sub >= 0)
			rc = walk_in(w, sub, plen + n, depth + 1);
	}
	w->path[plen] = '\0';
	closedir(dir);
	return rc;
}

int fsx_walk_at(int dirfd, size_t max_entries, fsx_walk_fn fn, void *ctx)
{
	struct walk w = {.fn = fn, .ctx = ctx, .left = max_entries};
	struct stat st;
	int fd;

	if (fstat(dirfd, &st) < 0)
		return -errno;
	w.dev = st.st_dev;
	fd = fsx_open_at(dirfd, ".", O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	return walk_in(&w, fd, 0, 0);
}

struct owner {
	uid_t uid;
	gid_t gid;
};

static int chown_entry(void *ctx, const struct fsx_entry *e)
{
	const struct owner *o = ctx;

	if (e->st->st_uid == o->uid && e->st->st_gid == o->gid)
		return 0;
	if (fchownat(e->dirfd, e->name, o->uid, o->gid, AT_SYMLINK_NOFOLLOW) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int fsx_chown_tree(const char *path, uid_t uid, gid_t gid)
{
	struct owner o = {uid, gid};
	int fd, rc;

	fd = fsx_open_dir(path);
	if (fd < 0)
		return fd;
	rc = fchown(fd, uid, gid) < 0 ? -errno : 0;
	if (!rc)
		rc = fsx_walk_at(fd, (size_t)-1, chown_entry, &o);
	close(fd);
	return rc;
}
