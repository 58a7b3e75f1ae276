/* The MCP protocol over one transport: initialize with version negotiation,
 * requests matched to responses by id, server requests answered on a worker
 * thread of our own (never on the transport's thread, which must keep reading),
 * progress, timeouts with notifications/cancelled, list_changed. */
#define _GNU_SOURCE
#include "client.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jsonrpc.h"
#include "server_log.h"
#include "transport.h"

#define CLIENT_VERSION "0.1.0"
#define CLIENT_DEFAULT_TIMEOUT_S 60.0
#define CLIENT_DEFAULT_CONNECT_TIMEOUT_S 30.0
/* Server requests waiting for the worker at most; more are answered with an error. */
#define CLIENT_MAX_QUEUED 256
/* Server requests with the callers' askers at once, at most; more get
 * mcpfs's own answer. */
#define CLIENT_MAX_ASKING 64

/* The version we offer first, then the older ones we accept in the reply. */
static const char *const protocol_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
						"2024-11-05"};

struct pending {
	json_int_t id;
	pthread_cond_t cond;
	bool done;	  /* protected by client.lock */
	bool passing;	  /* hooks->result is running; protected by client.lock */
	json_t *response; /* new; protected by client.lock; NULL if the link died */
	const struct client_call_hooks *hooks; /* the caller's; NULL: none */
	/* Server requests with hooks->asker now (protected by client.lock),
	 * and what tells them the call ended (initialised with the first). */
	unsigned asking;
	bool ask_ready;
	struct cancel ask_end;
	struct pending *next;
};

struct queued {
	json_t *msg;	   /* new: a server request */
	struct pending *p; /* the call it belongs to, reserved (asking) at arrival; NULL: none */
	struct queued *next;
};

struct client {
	struct server_config *sc; /* new copy */
	struct server_log *log;
	char *log_path;
	struct client_events ev;
	const struct transport_ops *ops;
	struct transport *t; /* set by connect, before any other thread can see it */

	pthread_mutex_t lock;
	json_int_t next_id;	 /* protected by lock */
	struct pending *pending; /* protected by lock */
	bool alive;		 /* protected by lock */
	char why[ERR_TEXT_MAX];	 /* protected by lock: why the link died */
	struct queued *queue;	 /* protected by lock: server requests for the worker */
	struct queued **queue_tail;
	size_t nqueued;
	unsigned nasking; /* protected by lock: server requests with askers */
	bool stop_worker; /* protected by lock */
	pthread_cond_t worker_cond;
	pthread_t worker;
	bool worker_started;

	/* Re-initialization after -ESTALE: one at a time, once per lost session. */
	pthread_mutex_t reinit_lock;
	unsigned session; /* protected by reinit_lock */

	char *instructions; /* set by the handshake; NULL when none */
	json_t *caps;	    /* protected by lock: the server's capabilities; new or NULL */
};

/* A server request with the asker of the call it belongs to. */
struct asking {
	struct client *c;
	struct pending *p; /* its asking count keeps it (and its hooks) alive */
	json_t *req;	   /* new */
};

static const struct transport_ops *ops_for(enum server_transport tr)
{
	switch (tr) {
	case TRANSPORT_STDIO:
		return &transport_stdio_ops;
	case TRANSPORT_HTTP:
		return &transport_http_ops;
	case TRANSPORT_SSE:
		return &transport_sse_ops;
	}
	return &transport_stdio_ops;
}

static void deadline_after(struct timespec *ts, double s)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)s;
	ts->tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static struct pending *find_pending(struct client *c, json_int_t id)
{
	struct pending *p;

	for (p = c->pending; p; p = p->next)
		if (p->id == id)
			return p;
	return NULL;
}

static void unlink_pending(struct client *c, struct pending *p)
{
	struct pending **pp;

	for (pp = &c->pending; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			return;
		}
}

/* Called with c->lock held: take @p off the list, and end what its asker
 * is still asking (nobody waits for the answers any more), waiting until
 * none uses @p. The lock is dropped meanwhile. */
static void pending_end_locked(struct client *c, struct pending *p)
{
	unlink_pending(c, p);
	if (!p->ask_ready)
		return;
	pthread_mutex_unlock(&c->lock);
	cancel_fire(&p->ask_end);
	pthread_mutex_lock(&c->lock);
	while (p->asking)
		pthread_cond_wait(&p->cond, &c->lock);
}

/* @msg is stolen: handed to the waiting request whole, so that no two
 * threads ever share one reference count. */
static void on_response(struct client *c, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	struct pending *p = NULL;

	pthread_mutex_lock(&c->lock);
	if (json_is_integer(id))
		p = find_pending(c, json_integer_value(id));
	if (p && p->passing)
		p = NULL; /* a second reply to one request, from a broken server */
	if (p && !p->done && p->hooks && p->hooks->result &&
	    json_is_object(json_object_get(msg, "result")) && !json_object_get(msg, "error")) {
		/* The caller waits until passing is over (request()), so
		 * p and its hooks stay valid without the lock. */
		p->passing = true;
		pthread_mutex_unlock(&c->lock);
		p->hooks->result(p->hooks->result_ctx, json_object_get(msg, "result"));
		pthread_mutex_lock(&c->lock);
		p->passing = false;
		/* Passed on: the caller gets it too, even if the link died meanwhile. */
		if (p->done && !p->response)
			p->done = false;
	}
	if (p && !p->done) {
		p->response = msg;
		msg = NULL;
		p->done = true;
		pthread_cond_signal(&p->cond);
	}
	pthread_mutex_unlock(&c->lock);
	/* A reply to a cancelled or timed-out request is dropped. */
	json_decref(msg);
}

