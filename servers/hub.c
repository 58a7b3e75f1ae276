/* Every configured server, started lazily. One hub lock guards the tables;
 * it is never held while talking to a server, starting one, or calling the
 * consumer back. A connection (struct conn) is refcounted so a call in flight
 * keeps its client while another thread replaces a dead one. */
#define _GNU_SOURCE
#include "hub.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"
#include "../common/fsx.h"
#include "../common/id.h"
#include "catalog_cache.h"
#include "catalog_check.h"
#include "hub_hooks.h"
#include "oauth.h"
#include "server_log.h"

#define HUB_DEFAULT_CUSTOMER "default"
#define HUB_DEFAULT_IDLE_S 300.0
#define HUB_DEFAULT_TIMEOUT_S 60.0
#define HUB_DEFAULT_CONNECT_S 30.0
/* Restart backoff: the first restart is immediate, then 1 s doubling to 30 s;
 * a connection that stayed up HUB_HEALTHY_S resets the count. */
#define HUB_BACKOFF_MAX_S 30.0
#define HUB_HEALTHY_S 30.0
/* How often the refresher thread looks for idle or dead instances. */
#define HUB_SWEEP_S 1.0
#define HUB_LOG_TAIL_LINES 8

struct instance;

struct conn {
	struct client *c;
	struct instance *inst;
	unsigned refs; /* protected by hub.lock */
	bool detached; /* protected by hub.lock: the last release frees it */
};

struct instance {
	struct hub_server *srv;
	char *customer;	      /* NULL for a shared server */
	struct conn *conn;    /* protected by hub.lock */
	enum hub_state state; /* protected by hub.lock */
	char why[512];	      /* protected by hub.lock */
	unsigned failures;    /* protected by hub.lock */
	double next_try;      /* protected by hub.lock: monotonic seconds */
	double started_at;    /* protected by hub.lock */
	double last_used;     /* protected by hub.lock */
	struct instance *next;
};

struct hub_server {
	struct hub *hub;
	const struct server_config *sc; /* borrowed from the config */
	char log_path[PATH_MAX];
	char cache_path[PATH_MAX];
	char hash[17];
	struct instance *instances; /* protected by hub.lock */
	struct catalog_text *tools; /* protected by hub.lock; a reference; NULL until known */
	json_t *notes;		    /* protected by hub.lock; new; catalog_check.h; may be NULL */
	uint64_t generation;	    /* protected by hub.lock */
	bool dirty;		    /* protected by hub.lock: list_changed seen */
	char list_why[512];	    /* protected by hub.lock: why the last tools/list failed */
};

struct hub {
	const struct config *cfg; /* borrowed */
	struct hub_opts opts;
	struct hub_ext *ext; /* call hooks and catalog listeners */
	char *state_dir;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* instance state changes; refresher wake-ups */
	struct hub_server *servers;
	size_t n;
	pthread_t refresher;
	bool refresher_started;
	bool stop;		    /* protected by lock */
	pthread_mutex_t cache_lock; /* one writer per cache file at a time */
};

static void cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *m, double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	pthread_cond_timedwait(cond, m, &ts);
}

static struct hub_server *find_server(struct hub *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->servers[i].sc->name, name))
			return &h->servers[i];
	return NULL;
}

static double backoff_s(unsigned failures)
{
	double d = 1;

	if (failures <= 1)
		return 0;
	while (--failures > 1 && d < HUB_BACKOFF_MAX_S)
		d *= 2;
	return d < HUB_BACKOFF_MAX_S ? d : HUB_BACKOFF_MAX_S;
}

/* Called with hub.lock held: a start failed or a connection died. */
static void record_failure(struct instance *inst, const char *why)
{
	double now = clock_now_s();

	if (inst->state == HUB_READY && now - inst->started_at >= HUB_HEALTHY_S)
		inst->failures = 0;
	inst->failures++;
	inst->next_try = now + backoff_s(inst->failures);
	inst->state = HUB_FAILED;
	snprintf(inst->why, sizeof(inst->why), "%s", why);
}

