#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fsx.h"
#include "skills.h"

#define SKILL_DEPTH_MAX 8
#define COPY_CHUNK 65536

static json_t *read_skill_md(int dfd, const char *name, struct err *err)
{
	char rel[SKILL_NAME_MAX + 16], *text;
	json_t *fm;
	int rc;

	snprintf(rel, sizeof(rel), "%s/SKILL.md", name);
	rc = fsx_read_at(dfd, rel, SKILL_MD_MAX, &text, NULL);
	if (rc < 0) {
		err_set(err, EXIT_USAGE, "skill %s: SKILL.md: %s", name,
			rc == -E2BIG   ? "too large"
			: rc == -ELOOP ? "is a symlink"
				       : strerror(-rc));
		return NULL;
	}
	fm = skill_parse(text, err);
	free(text);
	if (!fm) {
		err_prefix(err, "skill %s", name);
		return NULL;
	}
	if (strcmp(json_string_value(json_object_get(fm, "name")), name)) {
		err_set(err, EXIT_USAGE, "skill %s: SKILL.md names it '%s'", name,
			json_string_value(json_object_get(fm, "name")));
		json_decref(fm);
		return NULL;
	}
	return fm;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "name")),
		      json_string_value(json_object_get(*(json_t *const *)b, "name")));
}

static int sort_by_name(json_t *arr)
{
	size_t i, n = json_array_size(arr);
	json_t **v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof(*v), by_name);
	json_array_clear(arr);
	for (i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
	return 0;
}

