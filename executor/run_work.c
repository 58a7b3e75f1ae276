/* The work folder of a run's skills overlay (see run_work.h). */
#define _GNU_SOURCE
#include "run_work.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/fsx.h"
#include "run.h"

#define RUN_WORK_DIR ".jail-work"
/* A run lasts RUN_MAX_TIMEOUT_S at most; the hour is for clocks and slow
 * starts. */
#define RUN_WORK_SWEEP_AGE_S (RUN_MAX_TIMEOUT_S + 3600)

void run_work_remove(const char *dir)
{
	char path[4500];

	if (!dir[0])
		return;
	/* overlayfs's own "work" folder is mode 000: its owner (a normal
	 * user's run) could not list it to remove what it holds */
	snprintf(path, sizeof(path), "%s/work", dir);
	chmod(path, 0700);
	fsx_remove_tree(dir);
}

static void sweep(const char *base)
{
	char path[4400];
	struct dirent *d;
	struct stat st;
	DIR *dir = opendir(base);

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, d->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
		    difftime(time(NULL), st.st_mtime) > RUN_WORK_SWEEP_AGE_S)
			run_work_remove(path);
	}
	closedir(dir);
}

int run_work_make(const struct ws *ws, uid_t uid, gid_t gid, char *out, size_t n, struct err *err)
{
	char base[PATH_MAX + 32];

	out[0] = '\0';
	snprintf(base, sizeof(base), "%s/" RUN_WORK_DIR, ws->dir);
	if (mkdir(base, 0700) < 0 && errno != EEXIST)
		return err_set(err, EXIT_FAILED, "mkdir %s: %s", base, strerror(errno));
	sweep(base);
	if ((size_t)snprintf(out, n, "%s/XXXXXX", base) >= n) {
		out[0] = '\0';
		return err_set(err, EXIT_FAILED, "path too long: %s", base);
	}
	if (!mkdtemp(out)) {
		err_set(err, EXIT_FAILED, "mkdtemp %s: %s", out, strerror(errno));
		out[0] = '\0';
		return -1;
	}
	if (chown(out, uid, gid) < 0)
		return err_set(err, EXIT_FAILED, "chown %s: %s", out, strerror(errno));
	return 0;
}
