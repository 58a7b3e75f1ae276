/* Run admission: at most max_running runs at once, at most max_queued
 * waiting, and a freed slot goes to the waiting customer with the fewest
 * runs going (among equals, the one served longest ago; a customer's own
 * runs in arrival order), so one customer's flood cannot starve the others. Thread-safe. */
#ifndef MCPFS_SERVE_SCHED_H
#define MCPFS_SERVE_SCHED_H

#include <stddef.h>

struct cancel;
struct sched;

/* NULL when memory runs out. */
struct sched *sched_new(unsigned max_running, unsigned max_queued);
void sched_free(struct sched *s); /* nobody may be waiting; accepts NULL */

/* Wait for a slot for @customer. Returns 0 (the slot is the caller's until
 * sched_release), -EBUSY at once when the queue is full, -ECANCELED when
 * @cancel (may be NULL) fired while waiting, -ESHUTDOWN after sched_close. */
int sched_acquire(struct sched *s, const char *customer, struct cancel *cancel);
void sched_release(struct sched *s, const char *customer);

/* Refuse new runs and wake every waiter with -ESHUTDOWN (drain). */
void sched_close(struct sched *s);

void sched_stats(struct sched *s, size_t *running, size_t *queued);
unsigned sched_max_running(const struct sched *s);
unsigned sched_max_queued(const struct sched *s);

#endif
