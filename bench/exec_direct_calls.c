/* The baseline of the tool-call overhead bench: N calls of one tool made by
 * the mcpfs client in-process (the hub, no bridge, no jail), after WARMUP
 * untimed ones. Prints the mean microseconds per call of the median of three
 * rounds. Usage: exec_direct_calls CONFIG ROOT SERVER TOOL ARGS_JSON N WARMUP */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../servers/config.h"
#include "../servers/hub.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct hub_opts o = {.cache_max_age_s = -1};
	struct config cfg;
	struct err e = {0};
	json_t *args, *res;
	struct hub *h;
	double t0, rounds[3];
	long i, n, warmup;
	int r;

	if (argc != 8) {
		fprintf(stderr, "usage: %s CONFIG ROOT SERVER TOOL ARGS_JSON N WARMUP\n", argv[0]);
		return 2;
	}
	if (config_load(&cfg, argv[1], &e) < 0) {
		fprintf(stderr, "%s\n", e.text);
		return 2;
	}
	o.state_dir = argv[2];
	h = hub_new(&cfg, &o);
	args = json_loads(argv[5], 0, NULL);
	n = atol(argv[6]);
	warmup = atol(argv[7]);
	/* The first call starts the server. The untimed ones let node's JIT
	 * settle, as in the jailed program: a fresh server answers its first
	 * thousands of calls several times slower. */
	for (i = 0; i <= warmup; i++) {
		res = hub_call(h, argv[3], argv[4], args, NULL, &e);
		if (!res) {
			fprintf(stderr, "%s\n", e.text);
			return 1;
		}
		json_decref(res);
	}
	/* Three rounds, the median, as the jailed program does. */
	for (r = 0; r < 3; r++) {
		t0 = now_us();
		for (i = 0; i < n; i++) {
			res = hub_call(h, argv[3], argv[4], args, NULL, &e);
			if (!res) {
				fprintf(stderr, "%s\n", e.text);
				return 1;
			}
			json_decref(res);
		}
		rounds[r] = (now_us() - t0) / (double)n;
	}
	qsort(rounds, 3, sizeof(rounds[0]), by_value);
	printf("%.1f\n", rounds[1]);
	json_decref(args);
	hub_free(h);
	config_free(&cfg);
	return 0;
}
