/* The engine the fronts serve: the config, the hub (servers stay warm), the
 * data root, the rendered tree (catalog.h), the run scheduler (sched.h),
 * the metrics, and every live MCP connection (for list_changed and
 * progress). One per `mcpfs serve` process; every transport is a caller. */
#ifndef MCPFS_SERVE_ENGINE_H
#define MCPFS_SERVE_ENGINE_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"

struct config;
struct hub;
struct mcp_conn;
struct serve_catalog;
struct sched;
struct metrics;
struct search_hub;
struct run_pool;

struct pii_engine;
struct policy;

struct serve_opts {
	const char *root;	   /* the data root; borrowed */
	const struct config *cfg;  /* borrowed */
	struct hub *hub;	   /* borrowed; outlives the engine */
	const char *cgroup_parent; /* $MCPFS_CGROUP or NULL */
	unsigned max_running;	   /* runs at once; 0: 8 per CPU */
	unsigned max_queued;	   /* runs waiting; 0: 64 */
	unsigned memory_mb;	   /* per run; 0: the executor's default */
	double max_timeout_s;	   /* the longest timeout_s a run may ask for; 0: 300 */
	double ws_idle_s;	   /* workspaces idle this long are unmounted; 0: never */
	size_t output_cap;	   /* stdout bytes in a result; 0: 20,000 */
	struct pii_engine *pii;	   /* borrowed: tokenizes runs' output; NULL: none */

	const struct policy *policy; /* borrowed: the customers' trees; NULL: all */
	unsigned pool;	    /* jails parked per customer with a run lately (run_pool.h); 0: none */
	double pool_idle_s; /* a parked jail unused this long is retired; 0: 10 s, or half
			       of ws_idle_s when that is shorter */
};

#define SERVE_POOL_MAX 8 /* --pool's ceiling */

struct serve_engine {
	struct serve_opts o;
	struct serve_catalog *catalog; /* owned */
	struct sched *sched;	       /* owned */
	struct metrics *metrics;       /* owned */
	struct search_hub *search;     /* owned: the tool index, current over the hub */
	pthread_mutex_t lock;	       /* conns, stopping */
	struct mcp_conn **conns;       /* live connections, borrowed; protected by lock */
	size_t nconns, capconns;
	pthread_cond_t tick; /* wakes the progress ticker */
	pthread_t ticker;
	bool ticking, stopping;
	pthread_mutex_t ws_lock;   /* serializes workspace provisioning */
	int listener;		   /* hub_listen handle, or 0 */
	int hook;		   /* hub_hook_add handle, or 0 */
	struct serve_sweep *sweep; /* owned: the idle sweep, or NULL */
	struct run_pool *pool;	   /* owned: parked jails, or NULL */
};

/* New engine over @o (copied; what it points to is borrowed). NULL with @err. */
struct serve_engine *serve_engine_new(const struct serve_opts *o, struct err *err);
/* Every connection must be gone. Accepts NULL. */
void serve_engine_free(struct serve_engine *e);

/* A connection joins or leaves the broadcast list. Returns 0 or -ENOMEM. */
int serve_engine_attach(struct serve_engine *e, struct mcp_conn *c);
void serve_engine_detach(struct serve_engine *e, struct mcp_conn *c);

/* A tool call of a run in MCP session @session (NULL: not ours) ended:
 * counted in the metrics and, for a run whose client asked for progress,
 * sent as progress. Never blocks on a client: safe in a call hook. */
void serve_engine_tool_called(struct serve_engine *e, const char *session, const char *server,
			      bool ok);

/* Send notifications/resources/list_changed to every initialized connection. */
void serve_engine_catalog_changed(struct serve_engine *e);

#endif