static void ev_closed(void *ctx, const char *why)
{
	struct conn *cn = ctx;
	struct hub *h = cn->inst->srv->hub;

	pthread_mutex_lock(&h->lock);
	if (cn->inst->conn == cn)
		record_failure(cn->inst, why);
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

static bool is_catalog_instance(const struct instance *inst)
{
	return !inst->customer || !strcmp(inst->customer, HUB_DEFAULT_CUSTOMER);
}

static void ev_list_changed(void *ctx)
{
	struct conn *cn = ctx;
	struct hub *h = cn->inst->srv->hub;

	pthread_mutex_lock(&h->lock);
	if (cn->inst->conn == cn && is_catalog_instance(cn->inst)) {
		cn->inst->srv->dirty = true;
		pthread_cond_broadcast(&h->cond);
	}
	pthread_mutex_unlock(&h->lock);
}

/* Called with hub.lock held. Returns the conn to free now (outside the lock),
 * or NULL when a call still holds it (its release frees it). */
static struct conn *detach_locked(struct instance *inst)
{
	struct conn *cn = inst->conn;

	inst->conn = NULL;
	if (!cn)
		return NULL;
	if (cn->refs) {
		cn->detached = true;
		return NULL;
	}
	return cn;
}

static void conn_free(struct conn *cn)
{
	if (!cn)
		return;
	client_free(cn->c);
	free(cn);
}

static void release(struct hub *h, struct conn *cn)
{
	bool last;

	pthread_mutex_lock(&h->lock);
	last = --cn->refs == 0 && cn->detached;
	cn->inst->last_used = clock_now_s();
	pthread_mutex_unlock(&h->lock);
	if (last)
		conn_free(cn);
}

/* Called with hub.lock held. */
static struct instance *instance_get(struct hub_server *srv, const char *customer)
{
	struct instance *inst;

	for (inst = srv->instances; inst; inst = inst->next)
		if ((!customer && !inst->customer) ||
		    (customer && inst->customer && !strcmp(customer, inst->customer)))
			return inst;
	inst = calloc(1, sizeof(*inst));
	if (!inst)
		return NULL;
	inst->srv = srv;
	inst->customer = customer ? strdup(customer) : NULL;
	if (customer && !inst->customer) {
		free(inst);
		return NULL;
	}
	inst->next = srv->instances;
	srv->instances = inst;
	return inst;
}

/* The instance's config: the shared one, or a copy with ${CUSTOMER},
 * ${WORKSPACE} and ${STATE} expanded (their folders created). New, or NULL
 * with @err. */
static struct server_config *instance_config(struct instance *inst, const char *workspace,
					     struct err *err)
{
	const struct server_config *sc = inst->srv->sc;
	char ws[PATH_MAX], state[PATH_MAX];
	const char *failed;
	struct server_config *out;
	int rc;

	if (!inst->customer)
		out = server_config_dup(sc);
	else {
		if (snprintf(state, sizeof(state), "%s/workspaces/%s/state",
			     inst->srv->hub->state_dir, inst->customer) >= (int)sizeof(state) ||
		    snprintf(ws, sizeof(ws), "%s/workspaces/%s/workspace",
			     inst->srv->hub->state_dir, inst->customer) >= (int)sizeof(ws)) {
			err_set(err, EXIT_USAGE, "server '%s': data root path too long", sc->name);
			return NULL;
		}
		if (workspace)
			snprintf(ws, sizeof(ws), "%s", workspace);
		failed = ws;
		rc = fsx_mkdirs(ws, 0750);
		if (!rc) {
			failed = state;
			rc = fsx_mkdirs(state, 0750);
		}
		if (rc) {
			err_set(err, EXIT_UNREACHABLE, "server '%s': mkdir(%s): %s", sc->name,
				failed, strerror(-rc));
			return NULL;
		}
		out = server_config_instantiate_state(sc, inst->customer, ws, state);
		if (out &&
		    (!(out->workspace_dir = strdup(ws)) || !(out->state_dir = strdup(state)) ||
		     !(out->customer = strdup(inst->customer)))) {
			server_config_free(out);
			out = NULL;
		}
	}
	if (out)
		out->launcher = inst->srv->hub->opts.launcher;
	if (!out)
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
	else if (oauth_instance_setup(out, inst->srv->hub->state_dir, inst->customer, err)) {
		server_config_free(out);
		out = NULL;
	}
	return out;
}

/* Start @inst (state STARTING, lock not held). @deadline caps the connect
 * and the first list (monotonic; 0: none). Returns a new conn or NULL. */
static struct conn *start(struct instance *inst, const char *workspace, double deadline,
			  struct err *err)
{
	struct client_events ev = {0};
	struct server_config *sc;
	struct conn *cn;
	double left;

	sc = instance_config(inst, workspace, err);
	if (!sc)
		return NULL;
	if (deadline > 0) {
		left = deadline - clock_now_s();
		if (left < 0.1)
			left = 0.1;
		if (!sc->connect_timeout_s || sc->connect_timeout_s > left)
			sc->connect_timeout_s = left;
		if (!sc->timeout_s || sc->timeout_s > left)
			sc->timeout_s = left;
	}
	cn = calloc(1, sizeof(*cn));
	if (!cn) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
		goto out_sc;
	}
	cn->inst = inst;
	ev.ctx = cn;
	ev.on_list_changed = ev_list_changed;
	ev.on_closed = ev_closed;
	cn->c = client_new(sc, inst->srv->log_path, &ev);
	if (!cn->c) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
		free(cn);
		cn = NULL;
		goto out_sc;
	}
	if (client_connect(cn->c, err) < 0) {
		conn_free(cn);
		cn = NULL;
	}
out_sc:
	server_config_free(sc);
	return cn;
}

/* A live connection to @srv's instance for @customer (NULL: shared), started
 * or restarted as needed; held until release(). @deadline as in start(); a
 * restart backoff is waited out only if it ends before the deadline. */
