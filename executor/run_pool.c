/* The pool of parked runs (run_pool.h): one thread parks and retires, runs
 * take. A jail's pid 1 asks for SIGKILL when the thread that made it ends,
 * so jails are made on this thread, which lives as long as the pool. */
#define _GNU_SOURCE
#include "run_pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"
#include "../common/id.h"

#define POOL_DEFAULT_MAX 8
#define POOL_DEFAULT_IDLE_S 10.0
/* A customer's runs in flight hold back its next jail this long at most:
 * made meanwhile, it would take CPU from the run being answered. */
#define POOL_REFILL_WAIT_MS 1000.0

struct parked {
	struct run *r; /* NULL: a free slot */
	char customer[ID_MAX + 1];
	enum run_lang lang;
	unsigned gen; /* run_pool_retire's count when it was parked */
	double at;    /* ms */
};

/* A customer and language with a run lately, that wants a jail parked. */
struct want {
	char customer[ID_MAX + 1]; /* "": a free slot */
	enum run_lang lang;
	double at;     /* ms, its last run */
	unsigned busy; /* its runs in flight (run_pool_take to run_pool_done) */
};

struct run_pool {
	struct run_pool_opts o;
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stopping;
	unsigned gen;
	bool told;	     /* a failure to park was reported */
	struct want parking; /* whom the thread is parking for, while it does */
	bool is_parking;
	struct parked *parked; /* o.max */
	struct want *wants;    /* o.max */
};

static bool same(const char *customer, enum run_lang lang, const char *c2, enum run_lang l2)
{
	return lang == l2 && !strcmp(customer, c2);
}

static unsigned count_parked(const struct run_pool *p, const struct want *w, unsigned *all)
{
	unsigned n = 0, i;

	*all = 0;
	for (i = 0; i < p->o.max; i++) {
		if (!p->parked[i].r)
			continue;
		++*all;
		if (w && same(w->customer, w->lang, p->parked[i].customer, p->parked[i].lang))
			n++;
	}
	return n;
}

/* Under the lock: a parked run retired (stale, unused too long, or the
 * pool stopping), out of its slot, or NULL. @next: when the next one is due. */
static struct run *take_retired(struct run_pool *p, double now, double *next)
{
	struct run *r;
	double due;
	unsigned i;

	for (i = 0; i < p->o.max; i++) {
		if (!p->parked[i].r)
			continue;
		due = p->parked[i].at + p->o.idle_s * 1e3;
		if (p->stopping || p->parked[i].gen != p->gen || due <= now) {
			r = p->parked[i].r;
			p->parked[i].r = NULL;
			return r;
		}
		if (due < *next)
			*next = due;
	}
	return NULL;
}

/* Under the lock: a want that lacks a jail, copied into @out; false when
 * none (or no room). Wants without a run for idle_s are dropped. */
static bool want_due(struct run_pool *p, double now, double *next, struct want *out)
{
	unsigned i, all;
	bool found = false;
	double due;

	for (i = 0; i < p->o.max; i++) {
		struct want *w = &p->wants[i];

		if (!w->customer[0])
			continue;
		due = w->at + p->o.idle_s * 1e3;
		if (due <= now) {
			w->customer[0] = '\0';
			continue;
		}
		if (due < *next)
			*next = due;
		if (w->busy && now < w->at + POOL_REFILL_WAIT_MS) {
			if (w->at + POOL_REFILL_WAIT_MS < *next)
				*next = w->at + POOL_REFILL_WAIT_MS;
			continue;
		}
		if (!found && count_parked(p, w, &all) < p->o.per_customer && all < p->o.max) {
			*out = *w;
			found = true;
		}
	}
	return found;
}

/* Park one run for @w, on this thread, unlocked. */
static struct run *park(struct run_pool *p, const struct want *w, struct err *err)
{
	struct run_opts o = {
	    .root = p->o.root,
	    .cfg = p->o.cfg,
	    .hub = p->o.hub,
	    .customer = w->customer,
	    .lang = w->lang,
	    .memory_mb = p->o.memory_mb,
	    .capture = true,
	    .stdin_fd = -1,
	    .cgroup_parent = p->o.cgroup_parent,
	    .policy = p->o.policy,
	};
	struct run *r = run_new(&o, err);

	if (r && run_park(r, err) < 0) {
		run_unpark(r);
		r = NULL;
	}
	return r;
}

/* Under the lock: keep @r (parked for @w in generation @gen) in a free slot;
 * false when it is stale or there is no room. */
static bool keep(struct run_pool *p, struct run *r, const struct want *w, unsigned gen)
{
	unsigned i;

	if (p->stopping || gen != p->gen)
		return false;
	for (i = 0; i < p->o.max; i++)
		if (!p->parked[i].r) {
			p->parked[i] = (struct parked){r, "", w->lang, gen, clock_now_ms()};
			memcpy(p->parked[i].customer, w->customer, sizeof(w->customer));
			return true;
		}
	return false;
}

/* Under the lock: the park in progress is over, kept or freed. */
static void parked_done(struct run_pool *p)
{
	p->is_parking = false;
	pthread_cond_broadcast(&p->wake);
}

