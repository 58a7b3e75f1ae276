/* The engine: what every front shares, the broadcast list of connections,
 * and the ticker that sends progress for runs whose client asked for it. */
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../executor/run_pool.h"
#include "../executor/run_tree.h"
#include "../search/search.h"
#include "../servers/hub.h"
#include "catalog.h"
#include "mcp_i.h"
#include "metrics.h"
#include "sched.h"
#include "sweep.h"

#define DEFAULT_MAX_QUEUED 64
#define DEFAULT_MAX_TIMEOUT_S 300.0
#define DEFAULT_OUTPUT_CAP 20000
#define HEARTBEAT_S 2.0 /* a run's progress is sent at least this often */
#define TICK_S 0.25
#define POOL_IDLE_S 10.0 /* a parked jail unused this long is retired */
#define POOL_CUSTOMERS 8 /* customers with jails parked at once, at most */

struct ticker_msg {
	struct mcp_conn *conn; /* a reference */
	struct mcp_call *call; /* alive until mcp_call_progress_sent: run_end waits */
	json_t *msg, *id;      /* new */
};

static void *ticker(void *arg);

static void on_catalog_changed(void *ctx, const char *server, uint64_t generation)
{
	struct serve_engine *e = ctx;

	(void)server;
	(void)generation;
	run_tree_expire(e->o.root); /* the next run writes its tree again */
	if (e->pool)
		run_pool_retire(e->pool); /* their trees are stale */
	serve_engine_catalog_changed(e);
}

/* Every tools/call of the hub, whoever made it: counted, and a run's calls
 * become its progress. Runs on a reader thread at times: only short locks. */
static int after_call(void *ctx, const struct hub_call *call, json_t **result, struct err *err)
{
	bool ok = *result && !json_is_true(json_object_get(*result, "isError"));

	(void)err;
	if (strcmp(call->method, "tools/call"))
		return 0; /* resources and prompts are not tool calls */
	serve_engine_tool_called(ctx, call->opts->session, call->server, ok);
	return 0;
}

/* The parked jails: a few per customer, by default retired well before the
 * idle sweep would unmount what they hold (a workspace idle for ws_idle_s);
 * the sweep leaves a workspace held by a parked jail alone however long. */
static struct run_pool *pool_new(const struct serve_opts *o, struct err *err)
{
	struct run_pool_opts po = {
	    .root = o->root,
	    .cfg = o->cfg,
	    .hub = o->hub,
	    .policy = o->policy,
	    .cgroup_parent = o->cgroup_parent,
	    .memory_mb = o->memory_mb,
	    .per_customer = o->pool,
	    .max = POOL_CUSTOMERS * o->pool,
	    .idle_s = POOL_IDLE_S,
	};

	if (o->pool_idle_s > 0)
		po.idle_s = o->pool_idle_s;
	else if (o->ws_idle_s > 0 && o->ws_idle_s / 2 < po.idle_s)
		po.idle_s = o->ws_idle_s / 2;
	return run_pool_new(&po, err);
}

struct serve_engine *serve_engine_new(const struct serve_opts *o, struct err *err)
{
	struct serve_engine *e = calloc(1, sizeof(*e));
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_condattr_t ca;

	if (!e) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	e->o = *o;
	/* Runs mostly wait on their servers (64 runs x 100 echo calls, 2 CPUs:
	 * 4 at once gave 0.75x the throughput of one shared bridge, 16 0.92x). */
	if (!e->o.max_running)
		e->o.max_running = (unsigned)(ncpu > 0 ? 8 * ncpu : 8);
	if (!e->o.max_queued)
		e->o.max_queued = DEFAULT_MAX_QUEUED;
	if (!(e->o.max_timeout_s > 0))
		e->o.max_timeout_s = DEFAULT_MAX_TIMEOUT_S;
	if (!e->o.output_cap)
		e->o.output_cap = DEFAULT_OUTPUT_CAP;
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->ws_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->tick, &ca);
	pthread_condattr_destroy(&ca);
	e->catalog = serve_catalog_new(o->hub);
	e->sched = sched_new(e->o.max_running, e->o.max_queued);
	e->metrics = metrics_new();
	e->search = search_hub_new(o->hub);
	if (!e->catalog || !e->sched || !e->metrics || !e->search) {
		err_set(err, EXIT_FAILED, "out of memory");
		serve_engine_free(e);
		return NULL;
	}
	if (pthread_create(&e->ticker, NULL, ticker, e)) {
		err_set(err, EXIT_FAILED, "pthread_create: %s", strerror(errno));
		serve_engine_free(e);
		return NULL;
	}
	e->ticking = true;
	if (e->o.ws_idle_s > 0 && !(e->sweep = serve_sweep_start(e->o.root, e->o.ws_idle_s, err))) {
		serve_engine_free(e);
		return NULL;
	}
	if (e->o.pool && !(e->pool = pool_new(&e->o, err))) {
		serve_engine_free(e);
		return NULL;
	}
	e->listener = hub_listen(o->hub, &(struct hub_listener){on_catalog_changed, e});
	e->hook = hub_hook_add(
	    o->hub,
	    &(struct hub_hook){.order = HUB_ORDER_ACCOUNTING, .after = after_call, .ctx = e});
	if (e->listener < 0 || e->hook < 0) {
		err_set(err, EXIT_FAILED, "hub: %s",
			strerror(-(e->listener < 0 ? e->listener : e->hook)));
		serve_engine_free(e);
		return NULL;
	}
	return e;
}

