/* One server's place in the mount: its current snapshot and the worker
 * thread that (re)loads the catalog off the request path. A handler that
 * needs a folder with no snapshot yet waits a bounded time, then shows a
 * "still starting" stand-in; every later swap is reported through
 * on_swap, which the invalidation thread turns into kernel notifications. */
#ifndef MCPFS_FUSEFS_SLOT_H
#define MCPFS_FUSEFS_SLOT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "snap.h"
#include "source.h"

/* A visible snapshot was replaced: @old and @new are references the callee
 * now owns. Called from the worker, with no slot lock held. */
typedef void (*fusefs_swap_fn)(void *ctx, size_t server, struct fusefs_snap *old,
			       struct fusefs_snap *new_snap);

struct fusefs_slot {
	/* set at init, then read-only */
	const struct cg_root *root; /* borrowed */
	size_t index;
	const char *name; /* as configured; borrowed from root */
	const struct fusefs_source *src;
	struct fusefs_budget *budget;
	double wait_s; /* how long a request waits for a first catalog */
	fusefs_swap_fn on_swap;
	void *swap_ctx;

	pthread_mutex_t lock;
	pthread_cond_t cond;	 /* cur changed, or want/stop set */
	struct fusefs_snap *cur; /* lock; NULL until first loaded or waited for */
	bool want;		 /* lock: a reload is asked for */
	bool busy;		 /* lock: the worker is loading */
	bool stop;		 /* lock */
	bool started;		 /* lock: the worker thread exists */
	pthread_t thread;
	double retry_at; /* lock: monotonic time of the next retry of a failure */
	double retry_s;	 /* lock: backoff, 1 s doubling to 30 s */
};

int fusefs_slot_init(struct fusefs_slot *s, const struct cg_root *root, size_t index,
		     const struct fusefs_source *src, struct fusefs_budget *budget, double wait_s,
		     fusefs_swap_fn on_swap, void *swap_ctx);
/* Stops and joins the worker (it may be inside src->tools until that returns). */
void fusefs_slot_stop(struct fusefs_slot *s);
void fusefs_slot_destroy(struct fusefs_slot *s); /* after fusefs_slot_stop */

/* The current snapshot (new reference), loading it first if there is none:
 * waits at most s->wait_s, then installs a "still starting" stand-in. NULL
 * only on ENOMEM. */
struct fusefs_snap *fusefs_slot_get(struct fusefs_slot *s);
/* The current snapshot (new reference) or NULL; never starts a load. */
struct fusefs_snap *fusefs_slot_peek(struct fusefs_slot *s);
/* Ask for a fresh catalog (the server said it changed). No-op before the
 * folder was first looked at: its first look loads the catalog anyway. */
void fusefs_slot_reload(struct fusefs_slot *s);
/* Periodic check against src->info: a catalog that moved on, a server that
 * failed, or a failed server whose retry is due get a reload. */
void fusefs_slot_poll(struct fusefs_slot *s, double now);

#endif
