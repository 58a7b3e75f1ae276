#include "sched.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/cancel.h"
#include "../workspaces/workspace.h"

/* A customer with runs going or waiting. */
struct load {
	char customer[ID_MAX + 1];
	size_t running, waiting;
	uint64_t granted; /* sched.grants when it last got a slot; 0: never */
	struct load *next;
};

struct waiter {
	struct load *load; /* its customer's */
	bool granted;
	pthread_cond_t cond;
	struct waiter *next;
};

struct sched {
	unsigned max_running, max_queued;
	pthread_mutex_t lock; /* everything below */
	size_t running, queued;
	uint64_t grants;
	bool closed;
	struct waiter *waiters; /* in arrival order */
	struct load *loads;	/* customers with runs going */
};

struct sched *sched_new(unsigned max_running, unsigned max_queued)
{
	struct sched *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->max_running = max_running ? max_running : 1;
	s->max_queued = max_queued;
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

void sched_free(struct sched *s)
{
	struct load *l;

	if (!s)
		return;
	while ((l = s->loads)) {
		s->loads = l->next;
		free(l);
	}
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static struct load *load_of(struct sched *s, const char *customer, bool create)
{
	struct load *l;

	for (l = s->loads; l; l = l->next)
		if (!strcmp(l->customer, customer))
			return l;
	if (!create || !(l = calloc(1, sizeof(*l))))
		return NULL;
	snprintf(l->customer, sizeof(l->customer), "%s", customer);
	l->next = s->loads;
	s->loads = l;
	return l;
}

/* Drop @l once it has nothing going or waiting. */
static void load_put(struct sched *s, struct load *l)
{
	struct load **pp;

	if (l->running || l->waiting)
		return;
	for (pp = &s->loads; *pp; pp = &(*pp)->next)
		if (*pp == l) {
			*pp = l->next;
			free(l);
			return;
		}
}

/* Take a slot for @l's customer. */
static void take(struct sched *s, struct load *l)
{
	l->running++;
	l->granted = ++s->grants;
	s->running++;
}

/* Does @a's customer come before @b's: fewer runs going, then the one
 * served longest ago (round robin among equals)? */
static bool before(const struct load *a, const struct load *b)
{
	return a->running != b->running ? a->running < b->running : a->granted < b->granted;
}

/* Hand free slots to waiters. Under the lock. */
static void dispatch(struct sched *s)
{
	struct waiter *w, *best;

	while (s->running < s->max_running) {
		best = NULL;
		for (w = s->waiters; w; w = w->next)
			if (!w->granted && (!best || before(w->load, best->load)))
				best = w;
		if (!best)
			return;
		best->load->waiting--;
		take(s, best->load);
		best->granted = true;
		pthread_cond_signal(&best->cond);
	}
}

static void unlink_waiter(struct sched *s, struct waiter *me)
{
	struct waiter **pp;

	for (pp = &s->waiters; *pp; pp = &(*pp)->next)
		if (*pp == me) {
			*pp = me->next;
			break;
		}
	s->queued--;
}

int sched_acquire(struct sched *s, const char *customer, struct cancel *cancel)
{
	struct waiter me = {0}, **tail;
	struct cancel_wait cw = {.lock = &s->lock, .cond = &me.cond};
	bool watching;
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (s->closed) {
		pthread_mutex_unlock(&s->lock);
		return -ESHUTDOWN;
	}
	me.load = load_of(s, customer, true);
	if (!me.load) {
		pthread_mutex_unlock(&s->lock);
		return -ENOMEM;
	}
	if (!s->waiters && s->running < s->max_running) {
		take(s, me.load);
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	if (s->queued >= s->max_queued) {
		load_put(s, me.load);
		pthread_mutex_unlock(&s->lock);
		return -EBUSY;
	}
	pthread_cond_init(&me.cond, NULL);
	for (tail = &s->waiters; *tail; tail = &(*tail)->next)
		;
	*tail = &me;
	s->queued++;
	me.load->waiting++;
	dispatch(s); /* a slot may be free while the waiters ahead are all granted */
	pthread_mutex_unlock(&s->lock);
	watching = cancel && cancel_watch(cancel, &cw);
	pthread_mutex_lock(&s->lock);
	while (!me.granted && !s->closed && !(cancel && cancel_fired(cancel)))
		pthread_cond_wait(&me.cond, &s->lock);
	if (!me.granted) {
		rc = s->closed ? -ESHUTDOWN : -ECANCELED;
		me.load->waiting--;
		load_put(s, me.load);
	}
	unlink_waiter(s, &me);
	pthread_mutex_unlock(&s->lock);
	if (watching)
		cancel_unwatch(cancel, &cw);
	pthread_cond_destroy(&me.cond);
	return rc;
}

void sched_release(struct sched *s, const char *customer)
{
	struct load *l;

	pthread_mutex_lock(&s->lock);
	l = load_of(s, customer, false);
	if (l) {
		l->running--;
		load_put(s, l);
	}
	s->running--;
	dispatch(s);
	pthread_mutex_unlock(&s->lock);
}

void sched_close(struct sched *s)
{
	struct waiter *w;

	pthread_mutex_lock(&s->lock);
	s->closed = true;
	for (w = s->waiters; w; w = w->next)
		pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&s->lock);
}

void sched_stats(struct sched *s, size_t *running, size_t *queued)
{
	pthread_mutex_lock(&s->lock);
	*running = s->running;
	*queued = s->queued;
	pthread_mutex_unlock(&s->lock);
}

unsigned sched_max_running(const struct sched *s)
{
	return s->max_running;
}

unsigned sched_max_queued(const struct sched *s)
{
	return s->max_queued;
}
