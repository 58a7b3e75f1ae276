/* Parked jails: a few per customer with a run lately, made ahead of the
 * call (run_park) on the pool's own thread, so that a run skips its jail's
 * set-up (cgroups, clone, mounts) and only hands over its program. Each is
 * used once, or retired: unused for idle_s, or at run_pool_retire (a
 * catalog changed: its tree is stale), or when the pool is freed. A parked
 * jail holds its customer's workspace (ws_hold) and its run lock, so the
 * idle sweep and run_sweep leave it alone. A jail that died parked is
 * found at its hand-off, and the run makes one of its own. */
#ifndef MCPFS_EXECUTOR_RUN_POOL_H
#define MCPFS_EXECUTOR_RUN_POOL_H

#include "../common/err.h"
#include "run.h"

struct run_pool_opts {
	/* borrowed, for the pool's life: as the runs' run_opts have them */
	const char *root;
	const struct config *cfg;
	struct hub *hub;
	const struct policy *policy;
	const char *cgroup_parent;
	unsigned memory_mb;
	unsigned per_customer; /* parked jails per customer and language; 0: 1 */
	unsigned max;	       /* parked jails in all; 0: 8 */
	double idle_s;	       /* retired unused after this long; <= 0: 10 s */
};

/* The pool and its thread. NULL with @err. */
struct run_pool *run_pool_new(const struct run_pool_opts *o, struct err *err);

/* Every parked jail killed and its holds released; then the thread ends.
 * Accepts NULL. */
void run_pool_free(struct run_pool *p);

/* Retire every jail parked so far (their tree is stale); new ones follow. */
void run_pool_retire(struct run_pool *p);

/* Retire @customer's parked jails now (its workspace is about to grow, and
 * none may hold its mount): returns once they are gone, and parks no other
 * for it until its next run. */
void run_pool_retire_customer(struct run_pool *p, const char *customer);

/* For run_start: a parked run of @o's customer and language over @tree,
 * now the caller's (run_adopt), or NULL; notes the customer as active
 * either way, so that one is parked for its next run once this one is
 * done (run_pool_done, from run_free) or a second has passed. */
struct run *run_pool_take(struct run_pool *p, const struct run_opts *o, const char *tree);
void run_pool_done(struct run_pool *p, const struct run_opts *o);

#endif
