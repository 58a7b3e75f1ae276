/* The bridge's methods (the protocol is in bridge.h): one function each,
 * found through one table. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "../common/clock.h"
#include "../search/search.h"
#include "../servers/hub.h"
#include "../workspaces/session.h"
#include "bridge_i.h"

const char *bridge_plain_string(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	const char *s = json_string_value(v);

	return s && strlen(s) == json_string_length(v) ? s : NULL;
}

/* Each call in flight holds its result whole until it is answered: at most
 * BRIDGE_MAX_CALLS at once per run, the rest wait their turn. False when the
 * bridge stops meanwhile. */
static bool slot_take(struct bridge *b)
{
	bool ok;

	pthread_mutex_lock(&b->lock);
	while (b->calls >= BRIDGE_MAX_CALLS && !cancel_fired(&b->cancel))
		pthread_cond_wait(&b->slot, &b->lock);
	ok = !cancel_fired(&b->cancel);
	b->calls += ok;
	pthread_mutex_unlock(&b->lock);
	return ok;
}

static void slot_give(struct bridge *b)
{
	pthread_mutex_lock(&b->lock);
	b->calls--;
	pthread_cond_signal(&b->slot);
	pthread_mutex_unlock(&b->lock);
}

/* What a call from the run's code carries to the hub: its budget of time,
 * the run's cancellation, whose it is, and the fast path of its result. */
static void call_opts(struct bridge *b, struct request *rq, struct hub_call_opts *o)
{
	o->timeout_s = b->call_timeout_s;
	o->deadline_s = b->deadline_s;
	o->hooks.cancel = &b->cancel;
	o->hooks.asker = b->asker;
	o->customer = b->customer;
	o->workspace = b->workspace;
	o->session = b->session;
	o->origin = "bridge";
	if (rq->id) {
		o->hooks.result = bridge_pass_result;
		o->hooks.result_ctx = rq;
	}
}

/* A tools/call's progress, for client_call_hooks.progress. */
struct call_progress {
	struct bridge *b;
	struct request *rq;
	const char *server, *tool;
};

/* Progress of a call goes to the code that made it, as a notification on
 * its connection ("id": the code's request), and to the host behind the
 * run (the asker). Dropped, not waited for, when the code's connection has
 * no room: a later one says more. */
static void pass_progress(void *ctx, double progress, double total, const char *message)
{
	const struct call_progress *cp = ctx;
	const struct client_asker *host = cp->b->asker;
	json_t *n = json_pack("{s:s,s:s,s:{s:O,s:s,s:s,s:f}}", "jsonrpc", "2.0", "method",
			      "notifications/progress", "params", "id", cp->rq->id, "server",
			      cp->server, "tool", cp->tool, "progress", progress);
	json_t *p = json_object_get(n, "params");

	if (p && total >= 0)
		json_object_set_new(p, "total", json_real(total));
	if (p && message)
		json_object_set_new(p, "message", json_string(message));
	if (n && cp->rq->id)
		bridge_try_send(cp->rq->c, n);
	json_decref(n);
	if (host && host->progress)
		host->progress(host->ctx, cp->server, cp->tool, progress, total, message);
}

static json_t *m_tools_call(struct bridge *b, struct request *rq, json_t *params, int *code,
			    struct err *err)
{
	const char *server = bridge_plain_string(params, "server");
	const char *tool = bridge_plain_string(params, "name");
	json_t *args = json_object_get(params, "arguments");
	struct call_progress cp = {b, rq, server, tool};
	struct hub_call_opts o = {0};
	struct hub_call_note note = {0};
	struct bridge_call_audit au = {0};
	json_t *res;
	double t0, ms;
	int sent = 0;
	bool ok;

	if (!server || !tool || (args && !json_is_object(args) && !json_is_null(args))) {
		*code = RPC_PARAMS;
		err_set(err, EXIT_USAGE,
			"tools/call needs string server and name, object arguments");
		return NULL;
	}
	call_opts(b, rq, &o);
	o.hooks.progress = pass_progress;
	o.hooks.progress_ctx = &cp;
	o.note = &note;
	t0 = clock_now_ms();
	if (!slot_take(b)) {
		*code = RPC_FAILED;
		err_set(err, EXIT_FAILED, "tools/call '%s' cancelled: the run is ending", tool);
		return NULL;
	}
	res = hub_call(b->hub, server, tool, json_is_object(args) ? args : NULL, &o, err);
	slot_give(b);
	ms = clock_now_ms() - t0;
	ok = res && !json_is_true(json_object_get(res, "isError"));
	/* Not passed on by pass_result: reply here, so that a result over the
	 * cap, which the code gets as an error, is recorded as one. */
	if (res && rq->id && !rq->replied) {
		sent = bridge_reply_result(rq->c, rq->id, res);
		rq->replied = sent != -ENOMEM;
		ok = ok && sent != -E2BIG;
	}
	*code = RPC_FAILED;
	au = (struct bridge_call_audit){args, NULL, note.decision, note.start_ms};
	if (!res)
		au.error = err->text;
	else if (sent == -E2BIG)
		au.error = "the result was over the run's reply cap";
	else if (!ok)
		au.error = json_string_value(json_object_get(
			       json_array_get(json_object_get(res, "content"), 0), "text"))
			       ?: "the tool reported an error";
	bridge_account_add(&b->account, server, tool, ok, ms, &au);
	if (b->on_call)
		b->on_call(b->on_call_ctx, server, tool, ok, ms);
	return res;
}