static void on_progress(struct client *c, const json_t *params)
{
	const json_t *token = json_object_get(params, "progressToken");
	const json_t *total = json_object_get(params, "total");
	struct pending *p;

	if (!json_is_integer(token))
		return;
	pthread_mutex_lock(&c->lock);
	p = find_pending(c, json_integer_value(token));
	if (p && !p->done && p->hooks && p->hooks->progress)
		p->hooks->progress(p->hooks->progress_ctx,
				   json_number_value(json_object_get(params, "progress")),
				   json_is_number(total) ? json_number_value(total) : -1,
				   json_string_value(json_object_get(params, "message")));
	pthread_mutex_unlock(&c->lock);
}

static void on_notification(struct client *c, const json_t *msg)
{
	const char *method = json_string_value(json_object_get(msg, "method"));
	const json_t *params = json_object_get(msg, "params");
	char *text;

	if (!strcmp(method, "notifications/progress")) {
		on_progress(c, params);
	} else if (!strcmp(method, "notifications/tools/list_changed") ||
		   !strcmp(method, "notifications/resources/list_changed") ||
		   !strcmp(method, "notifications/prompts/list_changed")) {
		if (c->ev.on_list_changed)
			c->ev.on_list_changed(c->ev.ctx);
	} else if (!strcmp(method, "notifications/message")) {
		text = json_dumps(json_object_get(params, "data"), JSON_COMPACT | JSON_ENCODE_ANY);
		server_log_printf(c->log, "server log [%s]: %.900s",
				  json_string_value(json_object_get(params, "level")) ?: "?",
				  text ? text : "");
		free(text);
	}
}

/* Whether an asker may answer @req: sampling, and elicitation in form mode
 * (the one mcpfs declares). */
static bool askable(const json_t *req)
{
	const char *method = json_string_value(json_object_get(req, "method"));
	const char *mode =
	    json_string_value(json_object_get(json_object_get(req, "params"), "mode"));

	if (!strcmp(method, "sampling/createMessage"))
		return true;
	return !strcmp(method, "elicitation/create") && (!mode || !strcmp(mode, "form"));
}

/* The call a server request belongs to, with lock held. Over Streamable
 * HTTP the request came on that call's own response stream (@rel, the id of
 * our request): that call, if it has an asker. Else the one call in flight,
 * or the first of several that share one asker. NULL when a call without an
 * asker, or with another asker, could have asked: the request cannot be told
 * apart, and mcpfs answers it itself rather than show one caller's question
 * to another. Requests without hooks (lists, logging) ask nothing of anybody. */
static struct pending *asker_of_locked(struct client *c, const json_t *rel)
{
	const struct client_asker *a;
	struct pending *p, *found = NULL;

	if (json_is_integer(rel)) {
		p = find_pending(c, json_integer_value(rel));
		return p && !p->done && p->hooks && p->hooks->asker ? p : NULL;
	}
	for (p = c->pending; p; p = p->next) {
		if (!p->hooks || p->done)
			continue;
		a = p->hooks->asker;
		if (!a || (found && (a->ask != found->hooks->asker->ask ||
				     a->ctx != found->hooks->asker->ctx)))
			return NULL;
		found = found ? found : p;
	}
	return found;
}

/* Called with c->lock held, as @req arrives: the call it belongs to, with
 * its asking count raised (which keeps it and its hooks alive), or NULL.
 * Chosen now, not when the worker takes it: by then a call that was in
 * flight beside it may have ended, and the request would look like the
 * other call's. */
static struct pending *reserve_asker_locked(struct client *c, const json_t *req, const json_t *rel)
{
	struct pending *p;

	if (!askable(req) || c->nasking >= CLIENT_MAX_ASKING || !(p = asker_of_locked(c, rel)))
		return NULL;
	if (!p->ask_ready)
		cancel_init(&p->ask_end);
	p->ask_ready = true;
	p->asking++;
	c->nasking++;
	return p;
}

static void release_asker_locked(struct client *c, struct pending *p)
{
	p->asking--;
	c->nasking--;
	pthread_cond_broadcast(&p->cond);
}

static void enqueue_request(struct client *c, json_t *msg, const json_t *rel)
{
	struct queued *q = NULL;

	pthread_mutex_lock(&c->lock);
	if (c->nqueued < CLIENT_MAX_QUEUED)
		q = calloc(1, sizeof(*q));
	if (q) {
		q->msg = msg;
		q->p = reserve_asker_locked(c, msg, rel);
		*c->queue_tail = q;
		c->queue_tail = &q->next;
		c->nqueued++;
		pthread_cond_signal(&c->worker_cond);
	}
	pthread_mutex_unlock(&c->lock);
	if (!q) {
		server_log_printf(c->log, "dropped a server request: too many queued");
		json_decref(msg);
	}
}

/* From the transport (its thread, or the caller's inside send()). */
static void sink_message(void *ctx, json_t *msg, const json_t *rel)
{
	struct client *c = ctx;

	switch (jsonrpc_classify(msg)) {
	case JSONRPC_RESPONSE:
		on_response(c, msg);
		return;
	case JSONRPC_REQUEST:
		enqueue_request(c, msg, rel);
		return;
	case JSONRPC_NOTIFICATION:
		on_notification(c, msg);
		break;
	case JSONRPC_INVALID:
		server_log_printf(c->log, "ignored a message that is not JSON-RPC 2.0");
		break;
	}
	json_decref(msg);
}

static void fail_pending_locked(struct client *c)
{
	struct pending *p;

	for (p = c->pending; p; p = p->next) {
		p->done = true;
		pthread_cond_signal(&p->cond);
	}
}

