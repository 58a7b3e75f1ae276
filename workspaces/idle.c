/* Idle workspaces unmounted (idle.h). The sweep reads this namespace's
 * mount table, so its cost follows the workspaces mounted, not the number
 * of customers. */
#define _GNU_SOURCE
#include "idle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/fsx.h"
#include "quota.h"

#define USE_LOCK "use.lock"

double ws_idle_time(struct err *err)
{
	const char *v = getenv(WS_IDLE_ENV);
	char *end;
	double s;

	if (!v || !*v)
		return WS_IDLE_DEFAULT_S;
	errno = 0;
	s = strtod(v, &end);
	if (errno || *end || !(s >= 0) || s > 1e9)
		return err_set(err, EXIT_USAGE, "%s=%s: not a number of seconds >= 0", WS_IDLE_ENV,
			       v);
	return s;
}

static int lock_use(const char *dir, int how, struct err *err)
{
	int dfd = fsx_open_dir(dir), fd;

	if (dfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", dir, strerror(-dfd));
	fd = fsx_open_at(dfd, USE_LOCK, O_RDWR | O_CREAT, 0600);
	close(dfd);
	if (fd < 0)
		return err_set(err, EXIT_FAILED, "open %s/" USE_LOCK ": %s", dir, strerror(-fd));
	while (flock(fd, how) < 0) {
		int saved = errno;

		if (saved == EINTR)
			continue;
		close(fd);
		if (saved == EWOULDBLOCK)
			return -EWOULDBLOCK;
		return err_set(err, EXIT_FAILED, "flock %s/" USE_LOCK ": %s", dir, strerror(saved));
	}
	return fd;
}

int ws_hold(const struct ws *ws, struct err *err)
{
	int fd = lock_use(ws->dir, LOCK_SH, err);

	if (fd >= 0)
		futimens(fd, NULL);
	return fd < 0 ? -1 : fd;
}

void ws_release(int fd)
{
	if (fd < 0)
		return;
	futimens(fd, NULL);
	close(fd);
}

/* /proc/self/mountinfo writes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* @s without its suffix @tail cut, or false. */
static bool cut_tail(char *s, const char *tail)
{
	size_t m = strlen(s), t = strlen(tail);

	if (m <= t || strcmp(s + m - t, tail))
		return false;
	s[m - t] = '\0';
	return true;
}

/* The customer whose workspace or skills @mnt is, under @prefix
 * (<root>/workspaces/), or NULL. Points into @mnt, which it cuts. */
static const char *customer_of(char *mnt, const char *prefix)
{
	size_t n = strlen(prefix);
	char *c;

	if (strncmp(mnt, prefix, n))
		return NULL;
	c = mnt + n;
	if (!cut_tail(c, "/workspace") && !cut_tail(c, "/skills"))
		return NULL;
	return strchr(c, '/') ? NULL : c;
}

/* What is mounted at the customer's workspace/ (image or overlay) and
 * skills/, with nobody holding it: 1 when either was unmounted, 0, -1. */
static int umount_both(const struct ws *ws, struct err *err)
{
	int a = ws_umount_locked(ws, ws->workspace, false, err), b;

	if (a < 0)
		return -1;
	b = ws_umount_locked(ws, ws->skills, false, err);
	return b < 0 ? -1 : a || b;
}

/* Unmount one workspace if idle (any, when @idle_s < 0) and not held: 1
 * unmounted, 0 left, -1. */
static int sweep_one(const char *root, const char *customer, double idle_s, struct err *err)
{
	struct ws ws = {0};
	struct timespec now;
	struct stat st;
	int fd, rc;

	snprintf(ws.customer, sizeof(ws.customer), "%s", customer);
	if (snprintf(ws.dir, sizeof(ws.dir), "%s/workspaces/%s", root, customer) >=
		(int)sizeof(ws.dir) ||
	    snprintf(ws.workspace, sizeof(ws.workspace), "%s/workspace", ws.dir) >=
		(int)sizeof(ws.workspace) ||
	    snprintf(ws.skills, sizeof(ws.skills), "%s/skills", ws.dir) >= (int)sizeof(ws.skills))
		return 0;
	fd = lock_use(ws.dir, LOCK_EX | LOCK_NB, err);
	if (fd == -EWOULDBLOCK)
		return 0; /* in use */
	if (fd < 0)
		return -1;
	/* Stamped by whoever held it last, read under the lock: a use that
	 * began and ended since the mount table was read counts. */
	clock_gettime(CLOCK_REALTIME, &now);
	rc = fstat(fd, &st) < 0
		 ? err_set(err, EXIT_FAILED, "stat %s/" USE_LOCK ": %s", ws.dir, strerror(errno))
		 : 0;
	if (!rc && (idle_s < 0 || (double)(now.tv_sec - st.st_mtim.tv_sec) +
					  (double)(now.tv_nsec - st.st_mtim.tv_nsec) / 1e9 >=
				      idle_s))
		rc = umount_both(&ws, err);
	close(fd);
	return rc;
}

static int sweep(const char *root, double idle_s, json_t *gone, struct err *err)
{
	char real[PATH_MAX], prefix[PATH_MAX + 16], *line = NULL, *f[5], *save;
	size_t cap = 0, k;
	FILE *mi;
	int n = 0, rc;

	if (!realpath(root, real))
		return errno == ENOENT ? 0
				       : err_set(err, EXIT_FAILED, "%s: %s", root, strerror(errno));
	snprintf(prefix, sizeof(prefix), "%s/workspaces/", real);
	mi = fopen("/proc/self/mountinfo", "re");
	if (!mi)
		return err_set(err, EXIT_FAILED, "/proc/self/mountinfo: %s", strerror(errno));
	while (n >= 0 && getline(&line, &cap, mi) > 0) {
		const char *c;

		/* id parent major:minor root mount-point ... */
		f[0] = strtok_r(line, " ", &save);
		for (k = 1; k < 5 && f[k - 1]; k++)
			f[k] = strtok_r(NULL, " ", &save);
		if (k < 5 || !f[4])
			continue;
		unescape(f[4]);
		c = customer_of(f[4], prefix);
		if (!c || !id_valid(c, "customer", NULL))
			continue;
		rc = sweep_one(real, c, idle_s, err);
		if (rc < 0)
			n = -1;
		else if (rc > 0 && ++n && gone)
			json_array_append_new(gone, json_string(c));
	}
	free(line);
	fclose(mi);
	return n;
}

int ws_idle_sweep(const char *root, double idle_s, json_t *gone, struct err *err)
{
	return idle_s > 0 ? sweep(root, idle_s, gone, err) : 0;
}

int ws_unmount_unused(const char *root, struct err *err)
{
	return sweep(root, -1, NULL, err);
}

int ws_umount_unheld(const struct ws *ws, struct err *err)
{
	int fd = lock_use(ws->dir, LOCK_EX | LOCK_NB, err), rc;

	if (fd == -EWOULDBLOCK)
		return 0;
	if (fd < 0)
		return -1;
	rc = umount_both(ws, err);
	close(fd);
	return rc;
}
