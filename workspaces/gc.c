#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"
#include "../common/fsx.h"

/* A temp file or half-saved skill younger than this may belong to a live
 * writer: left alone. */
#define LEFTOVER_AGE_S 3600.0

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

static bool log_exists(int dfd, const char *lock)
{
	char name[NAME_MAX + 1];
	struct stat st;

	snprintf(name, sizeof(name), "%.*s.json", (int)(strlen(lock) - 5), lock);
	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int drop(int dfd, const char *folder, const char *name, bool dry_run, json_t *out)
{
	char rel[PATH_MAX];
	int rc = dry_run ? 0 : fsx_remove_tree_at(dfd, name);

	if (rc < 0)
		return rc;
	snprintf(rel, sizeof(rel), "%s/%s", folder, name);
	json_array_append_new(out, json_string(rel));
	return 0;
}

/* One pass over @folder of the customer: @stale says what goes. */
static int sweep(const struct ws *ws, const char *folder, double max_age_s, bool dry_run,
		 json_t *out, struct err *err)
{
	char base[PATH_MAX];
	struct dirent *d;
	struct stat st;
	double age, now = (double)time(NULL);
	bool sessions = !strcmp(folder, "sessions"), go;
	DIR *dp;
	int fd, rc = 0;

	if (snprintf(base, sizeof(base), "%s/%s", ws->dir, folder) >= (int)sizeof(base))
		return err_set(err, EXIT_FAILED, "%s: path too long", ws->dir);
	fd = fsx_open_dir(base);
	if (fd == -ENOENT)
		return 0;
	dp = fd < 0 ? NULL : fdopendir(fd);
	if (!dp) {
		if (fd >= 0)
			close(fd);
		return err_set(err, EXIT_FAILED, "open %s: %s", base, strerror(errno));
	}
	while (!rc && (d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (fstatat(dirfd(dp), d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		age = now - (double)st.st_mtime;
		if (strstr(d->d_name, ".tmp.") || !strncmp(d->d_name, ".save-", 6))
			go = d->d_name[0] == '.' && age > LEFTOVER_AGE_S;
		else if (sessions && S_ISREG(st.st_mode) && ends_with(d->d_name, ".json"))
			go = age > max_age_s;
		else
			/* A lock goes only with its log: removing a lock someone holds
			 * would let a second writer in. */
			go = sessions && S_ISREG(st.st_mode) && ends_with(d->d_name, ".lock") &&
			     age > max_age_s && !log_exists(dirfd(dp), d->d_name);
		if (go)
			rc = drop(dirfd(dp), folder, d->d_name, dry_run, out);
	}
	closedir(dp);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "gc %s: %s", base, strerror(-rc));
	return 0;
}

json_t *ws_gc(const struct ws *ws, double max_age_s, bool dry_run, struct err *err)
{
	static const char *const folders[] = {"sessions", "skills", "state"};
	json_t *out = json_array();
	size_t i;

	if (!out) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	for (i = 0; i < sizeof(folders) / sizeof(folders[0]); i++) {
		if (sweep(ws, folders[i], max_age_s, dry_run, out, err) < 0) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}