static void *pool_main(void *arg)
{
	struct run_pool *p = arg;
	struct err err = {0};
	struct timespec ts;
	struct want w;
	struct run *r;
	double now, next;
	unsigned gen, i;
	long ms;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		now = clock_now_ms();
		next = now + 1e3;
		if ((r = take_retired(p, now, &next))) {
			pthread_mutex_unlock(&p->lock);
			run_unpark(r);
			pthread_mutex_lock(&p->lock);
			continue;
		}
		if (p->stopping)
			break;
		if (want_due(p, now, &next, &w)) {
			gen = p->gen;
			p->parking = w;
			p->is_parking = true;
			pthread_mutex_unlock(&p->lock);
			r = park(p, &w, &err);
			pthread_mutex_lock(&p->lock);
			if (r && keep(p, r, &w, gen)) {
				parked_done(p);
				continue;
			}
			if (!r)
				for (i = 0; i < p->o.max; i++) /* until its next run */
					if (same(w.customer, w.lang, p->wants[i].customer,
						 p->wants[i].lang))
						p->wants[i].customer[0] = '\0';
			if (!r && !p->told) {
				p->told = true;
				fprintf(stderr, "mcpfs: run pool: %s (runs make their own jails)\n",
					err.text);
			}
			pthread_mutex_unlock(&p->lock);
			run_unpark(r);
			pthread_mutex_lock(&p->lock);
			parked_done(p);
			continue;
		}
		ms = next > now + 1 ? (long)(next - now) : 1;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += ms / 1000;
		ts.tv_nsec += ms % 1000 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &ts);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct run_pool *run_pool_new(const struct run_pool_opts *o, struct err *err)
{
	struct run_pool *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;

	if (!p) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	p->o = *o;
	if (!p->o.per_customer)
		p->o.per_customer = 1;
	if (!p->o.max)
		p->o.max = POOL_DEFAULT_MAX;
	if (!(p->o.idle_s > 0))
		p->o.idle_s = POOL_DEFAULT_IDLE_S;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	p->parked = calloc(p->o.max, sizeof(*p->parked));
	p->wants = calloc(p->o.max, sizeof(*p->wants));
	if (!p->parked || !p->wants) {
		err_set(err, EXIT_FAILED, "out of memory");
		run_pool_free(p);
		return NULL;
	}
	if ((errno = pthread_create(&p->thread, NULL, pool_main, p))) {
		err_set(err, EXIT_FAILED, "run pool: pthread_create: %s", strerror(errno));
		run_pool_free(p);
		return NULL;
	}
	p->running = true;
	return p;
}

void run_pool_free(struct run_pool *p)
{
	if (!p)
		return;
	if (p->running) {
		pthread_mutex_lock(&p->lock);
		p->stopping = true;
		pthread_cond_broadcast(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL); /* it retires every parked run first */
	}
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p->parked);
	free(p->wants);
	free(p);
}

void run_pool_retire(struct run_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->gen++;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
}

void run_pool_retire_customer(struct run_pool *p, const char *customer)
{
	struct run *gone[64];
	size_t n = 0, i;

	pthread_mutex_lock(&p->lock);
	/* A jail being parked for it is dropped (keep() finds the count moved
	 * on: the other customers' are retired too, and made again), and waited
	 * for: it holds the mount too. */
	p->gen++;
	for (i = 0; i < p->o.max; i++) {
		if (p->wants[i].customer[0] && !strcmp(p->wants[i].customer, customer))
			p->wants[i].customer[0] = '\0';
		if (p->parked[i].r && !strcmp(p->parked[i].customer, customer) &&
		    n < sizeof(gone) / sizeof(gone[0])) {
			gone[n++] = p->parked[i].r;
			p->parked[i].r = NULL;
		}
	}
	while (p->is_parking && !strcmp(p->parking.customer, customer))
		pthread_cond_wait(&p->wake, &p->lock);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < n; i++)
		run_unpark(gone[i]);
}

/* Under the lock: note @customer as active, in a free slot or the one
 * noted longest ago. */
static void want_note(struct run_pool *p, const char *customer, enum run_lang lang, double now)
{
	struct want *slot = NULL, *w;
	unsigned i;

	for (i = 0; i < p->o.max; i++) {
		w = &p->wants[i];
		if (w->customer[0] && same(customer, lang, w->customer, w->lang)) {
			w->at = now;
			w->busy++;
			return;
		}
		if (!slot || (slot->customer[0] && (!w->customer[0] || w->at < slot->at)))
			slot = w;
	}
	if (!slot)
		return; /* o.max is at least 1 */
	snprintf(slot->customer, sizeof(slot->customer), "%s", customer);
	slot->lang = lang;
	slot->at = now;
	slot->busy = 1;
}

struct run *run_pool_take(struct run_pool *p, const struct run_opts *o, const char *tree)
{
	const char *customer = o->customer ? o->customer : "default";
	double now = clock_now_ms();
	struct run *r = NULL;
	unsigned i;

	/* a run unlike those the pool parks makes its own */
	if (o->memory_mb != p->o.memory_mb || strlen(customer) > ID_MAX ||
	    (o->cgroup_parent ? !p->o.cgroup_parent || strcmp(o->cgroup_parent, p->o.cgroup_parent)
			      : p->o.cgroup_parent != NULL))
		return NULL;
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->o.max && !r; i++) {
		struct parked *k = &p->parked[i];

		if (k->r && k->gen == p->gen && same(customer, o->lang, k->customer, k->lang) &&
		    !strcmp(run_parked_tree(k->r), tree)) {
			r = k->r;
			k->r = NULL;
		}
	}
	want_note(p, customer, o->lang, now);
	pthread_mutex_unlock(&p->lock);
	return r;
}

void run_pool_done(struct run_pool *p, const struct run_opts *o)
{
	const char *customer = o->customer ? o->customer : "default";
	unsigned i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->o.max; i++) {
		struct want *w = &p->wants[i];

		if (w->customer[0] && w->busy && same(customer, o->lang, w->customer, w->lang)) {
			w->busy--;
			break;
		}
	}
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
}
