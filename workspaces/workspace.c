#define _GNU_SOURCE
#include "workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/embed.h"
#include "../common/fsx.h"
#include "../common/jsonx.h"
#include "admin.h"
#include "idle.h"
#include "quota.h"
#include "overlay.h"

static const char *const subdirs[] = {"workspace", "skills", "sessions", "state"};

static int fill_paths(const char *root, const char *customer, struct ws *out, struct err *err)
{
	struct {
		char *dst;
		const char *name;
	} p[] = {
	    {out->workspace, "workspace"},
	    {out->skills, "skills"},
	    {out->sessions, "sessions"},
	    {out->state, "state"},
	};
	size_t i;

	snprintf(out->customer, sizeof(out->customer), "%s", customer);
	if (snprintf(out->dir, sizeof(out->dir), "%s/workspaces/%s", root, customer) >=
	    (int)sizeof(out->dir))
		return err_set(err, EXIT_USAGE, "data root %s: path too long", root);
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (snprintf(p[i].dst, PATH_MAX, "%s/%s", out->dir, p[i].name) >= PATH_MAX)
			return err_set(err, EXIT_USAGE, "data root %s: path too long", root);
	return 0;
}

static int open_customer(const char *root, const char *customer, bool create, struct err *err)
{
	char top[PATH_MAX];
	int tfd, cfd, rc;

	if (snprintf(top, sizeof(top), "%s/workspaces", root) >= (int)sizeof(top))
		return err_set(err, EXIT_USAGE, "data root %s: path too long", root);
	if (create && (rc = fsx_mkdirs(top, 0700)) < 0)
		return err_set(err, EXIT_FAILED, "mkdir %s: %s", top, strerror(-rc));
	tfd = fsx_open_dir(top);
	if (tfd == -ENOENT)
		return err_set(
		    err, EXIT_USAGE,
		    "no workspace for customer %s; make it with 'mcpfs workspace create %s'",
		    customer, customer);
	if (tfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", top, strerror(-tfd));
	rc = create ? fsx_mkdir_at(tfd, customer, 0700) : 0;
	cfd = rc < 0 ? rc : fsx_open_at(tfd, customer, O_RDONLY | O_DIRECTORY, 0);
	close(tfd);
	if (cfd == -ENOENT)
		return err_set(
		    err, EXIT_USAGE,
		    "no workspace for customer %s; make it with 'mcpfs workspace create %s'",
		    customer, customer);
	if (cfd == -ELOOP || cfd == -ENOTDIR)
		return err_set(err, EXIT_FAILED, "%s/%s is a symlink or not a folder; refused", top,
			       customer);
	if (cfd < 0)
		return err_set(err, EXIT_FAILED, "open %s/%s: %s", top, customer, strerror(-cfd));
	return cfd;
}

static int check_subdirs(int cfd, const struct ws *ws, bool create, struct err *err)
{
	struct stat st;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		if (create)
			rc = fsx_mkdir_at(cfd, subdirs[i], 0700);
		else if (fstatat(cfd, subdirs[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			rc = -errno;
		else
			rc = S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
		if (rc == -ELOOP || rc == -ENOTDIR)
			return err_set(err, EXIT_FAILED,
				       "%s/%s is a symlink or not a folder; refused", ws->dir,
				       subdirs[i]);
		if (rc < 0)
			return err_set(err, EXIT_FAILED, "%s/%s: %s", ws->dir, subdirs[i],
				       strerror(-rc));
	}
	return 0;
}

/* A file of templates/workspace/, embedded at build time. */
static const struct embedded_file *ws_template(const char *name)
{
	const struct embedded_file *f;

	for (f = ws_embedded_files; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/* The importer in skills/__init__.py (templates/workspace/skills__init__.py)
 * and the mount point for the shared ones. */
static int provision_skills(int cfd, const struct ws *ws, struct err *err)
{
	const struct embedded_file *init = ws_template("skills__init__.py");
	char *old = NULL;
	int sfd, rc;

	if (!init)
		return err_set(err, EXIT_FAILED, "skills__init__.py is not in this build");
	sfd = fsx_open_at(cfd, "skills", O_RDONLY | O_DIRECTORY, 0);
	if (sfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", ws->skills, strerror(-sfd));
	rc = fsx_mkdir_at(sfd, "shared", 0755);
	if (rc == 0 &&
	    (fsx_read_at(sfd, "__init__.py", 1 << 16, &old, NULL) < 0 || strcmp(old, init->data)))
		rc = fsx_write_atomic_at(sfd, "__init__.py", init->data, init->len, 0644);
	free(old);
	close(sfd);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "provision %s: %s", ws->skills, strerror(-rc));
	return 0;
}

static int open_ws(const char *root, const char *customer, bool create,
		   const struct ws_quota *quota, struct ws *out, int *hold, struct err *err)
{
	struct ws_quota q;
	struct ws w;
	int cfd, rc;

	if (!id_valid(customer, "customer", err))
		return -1;
	memset(&w, 0, sizeof(w));
	if (fill_paths(root, customer, &w, err) < 0)
		return -1;
	cfd = open_customer(root, customer, create, err);
	if (cfd < 0)
		return -1;
	rc = check_subdirs(cfd, &w, create, err);
	if (!rc && create)
		rc = provision_skills(cfd, &w, err);
	close(cfd);
	if (rc)
		return -1;
	if (create) {
		rc = ws_quota_get(&w, &q, err);
		if (rc && rc != -ENOENT)
			return -1;
		if (rc == -ENOENT && !quota)
			ws_quota_defaults(&q);
		if ((rc == -ENOENT || quota) && ws_quota_apply(&w, quota ? quota : &q, err) < 0)
			return -1;
	}
	/* Held before it is mounted: the idle sweep cannot unmount it between. */
	if (hold && (*hold = ws_hold(&w, err)) < 0)
		return -1;
	if (ws_quota_mount(&w, err) < 0 || (hold && ws_overlay_mount(&w, "skills", err) < 0)) {
		if (hold) {
			ws_release(*hold);
			*hold = -1;
		}
		return -1;
	}
	*out = w;
	return 0;
}

int ws_open(const char *root, const char *customer, bool create, struct ws *out, struct err *err)
{
	return open_ws(root, customer, create, NULL, out, NULL, err);
}

int ws_open_held(const char *root, const char *customer, struct ws *out, int *hold, struct err *err)
{
	*hold = -1;
	return open_ws(root, customer, true, NULL, out, hold, err);
}

int ws_create(const char *root, const char *customer, const struct ws_quota *q, struct ws *out,
	      struct err *err)
{
	return open_ws(root, customer, true, q, out, NULL, err);
}

static int chown_tree(const char *path, uid_t uid, gid_t gid, struct err *err)
{
	int rc = fsx_chown_tree(path, uid, gid);

	if (rc < 0)
		return err_set(err, EXIT_FAILED, "chown -R %s %u:%u: %s", path, (unsigned)uid,
			       (unsigned)gid, strerror(-rc));
	return 0;
}

int ws_chown(const struct ws *ws, uid_t uid, gid_t gid, struct err *err)
{
	if (chown_tree(ws->workspace, uid, gid, err) < 0)
		return -1;
	return chown_tree(ws->skills, uid, gid, err);
}

int ws_skills_shared(const char *root, char *out, size_t n, struct err *err)
{
	int rc;

	if (snprintf(out, n, "%s/skills-shared", root) >= (int)n)
		return err_set(err, EXIT_USAGE, "data root %s: path too long", root);
	rc = fsx_mkdirs(out, 0755);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "mkdir %s: %s", out, strerror(-rc));
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a),
		      json_string_value(*(json_t *const *)b));
}

json_t *ws_list(const char *root, struct err *err)
{
	char top[PATH_MAX];
	struct dirent *d;
	json_t *arr;
	DIR *dir;
	int fd;

	arr = json_array();
	if (!arr || snprintf(top, sizeof(top), "%s/workspaces", root) >= (int)sizeof(top)) {
		json_decref(arr);
		err_set(err, EXIT_FAILED, "ws_list %s: out of memory or path too long", root);
		return NULL;
	}
	fd = fsx_open_dir(top);
	if (fd == -ENOENT)
		return arr;
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		json_decref(arr);
		err_set(err, EXIT_FAILED, "open %s: %s", top, strerror(fd < 0 ? -fd : errno));
		return NULL;
	}
	while ((d = readdir(dir)))
		if (d->d_type == DT_DIR && id_valid(d->d_name, "customer", NULL))
			json_array_append_new(arr, json_string(d->d_name));
	closedir(dir);
	if (jsonx_array_sort(arr, cmp_str) < 0) {
		json_decref(arr);
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	return arr;
}

int ws_remove(const struct ws *ws, struct err *err)
{
	char top[PATH_MAX];
	int tfd, rc;

	if (ws_umount_locked(ws, ws->workspace, true, err) < 0 ||
	    ws_umount_locked(ws, ws->skills, true, err) < 0)
		return -1;
	snprintf(top, sizeof(top), "%.*s", (int)(strrchr(ws->dir, '/') - ws->dir), ws->dir);
	tfd = fsx_open_dir(top);
	if (tfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", top, strerror(-tfd));
	rc = fsx_remove_tree_at(tfd, ws->customer);
	close(tfd);
	if (rc == -EXDEV)
		return err_set(err, EXIT_FAILED, "rm %s: something is still mounted inside",
			       ws->dir);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "rm %s: %s", ws->dir, strerror(-rc));
	return 0;
}

static int newest(void *ctx, const struct fsx_entry *e)
{
	time_t *t = ctx;
	size_t n = strlen(e->rel);

	if (n > 5 && !strcmp(e->rel + n - 5, ".json") && !strchr(e->rel, '/') &&
	    e->st->st_mtime > *t)
		*t = e->st->st_mtime;
	return 0;
}

time_t ws_last_use(const struct ws *ws)
{
	time_t t = 0;
	int fd = fsx_open_dir(ws->sessions);

	if (fd < 0)
		return 0;
	fsx_walk_at(fd, 100000, newest, &t);
	close(fd);
	return t;
}
