#include "cgroupfs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

/* A deadline on the clock: a count of short sleeps ran out after 1 s and
 * left groups behind under two test suites at once. */
#define CGROUPFS_REMOVE_S 15

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

bool cgroupfs_is_v2(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
}

int cgroupfs_own(const char *controller, char *out, size_t n)
{
	char line[4096], *p, *q;
	FILE *f = fopen("/proc/self/cgroup", "re");
	int rc = -1;

	if (!f)
		return -1;
	while (rc < 0 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		p = strchr(line, ':');
		q = p ? strchr(p + 1, ':') : NULL;
		if (!q)
			continue;
		*q = '\0';
		if (!strcmp(p + 1, controller)) {
			snprintf(out, n, "%s", q + 1);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

void cgroupfs_kill(const char *dir)
{
	char path[4200];
	FILE *f;
	int pid;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fscanf(f, "%d", &pid) == 1)
		kill(pid, SIGKILL);
	fclose(f);
}

int cgroupfs_remove(const char *dir)
{
	const struct timespec pause = {0, 5 * 1000 * 1000};
	double deadline = clock_now_s() + CGROUPFS_REMOVE_S;

	while (rmdir(dir) < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno != EBUSY || clock_now_s() >= deadline)
			return -errno;
		cgroupfs_kill(dir);
		nanosleep(&pause, NULL);
	}
	return 0;
}
