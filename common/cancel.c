/* A cancel switch (see cancel.h). */
#include "cancel.h"

#include <stddef.h>

void cancel_init(struct cancel *c)
{
	pthread_mutex_init(&c->lock, NULL);
	atomic_init(&c->fired, false);
	c->waits = NULL;
}

void cancel_destroy(struct cancel *c)
{
	pthread_mutex_destroy(&c->lock);
}

void cancel_fire(struct cancel *c)
{
	struct cancel_wait *w;

	pthread_mutex_lock(&c->lock);
	atomic_store(&c->fired, true);
	/* Under the waiter's lock: a waiter that read "not fired" under it is
	 * already asleep on its cond by the time we get the lock. */
	for (w = c->waits; w; w = w->next) {
		pthread_mutex_lock(w->lock);
		pthread_cond_broadcast(w->cond);
		pthread_mutex_unlock(w->lock);
	}
	pthread_mutex_unlock(&c->lock);
}

bool cancel_fired(struct cancel *c)
{
	return atomic_load(&c->fired);
}

bool cancel_watch(struct cancel *c, struct cancel_wait *w)
{
	bool ok;

	pthread_mutex_lock(&c->lock);
	ok = !atomic_load(&c->fired);
	if (ok) {
		w->next = c->waits;
		c->waits = w;
	}
	pthread_mutex_unlock(&c->lock);
	return ok;
}

void cancel_unwatch(struct cancel *c, struct cancel_wait *w)
{
	struct cancel_wait **pp;

	pthread_mutex_lock(&c->lock);
	for (pp = &c->waits; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	pthread_mutex_unlock(&c->lock);
}