static void sink_closed(void *ctx, const char *why)
{
	struct client *c = ctx;
	bool was_alive;

	pthread_mutex_lock(&c->lock);
	was_alive = c->alive;
	c->alive = false;
	snprintf(c->why, sizeof(c->why), "%s", why);
	pthread_mutex_unlock(&c->lock);
	/* Tell the owner first, so that its state says why by the time the
	 * failed calls return to their callers. */
	if (was_alive && c->ev.on_closed)
		c->ev.on_closed(c->ev.ctx, why);
	pthread_mutex_lock(&c->lock);
	fail_pending_locked(c);
	pthread_mutex_unlock(&c->lock);
}

/* elicitation/create: there is no user to ask. Form mode is declared: the
 * form is accepted with the schema's defaults (SEP-1034) when every
 * required field has one, and declined otherwise. URL mode is not declared
 * (it needs a person with a browser): invalid params. */
static json_t *elicit(struct client *c, json_t *id, const json_t *params)
{
	const json_t *schema = json_object_get(params, "requestedSchema");
	const json_t *props = json_object_get(schema, "properties");
	const json_t *required = json_object_get(schema, "required");
	const char *mode = json_string_value(json_object_get(params, "mode"));
	json_t *content, *prop, *dflt, *r;
	const char *key;
	size_t i;

	if (mode && strcmp(mode, "form"))
		return jsonrpc_error_new(id, JSONRPC_INVALID_PARAMS,
					 "mcpfs declared form elicitation only, not this mode");
	content = json_object();
	json_object_foreach((json_t *)props, key, prop)
	{
		dflt = json_object_get(prop, "default");
		if (dflt && content)
			json_object_set(content, key, dflt);
	}
	json_array_foreach(required, i, r)
	{
		if (!json_is_string(r) || !json_object_get(content, json_string_value(r))) {
			server_log_printf(c->log,
					  "declined an elicitation: required field without a "
					  "default");
			json_decref(content);
			return jsonrpc_result_new(id, json_pack("{s:s}", "action", "decline"));
		}
	}
	server_log_printf(c->log, "accepted an elicitation with the schema's defaults");
	return jsonrpc_result_new(id, json_pack("{s:s, s:o}", "action", "accept", "content",
						content ? content : json_object()));
}

/* The answer to one server request: a new response message. */
static json_t *answer(struct client *c, json_t *req)
{
	const char *method = json_string_value(json_object_get(req, "method"));
	json_t *id = json_object_get(req, "id"), *roots, *r;
	size_t i;

	if (!strcmp(method, "ping"))
		return jsonrpc_result_new(id, json_object());
	if (!strcmp(method, "roots/list")) {
		roots = json_array();
		for (i = 0; roots && i < c->sc->nroots; i++) {
			r = json_pack("{s:s}", "uri", c->sc->roots[i]);
			if (r)
				json_array_append_new(roots, r);
		}
		return jsonrpc_result_new(id, json_pack("{s:o}", "roots", roots));
	}
	if (!strcmp(method, "sampling/createMessage"))
		return jsonrpc_error_new(
		    id, JSONRPC_METHOD_NOT_FOUND,
		    "mcpfs does not support sampling here: no model is attached "
		    "to this call (run the code from an MCP host that offers "
		    "sampling, through `mcpfs serve`)");
	if (!strcmp(method, "elicitation/create"))
		return elicit(c, id, json_object_get(req, "params"));
	return jsonrpc_error_new(id, JSONRPC_METHOD_NOT_FOUND, "method not found");
}

static void send_answer(struct client *c, const json_t *req, json_t *resp)
{
	struct err e = {0};

	if (resp && c->ops->send(c->t, resp, &e) < 0)
		server_log_printf(c->log, "answering %s: %s",
				  json_string_value(json_object_get(req, "method")), e.text);
	json_decref(resp);
}

static void *ask_main(void *arg)
{
	struct asking *a = arg;
	struct client *c = a->c;
	const struct client_asker *asker = a->p->hooks->asker;
	const char *method = json_string_value(json_object_get(a->req, "method"));
	json_t *id = json_object_get(a->req, "id"), *result, *resp;
	struct err e = {0};
	int code = 0;

	result = asker->ask(asker->ctx, method, json_object_get(a->req, "params"), &a->p->ask_end,
			    &code, &e);
	if (result)
		resp = jsonrpc_result_new(id, result);
	else if (code)
		resp = jsonrpc_error_new(id, code, e.text[0] ? e.text : "failed");
	else
		resp = answer(c, a->req);
	server_log_printf(c->log, "%s: %s", method,
			  result ? "answered by the caller"
			  : code ? "the caller failed it"
				 : "the caller could not answer: answered by mcpfs");
	send_answer(c, a->req, resp);
	json_decref(a->req);
	pthread_mutex_lock(&c->lock);
	release_asker_locked(c, a->p);
	pthread_mutex_unlock(&c->lock);
	free(a);
	return NULL;
}

/* Hand @req (borrowed) to @p's asker (reserved for it), on a thread of its
 * own: a person may take minutes, and the worker must go on answering pings.
 * False when there is none (or no thread): the caller answers. */
static bool ask_caller(struct client *c, struct pending *p, json_t *req)
{
	struct asking *a = p ? calloc(1, sizeof(*a)) : NULL;
	pthread_attr_t attr;
	pthread_t th;
	int rc = -1;

	if (a) {
		*a = (struct asking){c, p, json_incref(req)};
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&th, &attr, ask_main, a);
		pthread_attr_destroy(&attr);
	}
	if (!rc)
		return true;
	if (p) {
		pthread_mutex_lock(&c->lock);
		release_asker_locked(c, p);
		pthread_mutex_unlock(&c->lock);
	}
	if (a)
		json_decref(a->req);
	free(a);
	return false;
}

