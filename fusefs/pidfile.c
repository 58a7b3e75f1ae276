/* The pid file of a running mount (format in mount.h), and finding a live
 * mount from it. */
#include "mount.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

#include "../codegen/codegen.h"
#include "../common/fsx.h"
#include "../common/strmap.h"

#define FUSE_SUPER_MAGIC 0x65735546
#define PIDFILE_MAX 65536

int fusefs_pidfile_path(const char *root, const char *abs, char *out, size_t n)
{
	int len = snprintf(out, n, "%s/run/mount-%016llx.json", root,
			   (unsigned long long)strhash(abs, strlen(abs)));

	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

static const char *langs_text(unsigned langs)
{
	if ((langs & CG_LANG_ALL) == CG_LANG_ALL)
		return "py,ts";
	return langs & CG_LANG_TS ? "ts" : "py";
}

int fusefs_pidfile_write(const char *root, const char *abs, unsigned langs, const char *config)
{
	char path[PATH_MAX], dir[PATH_MAX];
	json_t *doc;
	char *text;
	int rc;

	rc = fusefs_pidfile_path(root, abs, path, sizeof(path));
	if (rc)
		return rc;
	if (snprintf(dir, sizeof(dir), "%s/run", root) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	rc = fsx_mkdirs(dir, 0700);
	if (rc)
		return rc;
	doc = json_pack("{s:s, s:I, s:s, s:s}", "mountpoint", abs, "pid", (json_int_t)getpid(),
			"langs", langs_text(langs), "config", config ? config : "");
	text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
	json_decref(doc);
	if (!text)
		return -ENOMEM;
	rc = fsx_write_atomic(path, text, strlen(text), 0644);
	free(text);
	return rc;
}

void fusefs_pidfile_remove(const char *root, const char *abs)
{
	char path[PATH_MAX];

	if (!fusefs_pidfile_path(root, abs, path, sizeof(path)))
		unlink(path);
}

bool fusefs_mount_answers(const char *abs)
{
	struct statfs sf;
	struct stat st;

	return stat(abs, &st) == 0 && S_ISDIR(st.st_mode) && statfs(abs, &sf) == 0 &&
	       sf.f_type == FUSE_SUPER_MAGIC;
}

static bool pid_alive(json_int_t pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* Is the pid file at @path a live mount (of @config_origin, when given)? */
static bool live(const char *path, const char *config_origin, char *out, size_t n, unsigned *langs)
{
	const char *mnt = NULL, *config = NULL, *lang = NULL;
	json_int_t pid = 0;
	bool ok = false;
	json_t *doc;
	char *text;

	if (fsx_read(path, PIDFILE_MAX, &text, NULL))
		return false;
	doc = json_loads(text, 0, NULL);
	free(text);
	if (!doc || json_unpack(doc, "{s:s, s:I, s?s, s?s}", "mountpoint", &mnt, "pid", &pid,
				"langs", &lang, "config", &config))
		goto out_decref;
	if (config_origin && (!config || strcmp(config, config_origin)))
		goto out_decref;
	if (!pid_alive(pid) || !fusefs_mount_answers(mnt))
		goto out_decref;
	if (snprintf(out, n, "%s", mnt) >= (int)n)
		goto out_decref;
	if (langs)
		*langs = lang ? cg_langs_parse(lang) : CG_LANG_ALL;
	ok = true;
out_decref:
	json_decref(doc);
	return ok;
}

int fusefs_mount_find(const char *root, const char *config_origin, char *out, size_t n,
		      unsigned *langs)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	int rc = -ENOENT;
	DIR *d;

	if (snprintf(dir, sizeof(dir), "%s/run", root) >= (int)sizeof(dir))
		return -ENOENT;
	d = opendir(dir);
	if (!d)
		return -ENOENT;
	while (rc && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, "mount-", 6) || len < 5 ||
		    strcmp(de->d_name + len - 5, ".json"))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (live(path, config_origin, out, n, langs))
			rc = 0;
	}
	closedir(d);
	return rc;
}