void serve_engine_free(struct serve_engine *e)
{
	if (!e)
		return;
	if (e->hook > 0)
		hub_hook_remove(e->o.hub, e->hook);
	if (e->listener > 0)
		hub_unlisten(e->o.hub, e->listener);
	if (e->ticking) {
		pthread_mutex_lock(&e->lock);
		e->stopping = true;
		pthread_cond_broadcast(&e->tick);
		pthread_mutex_unlock(&e->lock);
		pthread_join(e->ticker, NULL);
	}
	/* Parked jails hold workspaces, cgroups and run locks: gone first. */
	run_pool_free(e->pool);
	serve_sweep_stop(e->sweep);
	search_hub_free(e->search);
	serve_catalog_free(e->catalog);
	sched_free(e->sched);
	metrics_free(e->metrics);
	free(e->conns);
	pthread_cond_destroy(&e->tick);
	pthread_mutex_destroy(&e->ws_lock);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

int serve_engine_attach(struct serve_engine *e, struct mcp_conn *c)
{
	struct mcp_conn **grown;
	size_t cap;

	pthread_mutex_lock(&e->lock);
	if (e->nconns == e->capconns) {
		cap = e->capconns ? 2 * e->capconns : 16;
		grown = realloc(e->conns, cap * sizeof(*grown));
		if (!grown) {
			pthread_mutex_unlock(&e->lock);
			return -ENOMEM;
		}
		e->conns = grown;
		e->capconns = cap;
	}
	e->conns[e->nconns++] = c;
	pthread_mutex_unlock(&e->lock);
	metrics_session(e->metrics, 1);
	return 0;
}

void serve_engine_detach(struct serve_engine *e, struct mcp_conn *c)
{
	size_t i;

	pthread_mutex_lock(&e->lock);
	for (i = 0; i < e->nconns; i++)
		if (e->conns[i] == c) {
			e->conns[i] = e->conns[--e->nconns];
			break;
		}
	pthread_mutex_unlock(&e->lock);
	metrics_session(e->metrics, -1);
}

/* A reference to every live connection, for sending outside the lock. */
static struct mcp_conn **conns_snapshot(struct serve_engine *e, size_t *n)
{
	struct mcp_conn **all;
	size_t i;

	pthread_mutex_lock(&e->lock);
	all = calloc(e->nconns ? e->nconns : 1, sizeof(*all));
	*n = all ? e->nconns : 0;
	for (i = 0; i < *n; i++) {
		all[i] = e->conns[i];
		mcp_conn_ref(all[i]);
	}
	pthread_mutex_unlock(&e->lock);
	return all;
}

void serve_engine_catalog_changed(struct serve_engine *e)
{
	json_t *msg = json_pack("{s:s,s:s}", "jsonrpc", "2.0", "method",
				"notifications/resources/list_changed");
	struct mcp_conn **all;
	size_t i, n;

	all = conns_snapshot(e, &n);
	for (i = 0; i < n; i++) {
		if (mcp_conn_initialized(all[i]))
			mcp_send(all[i], msg, NULL);
		mcp_conn_unref(all[i]);
	}
	free(all);
	json_decref(msg);
}

void serve_engine_tool_called(struct serve_engine *e, const char *session, const char *server,
			      bool ok)
{
	struct mcp_call *call;
	size_t i;

	metrics_call(e->metrics, server, ok);
	if (!session)
		return;
	pthread_mutex_lock(&e->lock);
	for (i = 0; i < e->nconns; i++) {
		struct mcp_conn *c = e->conns[i];

		if (strcmp(c->session, session))
			continue;
		pthread_mutex_lock(&c->lock);
		for (call = c->calls; call; call = call->next)
			if (call->run)
				atomic_fetch_add(&call->tool_calls, 1);
		pthread_mutex_unlock(&c->lock);
	}
	pthread_cond_broadcast(&e->tick);
	pthread_mutex_unlock(&e->lock);
}

void mcp_call_tool_progress(void *ctx, const char *server, const char *tool, double progress,
			    double total, const char *message)
{
	struct mcp_call *call = ctx;
	char of[48] = "";

	if (total >= 0)
		snprintf(of, sizeof(of), "/%g", total);
	pthread_mutex_lock(&call->conn->lock);
	snprintf(call->tool_progress, sizeof(call->tool_progress), "%s.%s: %g%s%s%.160s", server,
		 tool, progress, of, message ? " " : "", message ? message : "");
	call->tool_progress_new = true;
	pthread_mutex_unlock(&call->conn->lock);
}

/* The progress due on @c's runs, appended to @out (grown as needed). Under
 * e->lock. */
static void progress_due(struct mcp_conn *c, double now, struct ticker_msg **out, size_t *n,
			 size_t *cap)
{
	struct mcp_call *call;
	struct ticker_msg *grown;
	unsigned calls;
	char text[384];
	bool note;

	pthread_mutex_lock(&c->lock);
	for (call = c->calls; call; call = call->next) {
		if (!call->progress || call->cancelled)
			continue;
		calls = atomic_load(&call->tool_calls);
		if (calls == call->tool_calls_sent && !call->tool_progress_new &&
		    now - call->sent_s < HEARTBEAT_S)
			continue;
		/* One notification per tool call, or a heartbeat when none came;
		 * the last with a server's progress on a call, if new. */
		do {
			if (*n == *cap) {
				grown = realloc(*out, (*cap ? 2 * *cap : 8) * sizeof(**out));
				if (!grown)
					goto out;
				*out = grown;
				*cap = *cap ? 2 * *cap : 8;
			}
			if (call->tool_calls_sent < calls)
				call->tool_calls_sent++;
			call->sent_s = now;
			call->seq++;
			note = call->tool_calls_sent == calls && call->tool_progress_new;
			snprintf(text, sizeof(text), "%u tool call%s, %.1f s%s%s",
				 call->tool_calls_sent, call->tool_calls_sent == 1 ? "" : "s",
				 now - call->started_s, note ? "; " : "",
				 note ? call->tool_progress : "");
			call->tool_progress_new = call->tool_progress_new && !note;
			(*out)[*n].msg = json_pack("{s:s,s:s,s:{s:O,s:I,s:s}}", "jsonrpc", "2.0",
						   "method", "notifications/progress", "params",
						   "progressToken", call->token, "progress",
						   (json_int_t)call->seq, "message", text);
			(*out)[*n].id = json_deep_copy(call->id);
			(*out)[*n].conn = c;
			(*out)[*n].call = call;
			call->progress_sending++;
			c->refs++;
			(*n)++;
		} while (call->tool_calls_sent < calls);
	}
out:
	pthread_mutex_unlock(&c->lock);
}

static void *ticker(void *arg)
{
	struct serve_engine *e = arg;
	struct ticker_msg *due = NULL;
	struct timespec ts;
	size_t i, n, cap = 0;

	pthread_mutex_lock(&e->lock);
	while (!e->stopping) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)(TICK_S * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&e->tick, &e->lock, &ts);
		n = 0;
		for (i = 0; i < e->nconns; i++)
			progress_due(e->conns[i], clock_now_s(), &due, &n, &cap);
		pthread_mutex_unlock(&e->lock);
		for (i = 0; i < n; i++) {
			mcp_send(due[i].conn, due[i].msg, due[i].id);
			mcp_call_progress_sent(due[i].call);
			json_decref(due[i].msg);
			json_decref(due[i].id);
			mcp_conn_unref(due[i].conn);
		}
		pthread_mutex_lock(&e->lock);
	}
	pthread_mutex_unlock(&e->lock);
	free(due);
	return NULL;
}
