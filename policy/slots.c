/* "maxRuns": a customer's runs at once, counted across every mcpfs process
 * on the data root (serve, exec, other daemons): a run holds an flock on
 * one of maxRuns slot files in the customer's folder while it lives. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy_i.h"

int policy_run_slot(const struct policy_rules *r, const char *customer_dir, int *fd,
		    struct err *err)
{
	char path[4200];
	unsigned i;
	int f;

	*fd = -1;
	if (!r || !r->max_runs)
		return 0;
	snprintf(path, sizeof(path), "%s/run-slots", customer_dir);
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return err_set(err, EXIT_FAILED, "mkdir %s: %s", path, strerror(errno));
	for (i = 0; i < r->max_runs; i++) {
		snprintf(path, sizeof(path), "%s/run-slots/%u.lock", customer_dir, i);
		f = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (f < 0)
			return err_set(err, EXIT_FAILED, "open %s: %s", path, strerror(errno));
		if (flock(f, LOCK_EX | LOCK_NB) == 0) {
			*fd = f;
			return 0;
		}
		close(f);
	}
	return err_set(err, EXIT_FAILED,
		       "customer %s has %u runs going, its policy's maxRuns; try again when one "
		       "ends",
		       r->customer, r->max_runs);
}
