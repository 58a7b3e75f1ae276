/* rlimits: CPU seconds, file size, open files, processes, data. They bound
 * one process each; the cgroup bounds the whole run. Without one (rootless),
 * RLIMIT_NPROC stands in for pids.max (jail_limits_in_force). */
#include <sys/resource.h>

#include "jail_i.h"

#define MiB (1024ul * 1024ul)

int jail_rlimit_setup_child(struct jail *j, char *why, size_t n)
{
	const struct jail_limits *l = &j->in_force;
	const rlim_t cpu = l->cpu_s > 0 ? (rlim_t)l->cpu_s + 1 : RLIM_INFINITY;
	const struct {
		int resource;
		const char *name;
		rlim_t soft, hard;
	} set[] = {
	    /* SIGXCPU at the soft limit, SIGKILL a second later */
	    {RLIMIT_CPU, "RLIMIT_CPU", cpu, cpu == RLIM_INFINITY ? cpu : cpu + 1},
	    {RLIMIT_FSIZE, "RLIMIT_FSIZE", l->fsize_mb * MiB, l->fsize_mb * MiB},
	    {RLIMIT_NOFILE, "RLIMIT_NOFILE", l->nofile, l->nofile},
	    {RLIMIT_NPROC, "RLIMIT_NPROC", l->nproc, l->nproc},
	    {RLIMIT_DATA, "RLIMIT_DATA", l->data_mb * MiB, l->data_mb * MiB},
	    {RLIMIT_CORE, "RLIMIT_CORE", 0, 0},
	    {RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", 64 * 1024, 64 * 1024},
	};
	struct rlimit r;
	size_t i;

	for (i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		r.rlim_cur = set[i].soft;
		r.rlim_max = set[i].hard;
		if (setrlimit(set[i].resource, &r) < 0)
			return jail_why(why, n, "setrlimit(%s, %lu)", set[i].name,
					(unsigned long)set[i].soft);
	}
	return 0;
}
