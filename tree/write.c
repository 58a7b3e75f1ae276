/* The static sink. The tree is built in a fresh sibling folder through
 * directory file descriptors (mkdirat/openat with O_NOFOLLOW|O_EXCL), so no
 * name, however hostile, can make a write land outside it; then one rename
 * puts it in place. */
#define _GNU_SOURCE
#include "write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/buf.h"
#include "../common/fsx.h"

#define FILE_MAX (256u << 20)

struct writer {
	const struct tree_snapshot *s;
	struct tree_write_stats st;
	struct buf b;
	struct err *err;
	const char *where; /* the temp folder, for messages */
};

/* A name codegen gave us must be one plain path component. */
static bool component_ok(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/');
}

static int write_file(struct writer *w, int dirfd, const char *name, const char *shown)
{
	const char *p = w->b.data ? w->b.data : "";
	size_t left = w->b.len;
	ssize_t n;
	int fd, rc = 0;

	if (!component_ok(name)) {
		err_set(w->err, EXIT_FAILED, "write %s: unsafe file name", shown);
		return -EINVAL;
	}
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		err_set(w->err, EXIT_FAILED, "openat(%s/%s): %s", w->where, shown, strerror(-rc));
		return rc;
	}
	while (left) {
		n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			err_set(w->err, EXIT_FAILED, "write(%s/%s): %s", w->where, shown,
				strerror(-rc));
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	/* Modes exactly as documented, whatever the umask. */
	if (!rc && fchmod(fd, 0644) < 0) {
		rc = -errno;
		err_set(w->err, EXIT_FAILED, "fchmod(%s/%s): %s", w->where, shown, strerror(-rc));
	}
	if (close(fd) < 0 && !rc) {
		rc = -errno;
		err_set(w->err, EXIT_FAILED, "close(%s/%s): %s", w->where, shown, strerror(-rc));
	}
	if (!rc) {
		w->st.files++;
		w->st.bytes += w->b.len;
	}
	return rc;
}

static int make_dir(struct writer *w, int dirfd, const char *name, const char *shown, int *out)
{
	int fd, rc;

	if (!component_ok(name)) {
		err_set(w->err, EXIT_FAILED, "mkdir %s: unsafe folder name", shown);
		return -EINVAL;
	}
	if (mkdirat(dirfd, name, 0755) < 0 ||
	    (fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		rc = -errno;
		err_set(w->err, EXIT_FAILED, "mkdirat(%s/%s): %s", w->where, shown, strerror(-rc));
		return rc;
	}
	if (fchmod(fd, 0755) < 0) {
		rc = -errno;
		close(fd);
		err_set(w->err, EXIT_FAILED, "fchmod(%s/%s): %s", w->where, shown, strerror(-rc));
		return rc;
	}
	w->st.dirs++;
	*out = fd;
	return 0;
}

static int render_failed(struct writer *w, int rc, const char *shown)
{
	err_set(w->err, EXIT_FAILED, "render %s: %s", shown, strerror(-rc));
	return rc;
}

static int write_server(struct writer *w, int serversfd, size_t i)
{
	const char *ident = cg_root_server_ident(w->s->root, i);
	const struct cg_entry *e;
	char shown[PATH_MAX];
	size_t n, k;
	int fd, rc;

	rc = make_dir(w, serversfd, ident, ident, &fd);
	if (rc)
		return rc;
	cg_server_list(w->s->servers[i], &e, &n);
	for (k = 0; !rc && k < n; k++) {
		snprintf(shown, sizeof(shown), "servers/%s/%s", ident, e[k].name);
		buf_reset(&w->b);
		rc = cg_server_render(w->s->servers[i], e[k].name, &w->b);
		if (rc)
			rc = render_failed(w, rc, shown);
		else
			rc = write_file(w, fd, e[k].name, shown);
	}
	close(fd);
	return rc;
}

static int write_dir(struct writer *w, int dirfd, const char *dir)
{
	const struct cg_entry *e;
	char rel[PATH_MAX];
	size_t n, k;
	long idx;
	int fd, rc = 0;

	cg_root_list(w->s->root, dir, &e, &n);
	for (k = 0; !rc && k < n; k++) {
		snprintf(rel, sizeof(rel), "%s%s%s", dir, *dir ? "/" : "", e[k].name);
		if (!e[k].is_dir) {
			buf_reset(&w->b);
			rc = cg_root_render(w->s->root, rel, &w->b);
			rc = rc ? render_failed(w, rc, rel) : write_file(w, dirfd, e[k].name, rel);
		} else if (!strcmp(dir, "")) {
			rc = make_dir(w, dirfd, e[k].name, rel, &fd);
			if (!rc) {
				rc = write_dir(w, fd, rel);
				close(fd);
			}
		} else {
			idx = cg_root_find(w->s->root, e[k].name);
			if (idx < 0 || (size_t)idx >= w->s->nservers || !w->s->servers[idx])
				continue;
			rc = write_server(w, dirfd, (size_t)idx);
		}
	}
	return rc;
}

/* Is the existing @name (in @parentfd) ours to replace? Empty, or holding
 * nothing but what a tree has at its top, shims included. */
static int replaceable(int parentfd, const char *name, bool *exists, struct err *err,
		       const char *shown)
{
	struct stat st;
	struct dirent *d;
	size_t entries = 0;
	DIR *dir;
	int fd, rc = 0;

	*exists = false;
	if (fstatat(parentfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		return err_set(err, EXIT_FAILED, "stat(%s): %s", shown, strerror(-rc)), rc;
	}
	if (!S_ISDIR(st.st_mode))
		return err_set(err, EXIT_USAGE, "%s exists and is not a folder", shown), -ENOTDIR;
	*exists = true;
	fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return err_set(err, EXIT_FAILED, "opendir(%s): %s", shown, strerror(-rc)), rc;
	}
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		entries++;
		if (!strcmp(d->d_name, "README.md") || !strcmp(d->d_name, "servers"))
			continue;
		err_set(err, EXIT_USAGE,
			"%s holds %s, so it is not a generated tree: not replacing it", shown,
			d->d_name);
		rc = -EEXIST;
		break;
	}
	/* Not empty: a tree has the shims in servers/ (a README.md alone may be
	 * a project's own). */
	if (!rc && entries && faccessat(dirfd(dir), "servers/_runtime.py", F_OK, 0) &&
	    faccessat(dirfd(dir), "servers/_runtime.ts", F_OK, 0)) {
		err_set(err, EXIT_USAGE,
			"%s has no servers/_runtime.py or .ts, so it is not a generated tree: not "
			"replacing it",
			shown);
		rc = -EEXIST;
	}
	closedir(dir);
	return rc;
}