json_t *skill_list(const char *dir, const char *scope, struct err *err)
{
	struct err why;
	struct dirent *d;
	struct stat st;
	json_t *arr, *fm, *s;
	DIR *dp;
	int fd;

	arr = json_array();
	fd = fsx_open_dir(dir);
	if (fd == -ENOENT || !arr)
		return arr;
	dp = fd < 0 ? NULL : fdopendir(fd);
	if (!dp) {
		err_set(err, EXIT_FAILED, "open %s: %s", dir, strerror(fd < 0 ? -fd : errno));
		if (fd >= 0)
			close(fd);
		json_decref(arr);
		return NULL;
	}
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' || d->d_name[0] == '_' || !strcmp(d->d_name, "shared"))
			continue;
		if (fstatat(dirfd(dp), d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		err_clear(&why);
		/* A broken skill is listed with what is wrong, not dropped. */
		fm = skill_name_valid(d->d_name, &why) ? read_skill_md(dirfd(dp), d->d_name, &why)
						       : NULL;
		if (fm)
			s = json_pack("{s:s, s:O, s:s}", "name", d->d_name, "description",
				      json_object_get(fm, "description"), "scope", scope);
		else
			s = json_pack("{s:s%, s:s, s:s}", "name", d->d_name,
				      strnlen(d->d_name, 255), "scope", scope, "error", why.text);
		json_decref(fm);
		if (s)
			json_array_append_new(arr, s);
	}
	closedir(dp);
	if (sort_by_name(arr) < 0) {
		json_decref(arr);
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	return arr;
}

struct file_list {
	json_t *files; /* borrowed */
	size_t bytes;
};

static int list_entry(void *ctx, const struct fsx_entry *e)
{
	struct file_list *l = ctx;

	if (S_ISREG(e->st->st_mode))
		json_array_append_new(l->files, json_pack("{s:s, s:I}", "path", e->rel, "size",
							  (json_int_t)e->st->st_size));
	return 0;
}

json_t *skill_show(const char *dir, const char *name, struct err *err)
{
	struct file_list l = {0};
	json_t *fm;
	int dfd, sfd;

	if (!skill_name_valid(name, err))
		return NULL;
	dfd = fsx_open_dir(dir);
	if (dfd < 0) {
		err_set(err, EXIT_USAGE, "no skill %s (%s: %s)", name, dir, strerror(-dfd));
		return NULL;
	}
	sfd = fsx_open_at(dfd, name, O_RDONLY | O_DIRECTORY, 0);
	if (sfd < 0) {
		close(dfd);
		err_set(err, EXIT_USAGE, "no skill %s in %s", name, dir);
		return NULL;
	}
	fm = read_skill_md(dfd, name, err);
	l.files = json_array();
	if (fm && l.files) {
		fsx_walk_at(sfd, SKILL_FILES_MAX * 4, list_entry, &l);
		json_object_set(fm, "files", l.files);
	}
	json_decref(l.files);
	close(sfd);
	close(dfd);
	return fm;
}

struct copy {
	size_t files, bytes;
	uid_t uid; /* the store's owner: the jail's user can change what it saved */
	gid_t gid;
	const char *src; /* for messages */
	struct err *err;
};

static int copy_file(int sdir, int ddir, const char *name, mode_t mode, struct copy *c)
{
	char buf[COPY_CHUNK];
	ssize_t r, w;
	int in, out, rc = 0;

	in = fsx_open_at(sdir, name, O_RDONLY, 0);
	if (in < 0)
		return err_set(c->err, EXIT_USAGE, "open %s/%s: %s", c->src, name, strerror(-in));
	out = fsx_open_at(ddir, name, O_WRONLY | O_CREAT | O_EXCL, (mode & 0111) ? 0755 : 0644);
	if (out < 0) {
		close(in);
		return err_set(c->err, EXIT_FAILED, "create %s: %s", name, strerror(-out));
	}
	while (!rc && (r = read(in, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = err_set(c->err, EXIT_FAILED, "read %s/%s: %s", c->src, name,
				     strerror(errno));
			break;
		}
		c->bytes += (size_t)r;
		if (c->bytes > SKILL_BYTES_MAX) {
			rc = err_set(c->err, EXIT_USAGE, "skill %s is larger than %u MiB", c->src,
				     SKILL_BYTES_MAX >> 20);
			break;
		}
		w = write(out, buf, (size_t)r);
		if (w != r)
			rc = err_set(c->err, EXIT_FAILED, "write %s: %s", name,
				     w < 0 ? strerror(errno) : "short write");
	}
	if (!rc && fchown(out, c->uid, c->gid) < 0)
		rc = err_set(c->err, EXIT_FAILED, "chown %s: %s", name, strerror(errno));
	if (!rc && fsync(out) < 0)
		rc = err_set(c->err, EXIT_FAILED, "fsync %s: %s", name, strerror(errno));
	close(in);
	close(out);
	return rc;
}

static int copy_dir(int sdir, int ddir, int depth, struct copy *c)
{
	struct dirent *d;
	struct stat st;
	int s2, d2, rc = 0, fd;
	DIR *dp;

	if (depth > SKILL_DEPTH_MAX)
		return err_set(c->err, EXIT_USAGE, "skill %s nests deeper than %d folders", c->src,
			       SKILL_DEPTH_MAX);
	fd = fsx_open_at(sdir, ".", O_RDONLY | O_DIRECTORY, 0);
	dp = fd < 0 ? NULL : fdopendir(fd);
	if (!dp) {
		if (fd >= 0)
			close(fd);
		return err_set(c->err, EXIT_USAGE, "read %s: %s", c->src, strerror(errno));
	}
	while (!rc && (d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    !strcmp(d->d_name, "__pycache__"))
			continue;
		if (fstatat(dirfd(dp), d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = err_set(c->err, EXIT_USAGE, "stat %s/%s: %s", c->src, d->d_name,
				     strerror(errno));
			break;
		}
		if (++c->files > SKILL_FILES_MAX) {
			rc = err_set(c->err, EXIT_USAGE, "skill %s has more than %u files", c->src,
				     SKILL_FILES_MAX);
			break;
		}
		if (S_ISREG(st.st_mode)) {
			rc = copy_file(dirfd(dp), ddir, d->d_name, st.st_mode, c);
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc = err_set(c->err, EXIT_USAGE,
				     "skill %s: %s is a symlink or special file; refused", c->src,
				     d->d_name);
			break;
		}
		rc = fsx_mkdir_at(ddir, d->d_name, 0755);
		if (rc < 0) {
			rc = err_set(c->err, EXIT_FAILED, "mkdir %s: %s", d->d_name, strerror(-rc));
			break;
		}
		s2 = fsx_open_at(dirfd(dp), d->d_name, O_RDONLY | O_DIRECTORY, 0);
		d2 = fsx_open_at(ddir, d->d_name, O_RDONLY | O_DIRECTORY, 0);
		if (s2 < 0 || d2 < 0)
			rc = err_set(c->err, EXIT_FAILED, "open %s/%s: %s", c->src, d->d_name,
				     strerror(-(s2 < 0 ? s2 : d2)));
		else if (fchown(d2, c->uid, c->gid) < 0)
			rc = err_set(c->err, EXIT_FAILED, "chown %s: %s", d->d_name,
				     strerror(errno));
		else
			rc = copy_dir(s2, d2, depth + 1, c);
		if (s2 >= 0)
			close(s2);
		if (d2 >= 0)
			close(d2);
	}
	closedir(dp);
	return rc;
}

/* Put the copied folder @tmp in place of @name: an exchange when an older
 * version exists, so a reader sees the old skill or the new one, never none. */
static int install(int dfd, const char *tmp, const char *name, const char *dir, struct err *err)
{
	int rc = fsx_rename_flags(dfd, tmp, name, RENAME_NOREPLACE);

	if (rc == 0)
		return 0;
	if (rc != -EEXIST)
		return err_set(err, EXIT_FAILED, "rename %s/%s: %s", dir, name, strerror(-rc));
	rc = fsx_rename_flags(dfd, tmp, name, RENAME_EXCHANGE);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "exchange %s/%s: %s", dir, name, strerror(-rc));
	fsx_remove_tree_at(dfd, tmp);
	return 0;
}

int skill_save(const char *dir, const char *src, const char *name, char *saved, struct err *err)
{
	struct copy c = {.src = src, .err = err};
	char tmp[SKILL_NAME_MAX + 32], *text;
	const char *fname;
	struct stat st;
	json_t *fm = NULL;
	int sfd, dfd = -1, tfd, rc = -1;

	sfd = fsx_open_dir(src);
	if (sfd < 0)
		return err_set(err, EXIT_USAGE, "skill folder %s: %s", src, strerror(-sfd));
	rc = fsx_read_at(sfd, "SKILL.md", SKILL_MD_MAX, &text, NULL);
	if (rc < 0) {
		err_set(err, EXIT_USAGE, "%s/SKILL.md: %s", src, strerror(-rc));
		rc = -1;
		goto out_close;
	}
	rc = -1;
	fm = skill_parse(text, err);
	free(text);
	if (!fm) {
		err_prefix(err, "%s", src);
		goto out_close;
	}
	fname = json_string_value(json_object_get(fm, "name"));
	if (name && strcmp(name, fname)) {
		err_set(err, EXIT_USAGE, "%s/SKILL.md names the skill '%s', not '%s'", src, fname,
			name);
		goto out_close;
	}
	dfd = fsx_open_dir(dir);
	if (dfd < 0) {
		err_set(err, EXIT_FAILED, "open %s: %s", dir, strerror(-dfd));
		goto out_close;
	}
	snprintf(tmp, sizeof(tmp), ".save-%s.%ld", fname, (long)getpid());
	fsx_remove_tree_at(dfd, tmp);
	if (fsx_mkdir_at(dfd, tmp, 0755) < 0 ||
	    (tfd = fsx_open_at(dfd, tmp, O_RDONLY | O_DIRECTORY, 0)) < 0) {
		err_set(err, EXIT_FAILED, "mkdir %s/%s: %s", dir, tmp, strerror(errno));
		goto out_close;
	}
	if (fstat(dfd, &st) < 0 || fchown(tfd, st.st_uid, st.st_gid) < 0) {
		err_set(err, EXIT_FAILED, "chown %s/%s: %s", dir, tmp, strerror(errno));
		close(tfd);
		fsx_remove_tree_at(dfd, tmp);
		goto out_close;
	}
	c.uid = st.st_uid;
	c.gid = st.st_gid;
	rc = copy_dir(sfd, tfd, 0, &c);
	close(tfd);
	if (!rc)
		rc = install(dfd, tmp, fname, dir, err);
	if (rc)
		fsx_remove_tree_at(dfd, tmp);
	else
		snprintf(saved, SKILL_NAME_MAX + 1, "%s", fname);
out_close:
	json_decref(fm);
	if (dfd >= 0)
		close(dfd);
	close(sfd);
	return rc;
}

int skill_remove(const char *dir, const char *name, struct err *err)
{
	struct stat st;
	int dfd, rc;

	if (!skill_name_valid(name, err))
		return -1;
	dfd = fsx_open_dir(dir);
	if (dfd < 0)
		return err_set(err, EXIT_USAGE, "no skill %s (%s: %s)", name, dir, strerror(-dfd));
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		close(dfd);
		return err_set(err, EXIT_USAGE, "no skill %s in %s", name, dir);
	}
	rc = fsx_remove_tree_at(dfd, name);
	close(dfd);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "rm %s/%s: %s", dir, name, strerror(-rc));
	return 0;
}
