/* A cancel switch: one owner fires it once, and every thread waiting on a
 * condition variable on its behalf wakes and gives up. The bridge holds one
 * for all the calls a run makes: when the run's code is gone, nobody reads
 * their results, so they end at once instead of at their timeouts.
 *
 * A waiter registers its own (lock, cond) pair with cancel_watch before it
 * waits and tests cancel_fired under its lock in its wait loop; cancel_fire
 * takes each registered lock to broadcast, so a wake-up is never lost.
 * Lock order: the switch's lock, then a waiter's. cancel_watch and
 * cancel_unwatch must be called without the waiter's lock held. */
#ifndef MCPFS_COMMON_CANCEL_H
#define MCPFS_COMMON_CANCEL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct cancel_wait {
	pthread_mutex_t *lock; /* borrowed: the waiter's */
	pthread_cond_t *cond;  /* borrowed: broadcast on cancel_fire */
	struct cancel_wait *next;
};

struct cancel {
	pthread_mutex_t lock;	   /* waits */
	atomic_bool fired;	   /* set once, never cleared */
	struct cancel_wait *waits; /* protected by lock */
};

void cancel_init(struct cancel *c);
void cancel_destroy(struct cancel *c); /* no waiter may be registered */

/* Fire the switch: cancel_fired is true from now on, and every registered
 * waiter's cond is broadcast under its lock. Idempotent. */
void cancel_fire(struct cancel *c);

bool cancel_fired(struct cancel *c);

/* Register @w (its lock and cond set by the caller) until cancel_unwatch.
 * Returns false, registering nothing, when the switch has already fired. */
bool cancel_watch(struct cancel *c, struct cancel_wait *w);

void cancel_unwatch(struct cancel *c, struct cancel_wait *w);

#endif
