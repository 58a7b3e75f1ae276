/* The daemon's idle sweep (sweep.h). */
#include "sweep.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../workspaces/idle.h"

struct serve_sweep {
	const char *root;
	double idle_s, every_s;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* on CLOCK_MONOTONIC */
	bool stopping;
	pthread_t thread;
};

static void *sweeper(void *arg)
{
	struct serve_sweep *s = arg;
	struct timespec at;
	struct err err;

	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += (time_t)s->every_s;
		at.tv_nsec += (long)((s->every_s - (double)(time_t)s->every_s) * 1e9);
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		while (!s->stopping && pthread_cond_timedwait(&s->wake, &s->lock, &at) != ETIMEDOUT)
			;
		if (s->stopping)
			break;
		pthread_mutex_unlock(&s->lock);
		err_clear(&err);
		if (ws_idle_sweep(s->root, s->idle_s, NULL, &err) < 0)
			fprintf(stderr, "mcpfs: serve: idle workspaces: %s\n", err.text);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct serve_sweep *serve_sweep_start(const char *root, double idle_s, struct err *err)
{
	struct serve_sweep *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;
	int rc;

	if (!s) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	s->root = root;
	s->idle_s = idle_s;
	s->every_s = idle_s / 10 > 60 ? 60 : idle_s / 10 < 0.1 ? 0.1 : idle_s / 10;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&s->thread, NULL, sweeper, s);
	if (rc) {
		err_set(err, EXIT_FAILED, "pthread_create: %s", strerror(rc));
		pthread_cond_destroy(&s->wake);
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	return s;
}

void serve_sweep_stop(struct serve_sweep *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
