/* The run scheduler (serve/sched.h): the limit, the queue's ceiling, a
 * cancelled waiter, drain, and fairness: a freed slot goes to the waiting
 * customer with the fewest runs going, however many the other has queued. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "../../common/cancel.h"
#include "../../serve/sched.h"
#include "check.h"

struct waiter {
	struct sched *s;
	const char *customer;
	struct cancel *cancel;
	int rc;
	int order; /* when it got its slot, 1 for the first */
};

static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;
static int next_order;

static void *wait_slot(void *arg)
{
	struct waiter *w = arg;

	w->rc = sched_acquire(w->s, w->customer, w->cancel);
	pthread_mutex_lock(&order_lock);
	w->order = ++next_order;
	pthread_mutex_unlock(&order_lock);
	return NULL;
}

/* Wait (at most 30 s) until @n runs are queued. */
static void until_queued(struct sched *s, size_t n)
{
	size_t running, queued;
	int i;

	for (i = 0; i < 30000; i++) {
		sched_stats(s, &running, &queued);
		if (queued == n)
			return;
		usleep(1000);
	}
}

static void test_fair(void)
{
	struct sched *s = sched_new(1, 8);
	struct waiter w[4] = {{s, "flood", NULL, 0, 0},
			      {s, "flood", NULL, 0, 0},
			      {s, "flood", NULL, 0, 0},
			      {s, "quiet", NULL, 0, 0}};
	pthread_t th[4];
	size_t running, queued;
	int i;

	CHECK(sched_acquire(s, "flood", NULL) == 0, "first slot at once");
	for (i = 0; i < 4; i++) {
		pthread_create(&th[i], NULL, wait_slot, &w[i]);
		until_queued(s, (size_t)i + 1);
	}
	sched_stats(s, &running, &queued);
	CHECK(running == 1 && queued == 4, "1 running, 4 queued: %zu %zu", running, queued);
	/* flood had the slot: the quiet customer, queued last, goes next */
	sched_release(s, "flood");
	pthread_join(th[3], NULL);
	CHECK(w[3].rc == 0 && w[3].order == 1, "quiet got the slot first (order %d)", w[3].order);
	sched_release(s, "quiet");
	for (i = 0; i < 3; i++) {
		usleep(1000);
		until_queued(s, (size_t)(2 - i));
		sched_release(s, "flood");
	}
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	CHECK(w[0].rc == 0 && w[1].rc == 0 && w[2].rc == 0, "every flood run ran");
	CHECK(w[0].order < w[1].order && w[1].order < w[2].order, "a customer's own in order");
	sched_stats(s, &running, &queued);
	CHECK(running == 0 && queued == 0, "empty at the end: %zu %zu", running, queued);
	sched_free(s);
}

static void test_full_cancel_close(void)
{
	struct sched *s = sched_new(1, 1);
	struct cancel c;
	struct waiter w = {s, "a", &c, 0, 0}, v = {s, "b", NULL, 0, 0};
	pthread_t th;

	cancel_init(&c);
	CHECK(sched_acquire(s, "a", NULL) == 0, "slot");
	pthread_create(&th, NULL, wait_slot, &w);
	until_queued(s, 1);
	CHECK(sched_acquire(s, "b", NULL) == -EBUSY, "a full queue refuses at once");
	cancel_fire(&c);
	pthread_join(th, NULL);
	CHECK(w.rc == -ECANCELED, "a cancelled waiter leaves: %d", w.rc);
	pthread_create(&th, NULL, wait_slot, &v);
	until_queued(s, 1);
	sched_close(s);
	pthread_join(th, NULL);
	CHECK(v.rc == -ESHUTDOWN, "close wakes waiters: %d", v.rc);
	CHECK(sched_acquire(s, "c", NULL) == -ESHUTDOWN, "closed: no new run");
	sched_release(s, "a");
	cancel_destroy(&c);
	sched_free(s);
}

int main(void)
{
	test_fair();
	test_full_cancel_close();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