int tree_write(const struct tree_snapshot *s, const char *dir, unsigned flags,
	       struct tree_write_stats *stats, struct err *err)
{
	char path[PATH_MAX], parent[PATH_MAX], tmpname[NAME_MAX + 1],
	    tmppath[PATH_MAX + NAME_MAX + 2];
	struct writer w = {.s = s, .err = err};
	const char *base, *slash;
	int parentfd = -1, tmpfd = -1, rc, attempt;
	bool exists, made = false;
	struct timespec ts;
	size_t len;

	len = strlen(dir);
	if (!len || len >= sizeof(path))
		return err_set(err, EXIT_USAGE, "--out: the folder name is empty or too long"),
		       -EINVAL;
	memcpy(path, dir, len + 1);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	if (slash == path)
		snprintf(parent, sizeof(parent), "/");
	else if (slash)
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	else
		snprintf(parent, sizeof(parent), ".");
	if (!component_ok(base))
		return err_set(err, EXIT_USAGE, "--out %s: name a folder, not . or ..", dir),
		       -EINVAL;
	rc = fsx_mkdirs(parent, 0755);
	if (rc)
		return err_set(err, EXIT_FAILED, "mkdir -p %s: %s", parent, strerror(-rc)), rc;
	parentfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parentfd < 0) {
		rc = -errno;
		return err_set(err, EXIT_FAILED, "open(%s): %s", parent, strerror(-rc)), rc;
	}
	rc = replaceable(parentfd, base, &exists, err, path);
	if (rc)
		goto out_close;
	buf_init(&w.b, FILE_MAX);
	/* A fresh name: several writers (exec runs of one daemon) may build the
	 * same tree at once. */
	for (attempt = 0; attempt < 100; attempt++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(tmpname, sizeof(tmpname), ".%.200s.mcpfs-%ld-%ld-%d", base, (long)getpid(),
			 (long)ts.tv_nsec, attempt);
		rc = mkdirat(parentfd, tmpname, 0755) < 0 ? -errno : 0;
		if (rc != -EEXIST)
			break;
	}
	snprintf(tmppath, sizeof(tmppath), "%s/%s", parent, tmpname);
	w.where = tmppath;
	if (rc) {
		err_set(err, EXIT_FAILED, "mkdirat(%s): %s", tmppath, strerror(-rc));
		goto out_free;
	}
	made = true;
	tmpfd = openat(parentfd, tmpname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tmpfd < 0) {
		rc = -errno;
		err_set(err, EXIT_FAILED, "open(%s): %s", tmppath, strerror(-rc));
		goto out_free;
	}
	if (fchmod(tmpfd, 0755) < 0) {
		rc = -errno;
		err_set(err, EXIT_FAILED, "fchmod(%s): %s", tmppath, strerror(-rc));
		goto out_free;
	}
	rc = write_dir(&w, tmpfd, "");
	if (rc)
		goto out_free;
	if (syncfs(tmpfd) < 0) {
		rc = -errno;
		err_set(err, EXIT_FAILED, "syncfs(%s): %s", tmppath, strerror(-rc));
		goto out_free;
	}
	/* One atomic step (where the file system has renameat2's flags): the
	 * new tree takes the old one's place, and the old one is left under the
	 * temp name, to be removed now or kept. */
	rc = fsx_rename_flags(parentfd, tmpname, base, exists ? RENAME_EXCHANGE : RENAME_NOREPLACE);
	if (rc < 0) {
		err_set(err, EXIT_FAILED, "rename(%s, %s): %s", tmppath, path, strerror(-rc));
		goto out_free;
	}
	made = exists && !(flags & TREE_WRITE_KEEP_OLD);
	rc = 0;
	if (stats)
		*stats = w.st;
out_free:
	if (tmpfd >= 0)
		close(tmpfd);
	if (made)
		fsx_remove_tree(tmppath);
	buf_free(&w.b);
out_close:
	close(parentfd);
	return rc;
}
