/* The hub's extension points: call hooks around every tools/call and
 * catalog listeners. Kept apart from the hub's server tables so that the
 * chain a call passes is one small, testable thing. Thread-safe: hooks and
 * listeners may come and go while calls run; removal waits until no call or
 * notification still uses the one removed, so its ctx can be freed after. */
#ifndef MCPFS_SERVERS_HUB_HOOKS_H
#define MCPFS_SERVERS_HUB_HOOKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/err.h"

struct hub_hook;
struct hub_listener;
struct hub_call;

/* The most hooks one hub holds: a call snapshots the chain into a fixed
 * array, so a call costs no allocation. */
#define HUB_MAX_HOOKS 16

struct hub_ext;

/* A call's pass through the chain, on the caller's stack. */
struct hub_chain {
	struct hub_ext *ext;
	struct hook_reg *regs[HUB_MAX_HOOKS]; /* held: removal waits for them */
	size_t n;			      /* hooks in the snapshot */
	size_t ran;			      /* befores that ran: their afters run */
	bool ended;			      /* the afters ran (hub_chain_end) */
};

struct hub_ext *hub_ext_new(void);
/* Accepts NULL. Every hook and listener must be gone (no call in flight). */
void hub_ext_free(struct hub_ext *x);

int hub_ext_hook_add(struct hub_ext *x, const struct hub_hook *hook);
void hub_ext_hook_remove(struct hub_ext *x, int handle);
int hub_ext_listen(struct hub_ext *x, const struct hub_listener *l);
void hub_ext_unlisten(struct hub_ext *x, int handle);

/* Tell every listener that @server's catalog is now @generation. */
void hub_ext_notify(struct hub_ext *x, const char *server, uint64_t generation);

/* Snapshot the chain (@ch need not be initialised) and run the befores in
 * order on *@args (a reference the caller owns; a hook may replace it).
 * Returns 0, or -1 with @err when a hook refused: the call must not be made,
 * and hub_chain_end must still run (the afters of the hooks that ran see the
 * refusal). */
int hub_chain_begin(struct hub_ext *x, struct hub_chain *ch, const struct hub_call *call,
		    json_t **args, struct err *err);

/* True when the snapshot has no hook: the call may skip the wrappers. */
static inline bool hub_chain_empty(const struct hub_chain *ch)
{
	return ch->n == 0;
}

/* Run the afters (once; a second call only releases nothing) on @result
 * (stolen; NULL when the call failed with @err) and release the snapshot.
 * Returns the result to hand on (new), or NULL with @err. */
json_t *hub_chain_end(struct hub_chain *ch, const struct hub_call *call, json_t *result,
		      struct err *err);

#endif