static struct conn *acquire(struct hub *h, struct hub_server *srv, const char *customer,
			    const char *workspace, double deadline, struct err *err)
{
	struct conn *cn = NULL, *dead;
	struct instance *inst;
	bool catalog_known;
	double wait;

	if (srv->sc->disabled) {
		err_set(err, EXIT_USAGE, "%s", srv->sc->disabled);
		return NULL;
	}
	pthread_mutex_lock(&h->lock);
	inst = instance_get(srv, customer);
	if (!inst) {
		pthread_mutex_unlock(&h->lock);
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", srv->sc->name);
		return NULL;
	}
	for (;;) {
		if (inst->conn && client_alive(inst->conn->c)) {
			cn = inst->conn;
			cn->refs++;
			inst->last_used = clock_now_s();
			break;
		}
		if (inst->state == HUB_STARTING) {
			/* Another caller's start (in a daemon, another client's)
			 * bounds it by its own deadline, not by ours. */
			if (deadline <= 0) {
				pthread_cond_wait(&h->cond, &h->lock);
				continue;
			}
			if (clock_now_s() >= deadline) {
				err_set(err, EXIT_UNREACHABLE,
					"server '%s': still starting (initialize) when the timeout "
					"came",
					srv->sc->name);
				break;
			}
			cond_wait_until(&h->cond, &h->lock, deadline);
			continue;
		}
		dead = detach_locked(inst);
		if (dead) {
			pthread_mutex_unlock(&h->lock);
			conn_free(dead);
			pthread_mutex_lock(&h->lock);
			continue;
		}
		wait = inst->next_try - clock_now_s();
		if (wait > 0) {
			/* Without a deadline (a catalog read) do not wait at all. */
			if (deadline <= 0 || clock_now_s() + wait > deadline) {
				err_set(err, EXIT_UNREACHABLE,
					"%s; next restart attempt in %.1f s (backoff)", inst->why,
					wait);
				break;
			}
			cond_wait_until(&h->cond, &h->lock, inst->next_try);
			continue;
		}
		inst->state = HUB_STARTING;
		pthread_mutex_unlock(&h->lock);
		cn = start(inst, workspace, deadline, err);
		pthread_mutex_lock(&h->lock);
		if (cn) {
			inst->conn = cn;
			inst->state = HUB_READY;
			inst->started_at = inst->last_used = clock_now_s();
			cn->refs++;
			/* A restarted server may list other tools than the catalog
			 * we hold (from the cache or an older run): look again. */
			catalog_known = srv->tools != NULL;
			if (catalog_known && is_catalog_instance(inst))
				srv->dirty = true;
		} else {
			record_failure(inst, err ? err->text : "start failed");
		}
		pthread_cond_broadcast(&h->cond);
		break;
	}
	pthread_mutex_unlock(&h->lock);
	return cn;
}

static const char *catalog_customer(const struct hub_server *srv)
{
	return srv->sc->scope == SCOPE_CUSTOMER ? HUB_DEFAULT_CUSTOMER : NULL;
}

