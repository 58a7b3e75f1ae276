#include "warm.h"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "../codegen/codegen.h"

struct warm_job {
	char path[PATH_MAX];
	pthread_t thread;
	bool started;
};

/* What is in the folder does not matter here: reading it is what makes the
 * tree start the server and take its catalog. */
static void *warm_main(void *arg)
{
	struct warm_job *j = arg;
	DIR *d = opendir(j->path);

	if (d) {
		while (readdir(d))
			;
		closedir(d);
	}
	return NULL;
}

void fusefs_warm(const char *mnt, const struct cg_root *root)
{
	size_t i, n = cg_root_nservers(root);
	struct warm_job *jobs = calloc(n + 1, sizeof(*jobs));

	if (!jobs)
		return; /* a first listing is a courtesy: the mount works without it */
	for (i = 0; i < n; i++) {
		snprintf(jobs[i].path, sizeof(jobs[i].path), "%s/servers/%s", mnt,
			 cg_root_server_ident(root, i));
		jobs[i].started = !pthread_create(&jobs[i].thread, NULL, warm_main, &jobs[i]);
		if (!jobs[i].started)
			warm_main(&jobs[i]);
	}
	for (i = 0; i < n; i++)
		if (jobs[i].started)
			pthread_join(jobs[i].thread, NULL);
	free(jobs);
}