static void *worker_main(void *arg)
{
	struct client *c = arg;
	struct queued *q;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->queue && !c->stop_worker)
			pthread_cond_wait(&c->worker_cond, &c->lock);
		if (c->stop_worker)
			break;
		q = c->queue;
		c->queue = q->next;
		if (!c->queue)
			c->queue_tail = &c->queue;
		c->nqueued--;
		pthread_mutex_unlock(&c->lock);
		if (!ask_caller(c, q->p, q->msg))
			send_answer(c, q->msg, answer(c, q->msg));
		json_decref(q->msg);
		free(q);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct client *client_new(const struct server_config *sc, const char *log_path,
			  const struct client_events *ev)
{
	struct client *c = calloc(1, sizeof(*c));
	pthread_condattr_t ca;

	if (!c)
		return NULL;
	c->sc = server_config_dup(sc);
	c->log_path = log_path ? strdup(log_path) : NULL;
	if (!c->sc || (log_path && !c->log_path)) {
		server_config_free(c->sc);
		free(c->log_path);
		free(c);
		return NULL;
	}
	c->log = log_path ? server_log_open(log_path) : NULL;
	if (ev)
		c->ev = *ev;
	c->ops = ops_for(sc->transport);
	c->next_id = 1;
	c->queue_tail = &c->queue;
	snprintf(c->why, sizeof(c->why), "server '%s' is not connected", sc->name);
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->reinit_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->worker_cond, &ca);
	pthread_condattr_destroy(&ca);
	return c;
}

/* Send @msg (borrowed); on -ESTALE initialize again and send once more. */
static int send_msg(struct client *c, json_t *msg, bool may_reinit, struct err *err);

static int handshake(struct client *c, struct err *err);

static int send_msg(struct client *c, json_t *msg, bool may_reinit, struct err *err)
{
	unsigned session = 0;
	int rc;

	/* The handshake's own messages (may_reinit false) run under reinit_lock. */
	if (may_reinit) {
		pthread_mutex_lock(&c->reinit_lock);
		session = c->session;
		pthread_mutex_unlock(&c->reinit_lock);
	}
	rc = c->ops->send(c->t, msg, err);
	if (rc != -ESTALE || !may_reinit)
		return rc == -ESTALE ? err_set(err, EXIT_UNREACHABLE,
					       "server '%s' lost our session", c->sc->name)
				     : rc;
	pthread_mutex_lock(&c->reinit_lock);
	rc = 0;
	if (session == c->session) {
		server_log_printf(c->log, "session lost: initializing again");
		rc = handshake(c, err);
		if (!rc)
			c->session++;
	}
	pthread_mutex_unlock(&c->reinit_lock);
	if (rc)
		return rc;
	rc = c->ops->send(c->t, msg, err);
	if (rc == -ESTALE)
		return err_set(err, EXIT_UNREACHABLE, "server '%s' lost our session twice",
			       c->sc->name);
	return rc;
}

static void cond_init_monotonic(pthread_cond_t *cond)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &ca);
	pthread_condattr_destroy(&ca);
}

static void send_cancelled(struct client *c, json_int_t id, const char *reason)
{
	json_t *n = jsonrpc_notification_new(
	    "notifications/cancelled", json_pack("{s:I, s:s}", "requestId", id, "reason", reason));
	struct err e = {0};

	if (n && c->ops->send(c->t, n, &e) < 0)
		server_log_printf(c->log, "sending notifications/cancelled: %s", e.text);
	json_decref(n);
}

/* For a -32042 error (URL elicitation required): " (open URL to go on)"
 * with the URLs it names, for the person who reads the error; else "". */
static const char *elicitation_urls(const json_t *error, char *out, size_t n)
{
	const json_t *e;
	const char *url;
	size_t i, len = 0;

	out[0] = '\0';
	if (json_integer_value(json_object_get(error, "code")) != -32042)
		return out;
	json_array_foreach(json_object_get(json_object_get(error, "data"), "elicitations"), i, e)
	{
		url = json_string_value(json_object_get(e, "url"));
		if (url && len < n)
			len += (size_t)snprintf(out + len, n - len, "%s%s", len ? ", " : " (open ",
						url);
	}
	if (len && len + 16 < n)
		snprintf(out + len, n - len, " to go on)");
	return out;
}

/* One request: @params stolen. Returns the new "result" member, or NULL with
 * @err. @what names the request in messages ("tools/call 'echo'"). */
static json_t *request(struct client *c, const char *method, json_t *params, const char *what,
		       double timeout_s, const struct client_call_hooks *hooks, bool may_reinit,
		       struct err *err)
{
	struct pending p = {.hooks = hooks};
	char urls[400];
	struct cancel *cancel = hooks ? hooks->cancel : NULL;
	struct cancel_wait cw = {.lock = &c->lock, .cond = &p.cond};
	struct timespec deadline;
	json_t *msg = NULL, *result = NULL, *error, *meta;
	bool timed_out = false, cancelled = false, watching = false;
	int rc = 0;

	cond_init_monotonic(&p.cond);
	if (cancel && !(watching = cancel_watch(cancel, &cw))) {
		err_set(err, EXIT_FAILED, "server '%s': %s cancelled", c->sc->name, what);
		json_decref(params);
		goto out_cond;
	}
	pthread_mutex_lock(&c->lock);
	if (!c->alive) {
		err_set(err, EXIT_UNREACHABLE, "%s", c->why);
		pthread_mutex_unlock(&c->lock);
		json_decref(params);
		goto out_cond;
	}
	p.id = c->next_id++;
	p.next = c->pending;
	c->pending = &p;
	pthread_mutex_unlock(&c->lock);