static void log_line(struct hub_server *srv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One line in the server's log, from the hub (rare: not worth a held handle). */
static void log_line(struct hub_server *srv, const char *fmt, ...)
{
	struct server_log *l = server_log_open(srv->log_path);
	char line[ERR_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	server_log_printf(l, "%s", line);
	server_log_close(l);
}

/* Each tool catalog_check skipped, and each list or item of one it left
 * out, once per catalog, in the server's log. */
static void log_skipped(struct hub_server *srv, const json_t *notes)
{
	const json_t *s;
	size_t i;

	json_array_foreach(json_object_get(notes, "skipped"), i, s) log_line(
	    srv, "skipped tool '%.200s': %s", json_string_value(json_object_get(s, "name")),
	    json_string_value(json_object_get(s, "why")));
	json_array_foreach(json_object_get(notes, "unlisted"), i, s)
	    log_line(srv, "not listed: '%.200s': %s", json_string_value(json_object_get(s, "name")),
		     json_string_value(json_object_get(s, "why")));
}

/* Install @tools and @notes (both stolen) as @srv's catalog; bump the
 * generation when it differs, save the cache, and tell the consumer.
 * Returns 0, or -1 with @err when out of memory. */
static int set_catalog(struct hub *h, struct hub_server *srv, json_t *tools, json_t *notes,
		       struct err *err)
{
	struct catalog_text *text = catalog_text_new(tools);
	uint64_t gen;
	bool changed, notify;
	int rc;

	if (!text) {
		err_set(err, EXIT_FAILED, "%s: tool catalog: out of memory", srv->sc->name);
		json_decref(tools);
		json_decref(notes);
		return -1;
	}
	pthread_mutex_lock(&h->lock);
	changed = !srv->tools || !catalog_text_same(srv->tools, text) ||
		  !(srv->notes == notes || (srv->notes && notes && json_equal(srv->notes, notes)));
	notify = changed && srv->generation > 0;
	if (changed) {
		catalog_text_free(srv->tools);
		srv->tools = catalog_text_ref(text);
		json_decref(srv->notes);
		srv->notes = json_incref(notes);
		srv->generation++;
	}
	gen = srv->generation;
	pthread_mutex_unlock(&h->lock);

	pthread_mutex_lock(&h->cache_lock);
	rc = catalog_cache_save(srv->cache_path, srv->hash, gen, tools, notes);
	pthread_mutex_unlock(&h->cache_lock);
	if (rc < 0)
		log_line(srv, "writing the catalog cache %s: %s", srv->cache_path, strerror(-rc));
	if (changed)
		log_skipped(srv, notes);
	json_decref(tools);
	json_decref(notes);
	catalog_text_free(text);
	/* The listed tree (~4 KB a tool) is freed: give its pages back. */
	malloc_trim(0);
	if (notify)
		hub_ext_notify(h->ext, srv->sc->name, gen);
	return 0;
}

/* List @srv's tools live and install them. Returns 0 or -1 with @err. */
static int relist(struct hub *h, struct hub_server *srv, double deadline, struct err *err)
{
	struct conn *cn;
	json_t *tools, *notes;

	cn = acquire(h, srv, catalog_customer(srv), NULL, deadline, err);
	if (!cn)
		return -1;
	tools = catalog_list(cn->c, &notes, err);
	release(h, cn);
	pthread_mutex_lock(&h->lock);
	snprintf(srv->list_why, sizeof(srv->list_why), "%s",
		 tools ? ""
		 : err ? err->text
		       : "tools/list failed");
	pthread_mutex_unlock(&h->lock);
	if (!tools)
		return -1;
	return set_catalog(h, srv, tools, notes, err);
}

/* Called with hub.lock held: the instance that serves @srv's catalog died
 * (or failed to start) after we had one. */
static bool catalog_instance_failed_locked(const struct hub_server *srv)
{
	const char *cust = catalog_customer(srv);
	const struct instance *inst;

	for (inst = srv->instances; inst; inst = inst->next)
		if ((!cust && !inst->customer) ||
		    (cust && inst->customer && !strcmp(cust, inst->customer)))
			return inst->state == HUB_FAILED ||
			       (inst->state == HUB_READY && inst->conn &&
				!client_alive(inst->conn->c));
	return false;
}

/* The catalog (a reference): in memory, else the disk cache when fresh,
 * else live. A catalog whose server died is not served as if it were alive:
 * the server is restarted (within its backoff) and listed again, or the
 * error says why. */
static struct catalog_text *catalog(struct hub *h, struct hub_server *srv, double deadline,
				    uint64_t *gen, struct err *err)
{
	struct catalog_text *text;
	json_t *tools, *notes = NULL;
	uint64_t cached_gen = 0;
	bool dead;

	pthread_mutex_lock(&h->lock);
	dead = catalog_instance_failed_locked(srv);
	text = dead ? NULL : catalog_text_ref(srv->tools);
	if (gen)
		*gen = srv->generation;
	pthread_mutex_unlock(&h->lock);
	if (text)
		return text;
	tools = dead ? NULL
		     : catalog_cache_load(srv->cache_path, srv->hash, h->opts.cache_max_age_s,
					  &cached_gen, &notes);
	text = catalog_text_new(tools);
	json_decref(tools);
	if (text) {
		pthread_mutex_lock(&h->lock);
		if (!srv->tools) {
			srv->tools = catalog_text_ref(text);
			srv->notes = json_incref(notes);
			srv->generation = cached_gen;
		}
		json_decref(notes);
		catalog_text_free(text);
		text = catalog_text_ref(srv->tools);
		if (gen)
			*gen = srv->generation;
		pthread_mutex_unlock(&h->lock);
		return text;
	}
	json_decref(notes);
	if (relist(h, srv, deadline, err) < 0)
		return NULL;
	pthread_mutex_lock(&h->lock);
	text = catalog_text_ref(srv->tools);
	if (gen)
		*gen = srv->generation;
	pthread_mutex_unlock(&h->lock);
	return text;
}

/* Called with hub.lock held: the conn of @inst if it is alive. */
static struct conn *conn_if_alive(struct instance *inst)
{
	if (!inst || !inst->conn || !client_alive(inst->conn->c))
		return NULL;
	inst->conn->refs++;
	return inst->conn;
}

/* Refresher thread: re-lists catalogs after list_changed, stops idle customer
 * instances, and frees dead connections nobody uses. */
static void *refresher_main(void *arg)
{
	struct hub *h = arg;
	double idle = h->opts.idle_timeout_s > 0 ? h->opts.idle_timeout_s : HUB_DEFAULT_IDLE_S;
	struct instance *inst;
	struct conn *cn, *stale;
	struct err e = {0};
	json_t *tools, *notes;
	size_t i;

	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		for (i = 0; i < h->n && !h->stop; i++) {
			struct hub_server *srv = &h->servers[i];

			if (srv->dirty) {
				srv->dirty = false;
				for (inst = srv->instances; inst; inst = inst->next)
					if (is_catalog_instance(inst))
						break;
				cn = conn_if_alive(inst);
				if (!cn)
					continue;
				pthread_mutex_unlock(&h->lock);
				tools = catalog_list(cn->c, &notes, &e);
				release(h, cn);
				if (tools && set_catalog(h, srv, tools, notes, &e) < 0)
					log_line(srv, "%s", e.text);
				pthread_mutex_lock(&h->lock);
				i = (size_t)-1; /* the lock was dropped: look again */
				continue;
			}
			for (inst = srv->instances; inst; inst = inst->next) {
				cn = inst->conn;
				if (!cn || cn->refs || inst->state == HUB_STARTING)
					continue;
				if (client_alive(cn->c) &&
				    (!inst->customer || clock_now_s() - inst->last_used < idle))
					continue;
				if (client_alive(cn->c))
					inst->state = HUB_IDLE;
				stale = detach_locked(inst);
				pthread_mutex_unlock(&h->lock);
				conn_free(stale);
				pthread_mutex_lock(&h->lock);
				break;
			}
		}
		if (!h->stop)
			cond_wait_until(&h->cond, &h->lock, clock_now_s() + HUB_SWEEP_S);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

struct hub *hub_new(const struct config *cfg, const struct hub_opts *opts)
{
	struct hub *h = calloc(1, sizeof(*h));
	pthread_condattr_t ca;
	size_t i;

	if (!h)
		return NULL;
	h->cfg = cfg;
	h->opts = *opts;
	h->state_dir = strdup(opts->state_dir ? opts->state_dir : ".");
	h->servers = calloc(cfg->nservers + 1, sizeof(*h->servers));
	h->ext = hub_ext_new();
	if (!h->state_dir || !h->servers || !h->ext)
		goto out_free;
	h->n = cfg->nservers;
	for (i = 0; i < h->n; i++) {
		struct hub_server *srv = &h->servers[i];

		srv->hub = h;
		srv->sc = &cfg->servers[i];
		snprintf(srv->log_path, sizeof(srv->log_path), "%s/logs/%s.log", h->state_dir,
			 srv->sc->name);
		snprintf(srv->cache_path, sizeof(srv->cache_path), "%s/cache/catalogs/%s.json",
			 h->state_dir, srv->sc->name);
		catalog_cache_hash(srv->sc, srv->hash);
	}
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->cache_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cond, &ca);
	pthread_condattr_destroy(&ca);
	h->refresher_started = !pthread_create(&h->refresher, NULL, refresher_main, h);
	return h;
out_free:
	hub_ext_free(h->ext);
	free(h->servers);
	free(h->state_dir);
	free(h);
	return NULL;
}

struct stopper {
	pthread_t thread;
	struct conn *cn;
};

static void *stop_main(void *arg)
{
	conn_free(((struct stopper *)arg)->cn);
	return NULL;
}

void hub_free(struct hub *h)
{
	struct stopper *stoppers;
	struct instance *inst, *next;
	size_t i, n = 0, total = 0;

	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	/* A re-list in the refresher must not hold shutdown up for its timeout. */
	for (i = 0; i < h->n; i++)
		for (inst = h->servers[i].instances; inst; inst = inst->next)
			if (inst->conn)
				client_abort(inst->conn->c, "mcpfs is shutting down");
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	if (h->refresher_started)
		pthread_join(h->refresher, NULL);
	for (i = 0; i < h->n; i++)
		for (inst = h->servers[i].instances; inst; inst = inst->next)
			total++;
	/* Servers take up to seconds to exit: stop them all at once. The
	 * instances go only after every connection is closed: until then a
	 * transport thread may still call back with one. */
	stoppers = calloc(total + 1, sizeof(*stoppers));
	for (i = 0; i < h->n; i++) {
		for (inst = h->servers[i].instances; inst; inst = inst->next) {
			if (!inst->conn)
				continue;
			if (stoppers) {
				stoppers[n].cn = inst->conn;
				if (!pthread_create(&stoppers[n].thread, NULL, stop_main,
						    &stoppers[n])) {
					n++;
					continue;
				}
			}
			conn_free(inst->conn);
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(stoppers[i].thread, NULL);
	for (i = 0; i < h->n; i++) {
		for (inst = h->servers[i].instances; inst; inst = next) {
			next = inst->next;
			free(inst->customer);
			free(inst);
		}
		catalog_text_free(h->servers[i].tools);
		json_decref(h->servers[i].notes);
	}
	free(stoppers);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	pthread_mutex_destroy(&h->cache_lock);
	hub_ext_free(h->ext);
	free(h->servers);
	free(h->state_dir);
	free(h);
}

size_t hub_count(const struct hub *h)
{
	return h->n;
}

const char *hub_name(const struct hub *h, size_t i)
{
	return i < h->n ? h->servers[i].sc->name : NULL;
}

void hub_info(struct hub *h, const char *server, struct hub_server_info *out)
{
	struct hub_server *srv = find_server(h, server);
	struct instance *inst;
	const char *cust;

	memset(out, 0, sizeof(*out));
	if (!srv) {
		out->name = server;
		out->state = HUB_FAILED;
		snprintf(out->why, sizeof(out->why), "no server named '%s' in the config", server);
		return;
	}
	out->name = srv->sc->name;
	out->log_path = srv->log_path;
	if (srv->sc->disabled) {
		out->state = HUB_FAILED;
		snprintf(out->why, sizeof(out->why), "%s", srv->sc->disabled);
		return;
	}
	cust = catalog_customer(srv);
	pthread_mutex_lock(&h->lock);
	for (inst = srv->instances; inst; inst = inst->next)
		if ((!cust && !inst->customer) ||
		    (cust && inst->customer && !strcmp(cust, inst->customer)))
			break;
	out->state = inst ? inst->state : HUB_IDLE;
	if (inst && inst->state == HUB_READY && inst->conn && !client_alive(inst->conn->c))
		out->state = HUB_FAILED;
	if (inst && out->state == HUB_FAILED)
		snprintf(out->why, sizeof(out->why), "%s", inst->why);
	/* Connected but without a catalog: as good as failed to its users. */
	if (out->state == HUB_READY && !srv->tools && srv->list_why[0]) {
		out->state = HUB_FAILED;
		snprintf(out->why, sizeof(out->why), "%s", srv->list_why);
	}
	out->generation = srv->generation;
	out->ntools = catalog_text_count(srv->tools);
	pthread_mutex_unlock(&h->lock);
	if (out->state == HUB_FAILED)
		server_log_tail(srv->log_path, HUB_LOG_TAIL_LINES, out->log_tail,
				sizeof(out->log_tail));
}

struct connect_job {
	struct hub *h;
	struct hub_server *srv;
	double deadline;
	pthread_t thread;
	bool started;
};

static void *connect_main(void *arg)
{
	struct connect_job *j = arg;
	struct err e = {0};

	catalog_text_free(catalog(j->h, j->srv, j->deadline, NULL, &e));
	return NULL;
}

void hub_connect_all(struct hub *h, double timeout_s)
{
	struct connect_job *jobs = calloc(h->n + 1, sizeof(*jobs));
	double deadline = clock_now_s() + (timeout_s > 0 ? timeout_s : 30);
	size_t i;

	for (i = 0; i < h->n; i++) {
		if (!jobs) {
			catalog_text_free(catalog(h, &h->servers[i], deadline, NULL, NULL));
			continue;
		}
		jobs[i] = (struct connect_job){h, &h->servers[i], deadline, 0, false};
		jobs[i].started = !pthread_create(&jobs[i].thread, NULL, connect_main, &jobs[i]);
		if (!jobs[i].started)
			connect_main(&jobs[i]);
	}
	/* Every job's connect and list are capped by the deadline, so joining
	 * waits at most that long plus a slow server's shutdown. */
	for (i = 0; jobs && i < h->n; i++)
		if (jobs[i].started)
			pthread_join(jobs[i].thread, NULL);
	free(jobs);
}

struct catalog_text *hub_catalog(struct hub *h, const char *server, uint64_t *generation,
				 struct err *err)
{
	struct hub_server *srv = find_server(h, server);

	if (!srv) {
		err_set(err, EXIT_USAGE, "no server named '%s' in the config", server);
		return NULL;
	}
	return catalog(h, srv, 0, generation, err);
}

json_t *hub_tools(struct hub *h, const char *server, uint64_t *generation, struct err *err)
{
	struct catalog_text *text = hub_catalog(h, server, generation, err);
	json_t *tools;

	if (!text)
		return NULL;
	tools = catalog_text_tools(text);
	catalog_text_free(text);
	if (!tools)
		err_set(err, EXIT_FAILED, "%s: tool catalog: out of memory", server);
	return tools;
}

json_t *hub_tool(struct hub *h, const char *server, const char *tool, struct err *err)
{
	struct hub_server *srv = find_server(h, server);
	struct catalog_text *text;
	json_t *def;

	if (!srv) {
		err_set(err, EXIT_USAGE, "no server named '%s' in the config", server);
		return NULL;
	}
	text = catalog(h, srv, 0, NULL, err);
	if (!text)
		return NULL;
	def = catalog_text_tool(text, tool);
	catalog_text_free(text);
	return def;
}

json_t *hub_notes(struct hub *h, const char *server)
{
	struct hub_server *srv = find_server(h, server);
	json_t *notes;

	if (!srv)
		return NULL;
	pthread_mutex_lock(&h->lock);
	notes = json_incref(srv->notes);
	pthread_mutex_unlock(&h->lock);
	return notes;
}

int hub_hook_add(struct hub *h, const struct hub_hook *hook)
{
	return hub_ext_hook_add(h->ext, hook);
}

void hub_hook_remove(struct hub *h, int handle)
{
	hub_ext_hook_remove(h->ext, handle);
}

int hub_listen(struct hub *h, const struct hub_listener *l)
{
	return hub_ext_listen(h->ext, l);
}

void hub_unlisten(struct hub *h, int handle)
{
	hub_ext_unlisten(h->ext, handle);
}

/* @srv's catalog as far as it is known without asking the server: in
 * memory, else the disk cache however old. A reference, or NULL. */
static struct catalog_text *known_tools(struct hub *h, struct hub_server *srv)
{
	struct catalog_text *text;
	json_t *tools, *notes = NULL;
	uint64_t gen;

	pthread_mutex_lock(&h->lock);
	text = catalog_text_ref(srv->tools);
	pthread_mutex_unlock(&h->lock);
	if (text)
		return text;
	tools = catalog_cache_load(srv->cache_path, srv->hash, 1e12, &gen, &notes);
	json_decref(notes);
	text = catalog_text_new(tools);
	json_decref(tools);
	return text;
}

/* Whether @tool in @tools is called as a task: its execution.taskSupport
 * is "required", or "optional" on a server that takes task-augmented
 * tools/call (@optional_ok). A tool that allows a task says its calls may be
 * long: as a task, the call's status messages are progress, and cancelling
 * it stops the server's work (tasks/cancel), for two requests more. */
static bool needs_task(const struct catalog_text *tools, const char *tool, bool optional_ok)
{
	json_t *t = tools ? catalog_text_tool(tools, tool) : NULL;
	const char *support =
	    json_string_value(json_object_get(json_object_get(t, "execution"), "taskSupport"));
	bool task = support &&
		    (!strcmp(support, "required") || (optional_ok && !strcmp(support, "optional")));

	json_decref(t);
	return task;
}

/* The request of one call, made on a live connection: @target is the tool,
 * the resource URI or the prompt name, @args what the hooks made of the
 * arguments. */
struct call_req {
	const char *method; /* "tools/call", "resources/read", "prompts/get" */
	const char *target;
	json_t *args;
	const struct client_call_hooks *hooks;
	double timeout, deadline; /* seconds; monotonic */
};

/* tools/call, as a task when the tool requires one. A shared server not
 * listed yet (`mcpfs call` on a new data root) is listed first: calling
 * plainly and again as a task on failure handed the call hooks two results. */
static json_t *call_tool(struct hub *h, struct hub_server *srv, struct conn *cn,
			 const struct call_req *rq, struct err *err)
{
	struct catalog_text *tools = known_tools(h, srv);
	json_t *result;
	bool optional_ok = client_offers(cn->c, "tasks.requests.tools.call");
	bool task;

	if (!tools && srv->sc->scope == SCOPE_SHARED)
		tools = catalog(h, srv, rq->deadline, NULL, NULL);
	task = needs_task(tools, rq->target, optional_ok);
	result =
	    task ? client_call_tool_task(cn->c, rq->target, rq->args, rq->timeout, rq->hooks, err)
		 : client_call_tool(cn->c, rq->target, rq->args, rq->timeout, rq->hooks, err);
	catalog_text_free(tools);
	return result;
}

/* resources/read or prompts/get, on a server that declared them. */
static json_t *call_other(struct conn *cn, const char *server, const struct call_req *rq,
			  struct err *err)
{
	bool read = !strcmp(rq->method, "resources/read");
	const char *uri;

	if (!client_offers(cn->c, read ? "resources" : "prompts")) {
		err_set(err, EXIT_USAGE, "server '%s' offers no %s (it did not declare them)",
			server, read ? "resources" : "prompts");
		return NULL;
	}
	if (!read)
		return client_get_prompt(cn->c, rq->target, rq->args, rq->timeout, rq->hooks, err);
	/* The hooks may have changed the URI (PII tokens restored). */
	uri = json_string_value(json_object_get(rq->args, "uri"));
	if (!uri) {
		err_set(err, EXIT_USAGE, "server '%s': resources/read: no URI left", server);
		return NULL;
	}
	return client_read_resource(cn->c, uri, rq->timeout, rq->hooks, err);
}

/* @rq on @srv, hooks aside: the server started as needed, within the
 * call's time. */
static json_t *call_server(struct hub *h, struct hub_server *srv, struct call_req *rq,
			   const struct hub_call_opts *o, struct err *err)
{
	const char *customer = NULL;
	double timeout, start_budget, now;
	struct conn *cn;
	json_t *result;

	if (srv->sc->scope == SCOPE_CUSTOMER) {
		customer = o->customer ? o->customer : HUB_DEFAULT_CUSTOMER;
		if (!id_valid(customer, "customer", NULL)) {
			err_set(err, EXIT_USAGE, "invalid customer id '%s'", customer);
			return NULL;
		}
	}
	timeout = o->timeout_s > 0	   ? o->timeout_s
		  : srv->sc->timeout_s > 0 ? srv->sc->timeout_s
					   : HUB_DEFAULT_TIMEOUT_S;
	/* The call's timeout bounds the call, not the server's start: the
	 * deadline leaves room for both, unless the caller's comes first. */
	start_budget =
	    srv->sc->connect_timeout_s > 0 ? srv->sc->connect_timeout_s : HUB_DEFAULT_CONNECT_S;
	now = clock_now_s();
	rq->deadline = now + (timeout > start_budget ? timeout : start_budget);
	if (o->deadline_s > 0 && o->deadline_s < rq->deadline)
		rq->deadline = o->deadline_s;
	if (rq->deadline <= now) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': no time left for %s '%.300s'",
			srv->sc->name, rq->method, rq->target);
		return NULL;
	}
	if (rq->hooks->cancel && cancel_fired(rq->hooks->cancel)) {
		err_set(err, EXIT_FAILED, "server '%s': %s '%.300s' cancelled", srv->sc->name,
			rq->method, rq->target);
		return NULL; /* not worth starting a server for */
	}
	cn = acquire(h, srv, customer, o->workspace,
		     o->start_timeout_s > 0 && now + o->start_timeout_s < rq->deadline
			 ? now + o->start_timeout_s
			 : rq->deadline,
		     err);
	if (o->note)
		o->note->start_ms = (clock_now_s() - now) * 1000.0;
	if (!cn)
		return NULL;
	if (o->deadline_s > 0 && o->deadline_s - clock_now_s() < timeout)
		timeout = o->deadline_s - clock_now_s();
	rq->timeout = timeout < 0.001 ? 0.001 : timeout;
	result = !strcmp(rq->method, "tools/call") ? call_tool(h, srv, cn, rq, err)
						   : call_other(cn, srv->sc->name, rq, err);
	release(h, cn);
	return result;
}

/* A call with hooks: the afters run where the result arrives, so that the
 * caller's fast path (client_call_hooks.result) hands on what they made. */
struct hooked_call {
	struct hub_chain chain;
	struct hub_call call;
	const struct client_call_hooks *outer; /* the caller's */
	json_t *result;			       /* what the afters made; new */
	struct err err;			       /* why the afters failed it */
};

/* On the server connection's reader thread, before the caller wakes. */
static void hooked_result(void *ctx, json_t *result)
{
	struct hooked_call *hc = ctx;

	hc->result = hub_chain_end(&hc->chain, &hc->call, json_incref(result), &hc->err);
	if (hc->result && hc->outer->result)
		hc->outer->result(hc->outer->result_ctx, hc->result);
}

/* @method of @target on @server through the call hooks; @args stolen. */
static json_t *hooked(struct hub *h, const char *method, const char *server, const char *target,
		      json_t *args, const struct hub_call_opts *o, struct err *err)
{
	static const struct hub_call_opts none;
	struct hub_server *srv = find_server(h, server);
	struct hooked_call hc = {.call = {server, target, method, o ? o : &none, clock_now_ms()}};
	struct call_req rq = {.method = method, .target = target};
	struct client_call_hooks hooks;
	struct err local = {0};
	json_t *result;

	if (!err)
		err = &local;
	if (!srv) {
		json_decref(args);
		err_set(err, EXIT_USAGE, "no server named '%s' in the config", server);
		return NULL;
	}
	o = hc.call.opts;
	if (!args) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	if (hub_chain_begin(h->ext, &hc.chain, &hc.call, &args, err) < 0) {
		json_decref(args);
		return hub_chain_end(&hc.chain, &hc.call, NULL, err);
	}
	rq.args = args;
	if (hub_chain_empty(&hc.chain)) {
		rq.hooks = &o->hooks;
		result = call_server(h, srv, &rq, o, err);
		json_decref(args);
		return result;
	}
	hooks = o->hooks;
	hc.outer = &o->hooks;
	hooks.result = hooked_result;
	hooks.result_ctx = &hc;
	rq.hooks = &hooks;
	result = call_server(h, srv, &rq, o, err);
	json_decref(args);
	if (!hc.chain.ended)
		return hub_chain_end(&hc.chain, &hc.call, result, err);
	/* The afters ran on the reader thread: theirs is the answer. */
	json_decref(result);
	if (!hc.result)
		*err = hc.err;
	return hc.result;
}

json_t *hub_call(struct hub *h, const char *server, const char *tool, json_t *args,
		 const struct hub_call_opts *o, struct err *err)
{
	return hooked(h, "tools/call", server, tool, args ? json_incref(args) : json_object(), o,
		      err);
}

json_t *hub_read_resource(struct hub *h, const char *server, const char *uri,
			  const struct hub_call_opts *o, struct err *err)
{
	return hooked(h, "resources/read", server, uri, json_pack("{s:s}", "uri", uri), o, err);
}

json_t *hub_get_prompt(struct hub *h, const char *server, const char *name, json_t *args,
		       const struct hub_call_opts *o, struct err *err)
{
	return hooked(h, "prompts/get", server, name, args ? json_incref(args) : json_object(), o,
		      err);
}
