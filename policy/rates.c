/* "callsPerMinute" windows, shared by every mcpfs process on the data root
 * (serve, each `exec` without a daemon, `call`): one file per customer and
 * pattern, <root>/policy-rates/<customer>/<fnv of the pattern>.win, holding
 * the wall-clock times of the last per_min calls, read and rewritten under
 * an flock. Kept in one process's memory, a customer starting many `exec`
 * processes had a window in each. */
#define _GNU_SOURCE
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
#include "../common/strmap.h"
#include "policy_i.h"

#define RATES_MAX 64 /* rates naming one tool, at most */

/* One window's file, locked: the times of its last per_min calls, oldest
 * first once full. */
struct win {
	int fd;
	unsigned per_min;
	double *when; /* per_min slots; 0: free */
	size_t next;  /* the oldest slot, overwritten next */
};

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Open and lock the window of @rate (creating it), and read it. A file of
 * another size (the config changed its count) starts empty. */
static int win_open(const char *dir, const struct policy_rate *rate, struct win *w, struct err *err)
{
	char path[4400];
	size_t len = 0;
	char *data = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/%016llx.win", dir,
		 (unsigned long long)strhash(rate->pattern, strlen(rate->pattern)));
	w->per_min = rate->per_min;
	w->next = 0;
	w->when = calloc(rate->per_min, sizeof(*w->when));
	w->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (!w->when || w->fd < 0 || flock(w->fd, LOCK_EX) < 0)
		return err_set(err, EXIT_FAILED, "rate limit: %s: %s", path,
			       w->when ? strerror(errno) : "out of memory");
	rc = fsx_read_fd(w->fd, (size_t)rate->per_min * sizeof(double) + 1, &data, &len);
	if (rc == 0 && len == (size_t)rate->per_min * sizeof(double)) {
		memcpy(w->when, data, len);
		/* the oldest is the smallest: where the next call goes */
		for (size_t i = 1; i < w->per_min; i++)
			if (w->when[i] < w->when[w->next])
				w->next = i;
	}
	free(data);
	return 0;
}

static void win_close(struct win *w)
{
	if (w->fd >= 0)
		close(w->fd); /* drops the lock */
	free(w->when);
}

int policy_rates_take(const char *root, const struct policy_rules *r, const char *server,
		      const char *tool, struct err *err)
{
	struct win ws[RATES_MAX];
	char dir[4200];
	double now = wall_s(), oldest;
	size_t i, n = 0;
	int rc = 0;

	if (!r->nrates)
		return 0;
	snprintf(dir, sizeof(dir), "%s/policy-rates", root);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return err_set(err, EXIT_FAILED, "rate limit: mkdir %s: %s", dir, strerror(errno));
	snprintf(dir, sizeof(dir), "%s/policy-rates/%s", root, r->customer);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return err_set(err, EXIT_FAILED, "rate limit: mkdir %s: %s", dir, strerror(errno));
	/* in the rules' order, the same in every process: no two wait on each other */
	for (i = 0; i < r->nrates && n < RATES_MAX; i++) {
		if (!policy_pattern_match(r->rates[i].pattern, server, tool))
			continue;
		if ((rc = win_open(dir, &r->rates[i], &ws[n++], err)) < 0)
			goto out;
		oldest = ws[n - 1].when[ws[n - 1].next];
		/* a time ahead of now (the clock was set back) counts as now */
		if (oldest > 0 && now - oldest < 60.0) {
			rc = err_set(
			    err, EXIT_FAILED,
			    "%s.%s refused: rate limit for customer %s: %u calls a minute to "
			    "\"%s\"; the next in %.0f s",
			    server, tool, r->customer, r->rates[i].per_min, r->rates[i].pattern,
			    60.0 - (now - oldest > 0 ? now - oldest : 0) + 0.5);
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		ws[i].when[ws[i].next] = now;
		if (pwrite(ws[i].fd, ws[i].when, ws[i].per_min * sizeof(double), 0) !=
		    (ssize_t)(ws[i].per_min * sizeof(double)))
			rc = err_set(err, EXIT_FAILED, "rate limit: writing its window: %s",
				     strerror(errno));
	}
out:
	for (i = 0; i < n; i++)
		win_close(&ws[i]);
	return rc;
}
