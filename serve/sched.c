#include "sched.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/cancel.h"
#include "../workspaces/workspace.h"

struct load {
	char customer[WS_ID_MAX + 1];
	size_t running;
	struct load *next;
};

struct waiter {
	const char *customer; /* borrowed from the waiting caller */
	bool granted;
	pthread_cond_t cond;
	struct waiter *next;
};

struct sched {
	unsigned max_running, max_queued;
	pthread_mutex_t lock; /* everything below */
	size_t running, queued;
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

static size_t running_of(struct sched *s, const char *customer)
{
	struct load *l = load_of(s, customer, false);

	return l ? l->running : 0;
}

/* Take a slot for @customer; false when memory runs out. */
static bool take(struct sched *s, const char *customer)
{
	struct load *l = load_of(s, customer, true);

	if (!l)
		return false;
	l->running++;
	s->running++;
	return true;
}

/* Hand free slots to waiters, fewest running first. Under the lock. */
static void dispatch(struct sched *s)
{
	struct waiter *w, *best;

	while (s->running < s->max_running) {
		best = NULL;
		for (w = s->waiters; w; w = w->next) {
			if (w->granted)
				continue;
			if (!best || running_of(s, w->customer) < running_of(s, best->customer))
				best = w;
		}
		if (!best || !take(s, best->customer))
			return;
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
	struct waiter me = {.customer = customer}, **tail;
	struct cancel_wait cw = {.lock = &s->lock, .cond = &me.cond};
	bool watching;
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (s->closed) {
		pthread_mutex_unlock(&s->lock);
		return -ESHUTDOWN;
	}
	if (!s->waiters && s->running < s->max_running) {
		rc = take(s, customer) ? 0 : -ENOMEM;
		pthread_mutex_unlock(&s->lock);
		return rc;
	}
	if (s->queued >= s->max_queued) {
		pthread_mutex_unlock(&s->lock);
		return -EBUSY;
	}
	pthread_cond_init(&me.cond, NULL);
	for (tail = &s->waiters; *tail; tail = &(*tail)->next)
		;
	*tail = &me;
	s->queued++;
	dispatch(s); /* a slot may be free while the waiters ahead are all granted */
	pthread_mutex_unlock(&s->lock);
	watching = cancel && cancel_watch(cancel, &cw);
	pthread_mutex_lock(&s->lock);
	while (!me.granted && !s->closed && !(cancel && cancel_fired(cancel)))
		pthread_cond_wait(&me.cond, &s->lock);
	if (!me.granted)
		rc = s->closed ? -ESHUTDOWN : -ECANCELED;
	unlink_waiter(s, &me);
	pthread_mutex_unlock(&s->lock);
	if (watching)
		cancel_unwatch(cancel, &cw);
	pthread_cond_destroy(&me.cond);
	return rc;
}

void sched_release(struct sched *s, const char *customer)
{
	struct load *l, **pp;

	pthread_mutex_lock(&s->lock);
	for (pp = &s->loads; (l = *pp); pp = &l->next) {
		if (strcmp(l->customer, customer))
			continue;
		if (--l->running == 0) {
			*pp = l->next;
			free(l);
		}
		break;
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