	if (hooks && hooks->progress && params) {
		meta = json_pack("{s:I}", "progressToken", p.id);
		if (meta)
			json_object_set_new(params, "_meta", meta);
	}
	msg = jsonrpc_request_new(p.id, method, params);
	if (!msg) {
		err_set(err, EXIT_FAILED, "server '%s': %s: out of memory", c->sc->name, what);
		goto out_unlink;
	}
	if (send_msg(c, msg, may_reinit, err) < 0)
		goto out_unlink;

	deadline_after(&deadline, timeout_s);
	pthread_mutex_lock(&c->lock);
	while (!p.done && !rc && !(cancelled = cancel && cancel_fired(cancel)))
		rc = pthread_cond_timedwait(&p.cond, &c->lock, &deadline);
	while (p.passing) /* the result is on its way: it is ours, timeout or not */
		pthread_cond_wait(&p.cond, &c->lock);
	timed_out = !p.done;
	if (!p.response && !timed_out)
		err_set(err, EXIT_UNREACHABLE, "%s (during %s)", c->why, what);
	pending_end_locked(c, &p);
	pthread_mutex_unlock(&c->lock);
	if (timed_out && cancelled) {
		send_cancelled(c, p.id, "cancelled by the client");
		server_log_printf(c->log, "%s cancelled: sent notifications/cancelled", what);
		err_set(err, EXIT_FAILED, "server '%s': %s cancelled", c->sc->name, what);
		goto out_msg;
	}
	if (timed_out && !strcmp(method, "initialize")) {
		/* The spec forbids cancelling initialize: the connection is
		 * given up instead (client_connect closes the transport). */
		server_log_printf(c->log, "initialize timed out after %.3g s", timeout_s);
		err_set(err, EXIT_UNREACHABLE, "server '%s': initialize timed out after %.3g s",
			c->sc->name, timeout_s);
		goto out_msg;
	}
	if (timed_out) {
		send_cancelled(c, p.id, "timed out");
		server_log_printf(c->log, "%s timed out after %.3g s: sent notifications/cancelled",
				  what, timeout_s);
		err_set(err, EXIT_UNREACHABLE, "server '%s': %s timed out after %.3g s",
			c->sc->name, what, timeout_s);
		goto out_msg;
	}
	if (!p.response)
		goto out_msg;
	error = json_object_get(p.response, "error");
	if (error) {
		err_set(err, EXIT_FAILED, "server '%s': %s: JSON-RPC error %lld: %s%s", c->sc->name,
			what, (long long)json_integer_value(json_object_get(error, "code")),
			json_string_value(json_object_get(error, "message")) ?: "(no message)",
			elicitation_urls(error, urls, sizeof(urls)));
	} else if (!json_is_object(json_object_get(p.response, "result"))) {
		err_set(err, EXIT_FAILED, "server '%s': %s: the result is not an object",
			c->sc->name, what);
	} else {
		result = json_incref(json_object_get(p.response, "result"));
	}
	json_decref(p.response);
	goto out_msg;
out_unlink:
	pthread_mutex_lock(&c->lock);
	while (p.passing)
		pthread_cond_wait(&p.cond, &c->lock);
	pending_end_locked(c, &p);
	/* A write to a server that just died: say why it died. */
	if (!c->alive)
		err_set(err, EXIT_UNREACHABLE, "%s (during %s)", c->why, what);
	pthread_mutex_unlock(&c->lock);
out_msg:
	json_decref(msg);
out_cond:
	if (watching)
		cancel_unwatch(cancel, &cw);
	if (p.ask_ready)
		cancel_destroy(&p.ask_end);
	pthread_cond_destroy(&p.cond);
	return result;
}

static double timeout_or(double t, double dflt)
{
	return t > 0 ? t : dflt;
}

static bool version_accepted(const char *v)
{
	size_t i;

	for (i = 0; v && i < sizeof(protocol_versions) / sizeof(protocol_versions[0]); i++)
		if (!strcmp(v, protocol_versions[i]))
			return true;
	return false;
}

/* logging/setLevel with the config's "logLevel", when the server logs.
 * Its messages (notifications/message) go to the server's log. A server
 * that refuses costs a line in that log, not the connection. */
static void set_log_level(struct client *c, json_t *init)
{
	struct err e = {0};
	json_t *r;

	if (!c->sc->log_level || !json_object_get(json_object_get(init, "capabilities"), "logging"))
		return;
	r = request(c, "logging/setLevel", json_pack("{s:s}", "level", c->sc->log_level),
		    "logging/setLevel", timeout_or(c->sc->timeout_s, CLIENT_DEFAULT_TIMEOUT_S),
		    NULL, false, &e);
	server_log_printf(c->log, "logging/setLevel %s: %s", c->sc->log_level, r ? "ok" : e.text);
	json_decref(r);
}

