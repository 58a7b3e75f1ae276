/* The invalidation thread: turns folder swaps (a catalog changed, a server
 * failed or came back) into kernel cache notifications, from a thread of its
 * own because a notification sent from inside a request handler can deadlock
 * on the node the handler serves. It also runs the periodic server health
 * poll. */
#ifndef MCPFS_FUSEFS_INVAL_H
#define MCPFS_FUSEFS_INVAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lookup.h"
#include "snap.h"

/* The kernel side, behind pointers so tests can record the calls. Each
 * returns 0 or -errno (-ENOENT: the kernel holds nothing for it). */
struct fusefs_notify_ops {
	int (*inval_inode)(void *ctx, uint64_t ino);
	int (*inval_entry)(void *ctx, uint64_t parent, const char *name);
	void *ctx;
};

struct fusefs_inval_job;

struct fusefs_inval {
	struct fusefs_notify_ops ops;
	struct fusefs_tree *tree;       /* borrowed; set by fusefs_inval_start */
	double tick_s;                  /* health poll period */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct fusefs_inval_job *head;  /* lock: FIFO of swaps */
	struct fusefs_inval_job *tail;  /* lock */
	size_t queued;                  /* lock: jobs queued or running */
	bool stop;                      /* lock */
	bool started;
	pthread_t thread;
};

/* A queue with no thread yet (swaps can be queued before the session
 * exists). NULL on ENOMEM. */
struct fusefs_inval *fusefs_inval_new(double tick_s);
/* Start the thread over @tree (borrowed) sending through @ops (copied).
 * Returns 0 or -errno. */
int fusefs_inval_start(struct fusefs_inval *v, struct fusefs_tree *tree,
		       const struct fusefs_notify_ops *ops);
/* Stop and join the thread; swaps queued then or later are dropped. The
 * queue stays usable (as a sink) until fusefs_inval_free. */
void fusefs_inval_stop(struct fusefs_inval *v);
void fusefs_inval_free(struct fusefs_inval *v); /* stops first; accepts NULL */

/* A fusefs_swap_fn (ctx: the struct fusefs_inval): queue the swap; steals
 * both references. */
void fusefs_inval_push(void *ctx, size_t server, struct fusefs_snap *old,
		       struct fusefs_snap *new_snap);
/* Wait until every job queued so far is done or @timeout_s passes; returns
 * true when drained (tests). */
bool fusefs_inval_drain(struct fusefs_inval *v, double timeout_s);

#endif
