/* The invalidation thread: turns folder swaps (a catalog changed, a server
 * failed or came back) into kernel cache notifications, from a thread of its
 * own because a notification sent from inside a request handler can deadlock
 * on the node the handler serves. It also stores files a readdirplus just
 * rendered into the kernel's page cache (so reading them costs no request,
 * and our copy can go), and runs the periodic server health poll. One FIFO
 * for both keeps them ordered: a store queued before a swap is undone by the
 * swap's invalidation; one queued after it finds its snapshot outdated. */
#ifndef MCPFS_FUSEFS_INVAL_H
#define MCPFS_FUSEFS_INVAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lookup.h"
#include "snap.h"

/* Ceiling on jobs waiting. A swap past it is not queued: once the queue
 * ahead is through, everything the kernel holds below the server folders is
 * invalidated instead (what the swap's own job would have dropped is in
 * there), so no change is missed for long entry and attribute timeouts. */
#define FUSEFS_INVAL_QUEUE_MAX 4096

/* The kernel side, behind pointers so tests can record the calls. Each
 * returns 0 or -errno (-ENOENT: the kernel holds nothing for it). */
struct fusefs_notify_ops {
	int (*inval_inode)(void *ctx, uint64_t ino);
	int (*inval_entry)(void *ctx, uint64_t parent, const char *name);
	/* Put a whole file into the kernel's page cache. */
	int (*store)(void *ctx, uint64_t ino, const char *data, size_t len);
	void *ctx;
};

struct fusefs_inval_job;

struct fusefs_inval {
	struct fusefs_notify_ops ops;
	struct fusefs_tree *tree; /* borrowed; set by fusefs_inval_start */
	double tick_s;		  /* health poll period */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct fusefs_inval_job *head; /* lock: FIFO of swaps */
	struct fusefs_inval_job *tail; /* lock */
	size_t queued;		       /* lock: jobs queued or running, the flush too */
	bool lost;		       /* lock: a swap was not queued; flush when through */
	bool stop;		       /* lock */
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
/* A readdirplus sent entries [first, first + count) of @server's folder as
 * @snap shows it (on_listed of struct fusefs_tree_opts; steals @snap). */
void fusefs_inval_listed(void *ctx, size_t server, struct fusefs_snap *snap, size_t first,
			 size_t count);
/* Wait until every job queued so far is done or @timeout_s passes; returns
 * true when drained (tests). */
bool fusefs_inval_drain(struct fusefs_inval *v, double timeout_s);

#endif