static int handshake(struct client *c, struct err *err)
{
	json_t *params, *caps, *result, *note;
	const char *version;
	int rc = -1;

	caps = json_object();
	/* Roots are declared only when configured: server-filesystem replaces
	 * its command-line folders with the client's roots. */
	if (caps && c->sc->nroots)
		json_object_set_new(caps, "roots", json_pack("{s:b}", "listChanged", 0));
	/* Forms are answered (elicit below); URLs need a person with a browser.
	 * Sampling is declared always, so that a server's catalog is the same
	 * whoever calls: a call from an MCP host through `mcpfs serve` has the
	 * host's model sample (client_asker), any other gets -32601. */
	if (caps) {
		json_object_set_new(caps, "elicitation", json_pack("{s:{}}", "form"));
		json_object_set_new(caps, "sampling", json_object());
	}
	params = json_pack("{s:s, s:o, s:{s:s, s:s}}", "protocolVersion", protocol_versions[0],
			   "capabilities", caps, "clientInfo", "name", "mcpfs", "version",
			   CLIENT_VERSION);
	result = request(c, "initialize", params, "initialize",
			 timeout_or(c->sc->connect_timeout_s, CLIENT_DEFAULT_CONNECT_TIMEOUT_S),
			 NULL, false, err);
	if (!result)
		return -1;
	version = json_string_value(json_object_get(result, "protocolVersion"));
	if (!version_accepted(version)) {
		err_set(err, EXIT_UNREACHABLE,
			"server '%s' answered protocol version '%s'; mcpfs speaks 2025-11-25, "
			"2025-06-18, 2025-03-26, 2024-11-05",
			c->sc->name, version ? version : "(none)");
		goto out_result;
	}
	free(c->instructions);
	c->instructions = json_is_string(json_object_get(result, "instructions"))
			      ? strdup(json_string_value(json_object_get(result, "instructions")))
			      : NULL;
	pthread_mutex_lock(&c->lock);
	json_decref(c->caps);
	c->caps = json_incref(json_object_get(result, "capabilities"));
	pthread_mutex_unlock(&c->lock);
	note = jsonrpc_notification_new("notifications/initialized", NULL);
	if (!note || send_msg(c, note, false, err) < 0) {
		if (!note)
			err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", c->sc->name);
		json_decref(note);
		goto out_result;
	}
	json_decref(note);
	server_log_printf(
	    c->log, "initialized: protocol %s, server %s %s", version,
	    json_string_value(json_object_get(json_object_get(result, "serverInfo"), "name"))
		?: "?",
	    json_string_value(json_object_get(json_object_get(result, "serverInfo"), "version"))
		?: "?");
	c->ops->ready(c->t, version);
	set_log_level(c, result);
	rc = 0;
out_result:
	json_decref(result);
	return rc;
}

static void stop_transport(struct client *c)
{
	struct queued *q;

	pthread_mutex_lock(&c->lock);
	c->alive = false;
	c->stop_worker = true;
	pthread_cond_signal(&c->worker_cond);
	pthread_mutex_unlock(&c->lock);
	if (c->worker_started)
		pthread_join(c->worker, NULL);
	c->worker_started = false;
	if (c->t)
		c->ops->close(c->t);
	c->t = NULL;
	pthread_mutex_lock(&c->lock);
	while ((q = c->queue)) {
		c->queue = q->next;
		if (q->p)
			release_asker_locked(c, q->p);
		json_decref(q->msg);
		free(q);
	}
	c->queue_tail = &c->queue;
	c->nqueued = 0;
	pthread_mutex_unlock(&c->lock);
}

int client_connect(struct client *c, struct err *err)
{
	struct transport_sink sink = {c, sink_message, sink_closed};

	if (c->t)
		return err_set(err, EXIT_UNREACHABLE, "server '%s': already connected",
			       c->sc->name);
	c->stop_worker = false;
	pthread_mutex_lock(&c->lock);
	c->alive = true;
	pthread_mutex_unlock(&c->lock);
	c->t = c->ops->open(c->sc, &sink, c->log_path, err);
	if (!c->t) {
		pthread_mutex_lock(&c->lock);
		c->alive = false;
		snprintf(c->why, sizeof(c->why), "%s", err ? err->text : "connect failed");
		pthread_mutex_unlock(&c->lock);
		return -1;
	}
	if (pthread_create(&c->worker, NULL, worker_main, c)) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': pthread_create failed", c->sc->name);
		goto out_stop;
	}
	c->worker_started = true;
	if (handshake(c, err) < 0)
		goto out_stop;
	return 0;
out_stop:
	server_log_printf(c->log, "connect failed: %s", err ? err->text : "");
	stop_transport(c);
	pthread_mutex_lock(&c->lock);
	snprintf(c->why, sizeof(c->why), "%s", err ? err->text : "connect failed");
	pthread_mutex_unlock(&c->lock);
	return -1;
}

/* What each list is called on the wire. */
static const struct {
	const char *method, *key, *noun;
} lists[] = {
    [CLIENT_LIST_TOOLS] = {"tools/list", "tools", "tools"},
    [CLIENT_LIST_RESOURCES] = {"resources/list", "resources", "resources"},
    [CLIENT_LIST_TEMPLATES] = {"resources/templates/list", "resourceTemplates",
			       "resource templates"},
    [CLIENT_LIST_PROMPTS] = {"prompts/list", "prompts", "prompts"},
};

/* The catalog's caps: a page is under the message cap, but pages add up.
 * Pages themselves are not capped (100,000 tools one per page is a catalog):
 * each counts as at least one item, so a server whose cursors never end meets
 * the item cap even with empty pages. */