/* A URI as RFC 3986 begins one (a scheme, then ':'), without spaces or
 * control characters. */
static bool uri_plain(const char *s)
{
	const char *p = s;

	if (!s || !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return false;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '+' || *p == '-' || *p == '.')
		p++;
	if (*p != ':')
		return false;
	for (; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return false;
	return true;
}

static json_t *m_resources_read(struct bridge *b, struct request *rq, json_t *params, int *code,
				struct err *err)
{
	const char *server = bridge_plain_string(params, "server");
	const char *uri = bridge_plain_string(params, "uri");
	struct hub_call_opts o = {0};
	json_t *res;

	*code = RPC_PARAMS;
	if (!server || !json_is_string(json_object_get(params, "uri"))) {
		err_set(err, EXIT_USAGE, "resources/read needs string server and uri");
		return NULL;
	}
	if (!uri_plain(uri)) {
		err_set(err, EXIT_USAGE,
			"'%.200s' is not a URI (scheme:rest, without spaces or "
			"control characters)",
			json_string_value(json_object_get(params, "uri")));
		return NULL;
	}
	*code = RPC_FAILED;
	call_opts(b, rq, &o);
	if (!slot_take(b)) {
		err_set(err, EXIT_FAILED, "resources/read '%.200s' cancelled: the run is ending",
			uri);
		return NULL;
	}
	res = hub_read_resource(b->hub, server, uri, &o, err);
	slot_give(b);
	return res;
}

/* An object of strings: what prompts/get takes as arguments. */
static bool string_map(json_t *v)
{
	const char *key;
	json_t *item;

	if (!json_is_object(v))
		return false;
	json_object_foreach(v, key, item) if (!json_is_string(item)) return false;
	return true;
}

static json_t *m_prompts_get(struct bridge *b, struct request *rq, json_t *params, int *code,
			     struct err *err)
{
	const char *server = bridge_plain_string(params, "server");
	const char *name = bridge_plain_string(params, "name");
	json_t *args = json_object_get(params, "arguments");
	struct hub_call_opts o = {0};
	json_t *res;

	*code = RPC_PARAMS;
	if (!server || !name || (args && !json_is_null(args) && !string_map(args))) {
		err_set(err, EXIT_USAGE,
			"prompts/get needs string server and name, arguments an object of strings");
		return NULL;
	}
	*code = RPC_FAILED;
	call_opts(b, rq, &o);
	if (!slot_take(b)) {
		err_set(err, EXIT_FAILED, "prompts/get '%.200s' cancelled: the run is ending",
			name);
		return NULL;
	}
	res = hub_get_prompt(b->hub, server, name, json_is_object(args) ? args : NULL, &o, err);
	slot_give(b);
	return res;
}

static json_t *m_checkpoint_set(struct bridge *b, struct request *rq, json_t *params, int *code,
				struct err *err)
{
	(void)rq;
	*code = RPC_FAILED;
	if (!b->ws || !b->session) {
		err_set(err, EXIT_USAGE, "checkpoints need a customer workspace and a session");
		return NULL;
	}
	if (!json_is_object(params)) {
		*code = RPC_PARAMS;
		err_set(err, EXIT_USAGE, "checkpoint/set needs an object");
		return NULL;
	}
	if (session_checkpoint_set(b->ws, b->session, params, err) < 0)
		return NULL;
	return json_object();
}

static json_t *m_checkpoint_get(struct bridge *b, struct request *rq, json_t *params, int *code,
				struct err *err)
{
	(void)rq;
	(void)params;
	*code = RPC_FAILED;
	if (!b->ws || !b->session) {
		err_set(err, EXIT_USAGE, "checkpoints need a customer workspace and a session");
		return NULL;
	}
	return session_checkpoint_get(b->ws, b->session, err);
}

static json_t *m_tools_search(struct bridge *b, struct request *rq, json_t *params, int *code,
			      struct err *err)
{
	struct search_opts o = {.detail = SEARCH_DETAIL_SUMMARY};
	const char *query = bridge_plain_string(params, "query");
	const char *detail = bridge_plain_string(params, "detail");
	json_t *limit = json_object_get(params, "limit");

	(void)rq;
	*code = RPC_PARAMS;
	if (!query || (detail && search_detail_parse(detail, &o.detail)) ||
	    (limit && (!json_is_integer(limit) || json_integer_value(limit) < 1 ||
		       json_integer_value(limit) > SEARCH_LIMIT_MAX))) {
		err_set(err, EXIT_USAGE,
			"tools/search needs a string query, detail name|summary|full, limit 1-%d",
			SEARCH_LIMIT_MAX);
		return NULL;
	}
	o.limit = limit ? (size_t)json_integer_value(limit) : 0;
	o.regex = json_is_true(json_object_get(params, "regex"));
	*code = RPC_FAILED;
	if (!b->search) {
		err_set(err, EXIT_USAGE, "tool search is not offered here");
		return NULL;
	}
	return b->search->query(b->search->ctx, query, &o, err);
}

static const struct bridge_method methods[] = {
    {"tools/call", m_tools_call},	  {"tools/search", m_tools_search},
    {"resources/read", m_resources_read}, {"prompts/get", m_prompts_get},
    {"checkpoint/set", m_checkpoint_set}, {"checkpoint/get", m_checkpoint_get},
};

const struct bridge_method *bridge_method_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(methods) / sizeof(methods[0]); i++)
		if (!strcmp(name, methods[i].name))
			return &methods[i];
	return NULL;
}