static int over_caps(struct client *c, enum client_list what, const json_t *items,
		     const json_t *page, size_t *bytes, size_t *empty, struct err *err)
{
	size_t max_items = c->sc->max_tools ? c->sc->max_tools : CONFIG_DEFAULT_MAX_TOOLS;
	size_t max_bytes =
	    c->sc->max_catalog_bytes ? c->sc->max_catalog_bytes : CONFIG_DEFAULT_MAX_CATALOG_BYTES;

	*bytes += json_dumpb(page, NULL, 0, JSON_COMPACT);
	*empty += !json_array_size(page);
	if (json_array_size(items) + json_array_size(page) > max_items)
		return err_set(err, EXIT_FAILED,
			       "server '%s': %s: more than %zu %s (raise \"max_tools\" in its "
			       "config)",
			       c->sc->name, lists[what].method, max_items, lists[what].noun);
	if (json_array_size(items) + json_array_size(page) + *empty > max_items)
		return err_set(err, EXIT_FAILED,
			       "server '%s': %s: %zu empty pages, and its cursors do not end",
			       c->sc->name, lists[what].method, *empty);
	if (*bytes > max_bytes)
		return err_set(err, EXIT_FAILED,
			       "server '%s': %s: more than %zu bytes of %s (raise "
			       "\"max_catalog_bytes\" in its config)",
			       c->sc->name, lists[what].method, max_bytes, lists[what].noun);
	return 0;
}

json_t *client_list(struct client *c, enum client_list what, struct err *err)
{
	json_t *items = json_array(), *params, *result, *page, *cursor;
	double timeout = timeout_or(c->sc->timeout_s, CLIENT_DEFAULT_TIMEOUT_S);
	const char *method = lists[what].method;
	char *next = NULL;
	size_t bytes = 0, empty = 0;

	if (!items) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	for (;;) {
		params = next ? json_pack("{s:s}", "cursor", next) : json_object();
		free(next);
		next = NULL;
		result = request(c, method, params, method, timeout, NULL, true, err);
		if (!result)
			goto out_free;
		page = json_object_get(result, lists[what].key);
		if (json_is_array(page) &&
		    over_caps(c, what, items, page, &bytes, &empty, err) < 0) {
			json_decref(result);
			goto out_free;
		}
		if (!json_is_array(page) || json_array_extend(items, page) < 0) {
			err_set(err, EXIT_FAILED, "server '%s': %s: no \"%s\" array", c->sc->name,
				method, lists[what].key);
			json_decref(result);
			goto out_free;
		}
		cursor = json_object_get(result, "nextCursor");
		if (json_is_string(cursor) && json_string_length(cursor))
			next = strdup(json_string_value(cursor));
		json_decref(result);
		if (!next)
			return items;
	}
out_free:
	free(next);
	json_decref(items);
	return NULL;
}

const char *client_list_method(enum client_list what)
{
	return lists[what].method;
}

json_t *client_list_tools(struct client *c, struct err *err)
{
	return client_list(c, CLIENT_LIST_TOOLS, err);
}

bool client_offers(struct client *c, const char *capability)
{
	const char *s = capability, *dot;
	char key[64];
	json_t *v;

	pthread_mutex_lock(&c->lock);
	for (v = c->caps; v && *s; s = dot ? dot + 1 : s + strlen(s)) {
		dot = strchr(s, '.');
		snprintf(key, sizeof(key), "%.*s", (int)(dot ? (size_t)(dot - s) : strlen(s)), s);
		v = json_object_get(v, key);
	}
	pthread_mutex_unlock(&c->lock);
	return json_is_object(v);
}

json_t *client_call_tool(struct client *c, const char *tool, json_t *args, double timeout_s,
			 const struct client_call_hooks *hooks, struct err *err)
{
	char what[300];
	json_t *params;

	snprintf(what, sizeof(what), "tools/call '%s'", tool);
	params = json_pack("{s:s, s:o}", "name", tool, "arguments",
			   args ? json_incref(args) : json_object());
	if (!params) {
		err_set(err, EXIT_FAILED, "server '%s': %s: out of memory", c->sc->name, what);
		return NULL;
	}
	return request(
	    c, "tools/call", params, what,
	    timeout_or(timeout_s, timeout_or(c->sc->timeout_s, CLIENT_DEFAULT_TIMEOUT_S)), hooks,
	    true, err);
}

/* Wait until @until (monotonic seconds) or until @cancel fires. Returns
 * false when cancelled. */
static bool pause_until(struct cancel *cancel, double until)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond;
	struct cancel_wait cw = {.lock = &lock, .cond = &cond};
	struct timespec ts;
	bool watching, fired = false;

	cond_init_monotonic(&cond);
	watching = !cancel || cancel_watch(cancel, &cw);
	ts.tv_sec = (time_t)until;
	ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
	pthread_mutex_lock(&lock);
	while (watching && !(fired = cancel && cancel_fired(cancel)))
		if (pthread_cond_timedwait(&cond, &lock, &ts))
			break;
	pthread_mutex_unlock(&lock);
	if (watching && cancel)
		cancel_unwatch(cancel, &cw);
	pthread_cond_destroy(&cond);
	return watching && !fired;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* tasks/get, tasks/result or tasks/cancel for @id. */
static json_t *task_request(struct client *c, const char *method, const char *id, double timeout,
			    const struct client_call_hooks *hooks, struct err *err)
{
	char what[300];

	snprintf(what, sizeof(what), "%s '%s'", method, id);
	return request(c, method, json_pack("{s:s}", "taskId", id), what,
		       timeout > 0.001 ? timeout : 0.001, hooks, true, err);
}

/* Give up on task @id: the server stops working on it. */
static void task_cancel(struct client *c, const char *id)
{
	struct err e = {0};

	json_decref(task_request(c, "tasks/cancel", id, 5, NULL, &e));
	server_log_printf(c->log, "sent tasks/cancel for task %s%s%s", id, e.text[0] ? ": " : "",
			  e.text);
}

json_t *client_call_tool_task(struct client *c, const char *tool, json_t *args, double timeout_s,
			      const struct client_call_hooks *hooks, struct err *err)
{
	double timeout =
	    timeout_or(timeout_s, timeout_or(c->sc->timeout_s, CLIENT_DEFAULT_TIMEOUT_S));
	double deadline = now_s() + timeout, interval;
	struct client_call_hooks waits = {.cancel = hooks ? hooks->cancel : NULL,
					  .asker = hooks ? hooks->asker : NULL};
	const char *status;
	json_t *params, *created, *task, *result = NULL;
	char what[300], id[256];
	unsigned step = 0;

	snprintf(what, sizeof(what), "tools/call '%s' as a task", tool);
	params = json_pack("{s:s, s:o, s:{s:I}}", "name", tool, "arguments",
			   args ? json_incref(args) : json_object(), "task", "ttl",
			   (json_int_t)(timeout * 1000) + 60000);
	if (!params) {
		err_set(err, EXIT_FAILED, "server '%s': %s: out of memory", c->sc->name, what);
		return NULL;
	}
	created = request(c, "tools/call", params, what, timeout, &waits, true, err);
	task = json_object_get(created, "task");
	if (!created || !json_is_object(task))
		return created; /* a failure, or the server ran it as a plain call */
	snprintf(id, sizeof(id), "%s", json_string_value(json_object_get(task, "taskId")) ?: "");
	if (!id[0]) {
		err_set(err, EXIT_FAILED, "server '%s': %s: a task without a taskId", c->sc->name,
			what);
		json_decref(created);
		return NULL;
	}
	task = json_incref(task);
	json_decref(created);
	for (;;) {
		status = json_string_value(json_object_get(task, "status")) ?: "";
		if (strcmp(status, "working") && strcmp(status, "submitted"))
			break; /* completed, failed, input_required: tasks/result has it */
		if (hooks && hooks->progress)
			hooks->progress(hooks->progress_ctx, ++step, -1,
					json_string_value(json_object_get(task, "statusMessage")));
		interval = (double)json_integer_value(json_object_get(task, "pollInterval")) / 1e3;
		interval = interval < 0.01 ? 1.0 : interval > 5 ? 5 : interval;
		if (!pause_until(waits.cancel,
				 now_s() + interval < deadline ? now_s() + interval : deadline)) {
			err_set(err, EXIT_FAILED, "server '%s': %s cancelled", c->sc->name, what);
			goto out_cancel;
		}
		if (now_s() >= deadline) {
			err_set(err, EXIT_UNREACHABLE, "server '%s': %s timed out after %.3g s",
				c->sc->name, what, timeout);
			goto out_cancel;
		}
		json_decref(task);
		task = task_request(c, "tasks/get", id, deadline - now_s(), &waits, err);
		if (!task)
			goto out_cancel;
	}
	if (!strcmp(status, "cancelled")) {
		err_set(err, EXIT_FAILED, "server '%s': %s: the server cancelled task %s",
			c->sc->name, what, id);
		goto out;
	}
	/* tasks/result waits for the end, and carries the requests the task
	 * makes meanwhile (input_required: an elicitation). */
	result = task_request(c, "tasks/result", id, deadline - now_s(), hooks, err);
	if (result)
		goto out;
out_cancel:
	if (client_alive(c))
		task_cancel(c, id);
out:
	json_decref(task);
	return result;
}

json_t *client_read_resource(struct client *c, const char *uri, double timeout_s,
			     const struct client_call_hooks *hooks, struct err *err)
{
	json_t *params = json_pack("{s:s}", "uri", uri);
	char what[600];

	snprintf(what, sizeof(what), "resources/read '%.500s'", uri);
	if (!params) {
		err_set(err, EXIT_FAILED, "server '%s': %s: out of memory", c->sc->name, what);
		return NULL;
	}
	return request(
	    c, "resources/read", params, what,
	    timeout_or(timeout_s, timeout_or(c->sc->timeout_s, CLIENT_DEFAULT_TIMEOUT_S)), hooks,
	    true, err);
}

json_t *client_get_prompt(struct client *c, const char *name, json_t *args, double timeout_s,
			  const struct client_call_hooks *hooks, struct err *err)
{
	char what[300];
	json_t *params;

	snprintf(what, sizeof(what), "prompts/get '%.200s'", name);
	params = json_pack("{s:s}", "name", name);
	if (!params || (args && json_object_set(params, "arguments", args))) {
		json_decref(params);
		err_set(err, EXIT_FAILED, "server '%s': %s: out of memory", c->sc->name, what);
		return NULL;
	}
	return request(
	    c, "prompts/get", params, what,
	    timeout_or(timeout_s, timeout_or(c->sc->timeout_s, CLIENT_DEFAULT_TIMEOUT_S)), hooks,
	    true, err);
}

bool client_alive(struct client *c)
{
	bool alive;

	pthread_mutex_lock(&c->lock);
	alive = c->alive;
	pthread_mutex_unlock(&c->lock);
	return alive;
}

const char *client_instructions(struct client *c)
{
	return c->instructions;
}

void client_abort(struct client *c, const char *why)
{
	pthread_mutex_lock(&c->lock);
	c->alive = false;
	snprintf(c->why, sizeof(c->why), "%s", why);
	fail_pending_locked(c);
	pthread_mutex_unlock(&c->lock);
}

void client_free(struct client *c)
{
	if (!c)
		return;
	stop_transport(c);
	server_log_close(c->log);
	pthread_cond_destroy(&c->worker_cond);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->reinit_lock);
	server_config_free(c->sc);
	free(c->log_path);
	free(c->instructions);
	json_decref(c->caps);
	free(c);
}
