/* The protocol core: method tables, initialize, tools, resources, and the
 * calls in flight with their cancellation. */
#include "mcp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/clock.h"
#include "../executor/run.h"
#include "../workspaces/idle.h"
#include "../workspaces/session.h"
#include "catalog.h"
#include "engine.h"
#include "mcp_i.h"
#include "tools.h"

#define MCP_CALLS_MAX 64	 /* tools/call in flight per connection */
#define RESOURCES_PAGE 500	 /* resources per resources/list page */
#define RESOURCE_MAX (16u << 20) /* bytes of one rendered file */
#define URI_PREFIX "mcpfs:///"

enum {
	RPC_PARSE = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_NO_METHOD = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL = -32603,
	RPC_NO_RESOURCE = -32002,
};

const char *const mcp_protocol_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
					     NULL};

static const char instructions[] =
    "mcpfs turns every MCP server configured here into importable code and runs your code "
    "against them in a sandbox. The pattern:\n"
    "1. Find tools: list_servers and search_tools, or read the resources (README.md, then "
    "servers/<server>/README.md); get_tool_definitions shows a tool's signature and docs.\n"
    "2. Write Python that imports them (from servers.<server> import <tool>; TypeScript: "
    "import * as s from \"./servers/<server>\") and run it with execute_code.\n"
    "3. Filter, join and aggregate in the code and print only what matters: output is cut "
    "past a cap, and the whole of it is saved in the workspace.\n"
    "4. The working directory is your workspace and persists between runs; save code you will "
    "reuse as a skill (save_skill) and import it as skills.<name>.";

/* A method's handler: computes the result (new) or sets an error. */
struct rpc_err {
	int code;
	char text[ERR_TEXT_MAX];
};

static json_t *rpc_fail(struct rpc_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static json_t *rpc_fail(struct rpc_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	return NULL;
}

void mcp_conn_ref(struct mcp_conn *c)
{
	pthread_mutex_lock(&c->lock);
	c->refs++;
	pthread_mutex_unlock(&c->lock);
}

void mcp_conn_unref(struct mcp_conn *c)
{
	bool last;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	last = --c->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (!last)
		return;
	pthread_cond_destroy(&c->idle);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->send_lock);
	json_decref(c->host_caps);
	free(c);
}

void mcp_send(struct mcp_conn *c, json_t *msg, const json_t *rel)
{
	bool closed;

	pthread_mutex_lock(&c->send_lock);
	pthread_mutex_lock(&c->lock);
	closed = c->closed;
	pthread_mutex_unlock(&c->lock);
	if (!closed && msg)
		c->ops.send(c->ops.ctx, msg, rel);
	pthread_mutex_unlock(&c->send_lock);
}

static void reply(struct mcp_conn *c, const json_t *id, json_t *result)
{
	json_t *msg = json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id, "result", result);

	mcp_send(c, msg, id);
	json_decref(msg);
}

static void reply_error(struct mcp_conn *c, const json_t *id, int code, const char *text)
{
	json_t *msg = json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id",
				id ? id : json_null(), "error", "code", code, "message", text);

	mcp_send(c, msg, id);
	json_decref(msg);
}

struct mcp_conn *mcp_conn_new(struct serve_engine *e, const char *customer, const char *session,
			      const struct mcp_conn_ops *ops, struct err *err)
{
	struct mcp_conn *c;

	if (!id_valid(customer, "customer", err) || (session && !id_valid(session, "session", err)))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	c->e = e;
	c->ops = *ops;
	c->refs = 1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->send_lock, NULL);
	pthread_cond_init(&c->idle, NULL);
	snprintf(c->customer, sizeof(c->customer), "%s", customer);
	if (session)
		snprintf(c->session, sizeof(c->session), "%s", session);
	else if (run_id_new(c->session, sizeof(c->session)) < 0) {
		err_set(err, EXIT_FAILED, "getrandom: %s", strerror(errno));
		mcp_conn_unref(c);
		return NULL;
	}
	if (serve_engine_attach(e, c) < 0) {
		err_set(err, EXIT_FAILED, "out of memory");
		mcp_conn_unref(c);
		return NULL;
	}
	c->attached = true;
	return c;
}

const char *mcp_conn_session(const struct mcp_conn *c)
{
	return c->session;
}

const char *mcp_conn_customer(const struct mcp_conn *c)
{
	return c->customer;
}

bool mcp_conn_initialized(const struct mcp_conn *c)
{
	return c->initialized;
}

const char *mcp_conn_protocol(const struct mcp_conn *c)
{
	return c->protocol[0] ? c->protocol : NULL;
}

size_t mcp_conn_busy(struct mcp_conn *c)
{
	size_t n;

	pthread_mutex_lock(&c->lock);
	n = c->ncalls;
	pthread_mutex_unlock(&c->lock);
	return n;
}

bool mcp_is_request(const json_t *msg)
{
	return json_is_object(msg) && json_is_string(json_object_get(msg, "method")) &&
	       json_object_get(msg, "id");
}

/* Fire a call's cancel switch and stop its run. Under c->lock. */
static void call_cancel_locked(struct mcp_call *call)
{
	if (call->cancelled)
		return;
	call->cancelled = true;
	cancel_fire(&call->cancel);
	if (call->run)
		run_cancel(call->run);
}

bool mcp_call_run_begin(struct mcp_call *call, struct run *run)
{
	struct mcp_conn *c = call->conn;
	bool ok;

	pthread_mutex_lock(&c->lock);
	ok = !call->cancelled;
	if (ok) {
		call->run = run;
		call->started_s = call->sent_s = clock_now_s();
		call->progress = call->token != NULL;
	}
	pthread_mutex_unlock(&c->lock);
	return ok;
}

bool mcp_call_cancelled(struct mcp_call *call)
{
	bool cancelled;

	pthread_mutex_lock(&call->conn->lock);
	cancelled = call->cancelled;
	pthread_mutex_unlock(&call->conn->lock);
	return cancelled;
}

void mcp_call_wait_after(struct mcp_call *call)
{
	struct mcp_conn *c = call->conn;

	pthread_mutex_lock(&c->lock);
	while (c->afters)
		pthread_cond_wait(&c->idle, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

/* The progress of calls the ticker has not sent yet: sent now, before the
 * result, so that a client sees one notification per tool call. */
void mcp_call_run_end(struct mcp_call *call)
{
	struct mcp_conn *c = call->conn;
	unsigned calls, from, seq, i;
	double elapsed;
	bool progress;
	char text[128];
	json_t *msg;

	pthread_mutex_lock(&c->lock);
	/* What the ticker took goes out before the rest and the result: a
	 * progress notification after the result reaches no client. */
	while (call->progress_sending)
		pthread_cond_wait(&c->idle, &c->lock);
	call->run = NULL;
	progress = call->progress && !call->cancelled;
	call->progress = false;
	calls = atomic_load(&call->tool_calls);
	from = call->tool_calls_sent;
	seq = call->seq;
	call->tool_calls_sent = calls;
	call->seq += progress && calls > from ? calls - from : 0;
	elapsed = clock_now_s() - call->started_s;
	pthread_mutex_unlock(&c->lock);
	for (i = from + 1; progress && i <= calls; i++) {
		snprintf(text, sizeof(text), "%u tool call%s, %.1f s", i, i == 1 ? "" : "s",
			 elapsed);
		msg = json_pack("{s:s,s:s,s:{s:O,s:I,s:s}}", "jsonrpc", "2.0", "method",
				"notifications/progress", "params", "progressToken", call->token,
				"progress", (json_int_t)++seq, "message", text);
		mcp_send(c, msg, call->id);
		json_decref(msg);
	}
}

void mcp_call_progress_sent(struct mcp_call *call)
{
	struct mcp_conn *c = call->conn;

	pthread_mutex_lock(&c->lock);
	call->progress_sending--;
	pthread_cond_broadcast(&c->idle);
	pthread_mutex_unlock(&c->lock);
}

void mcp_conn_close(struct mcp_conn *c)
{
	struct mcp_call *call;

	if (!c)
		return;
	/* Closed first: no call starts and nothing more is sent; a cancelled
	 * call sends no reply anyway. */
	pthread_mutex_lock(&c->lock);
	c->closed = true;
	mcp_asks_wake_locked(c);
	for (call = c->calls; call; call = call->next)
		call_cancel_locked(call);
	while (c->ncalls)
		pthread_cond_wait(&c->idle, &c->lock);
	pthread_mutex_unlock(&c->lock);
	/* Waits for a send that began before the close. */
	pthread_mutex_lock(&c->send_lock);
	pthread_mutex_unlock(&c->send_lock);
	if (c->attached) {
		serve_engine_detach(c->e, c);
		c->attached = false;
	}
}

void mcp_conn_free(struct mcp_conn *c)
{
	if (!c)
		return;
	mcp_conn_close(c);
	mcp_conn_unref(c);
}

/* --- methods --- */

static json_t *m_initialize(struct mcp_conn *c, json_t *params, struct rpc_err *e)
{
	const char *asked = json_string_value(json_object_get(params, "protocolVersion"));
	const char *agreed = mcp_protocol_versions[0];
	size_t i;

	if (!json_is_object(params) || !asked)
		return rpc_fail(e, RPC_INVALID_PARAMS, "initialize wants params.protocolVersion");
	for (i = 0; mcp_protocol_versions[i]; i++)
		if (!strcmp(asked, mcp_protocol_versions[i]))
			agreed = mcp_protocol_versions[i];
	pthread_mutex_lock(&c->lock);
	snprintf(c->protocol, sizeof(c->protocol), "%s", agreed);
	c->initialized = true;
	/* What the host can do for the servers (elicitation, sampling): ask.c. */
	json_decref(c->host_caps);
	c->host_caps = json_deep_copy(json_object_get(params, "capabilities"));
	snprintf(c->host_name, sizeof(c->host_name), "%s",
		 json_string_value(json_object_get(json_object_get(params, "clientInfo"), "name"))
		     ?: "");
	pthread_mutex_unlock(&c->lock);
	return json_pack("{s:s,s:{s:{s:b},s:{s:b,s:b}},s:{s:s,s:s,s:s},s:s}", "protocolVersion",
			 agreed, "capabilities", "tools", "listChanged", 0, "resources",
			 "listChanged", 1, "subscribe", 0, "serverInfo", "name", "mcpfs", "title",
			 "mcpfs: every MCP server as importable code", "version", "0.1.0",
			 "instructions", instructions);
}

static json_t *m_ping(struct mcp_conn *c, json_t *params, struct rpc_err *e)
{
	(void)c;
	(void)params;
	(void)e;
	return json_object();
}

static json_t *m_tools_list(struct mcp_conn *c, json_t *params, struct rpc_err *e)
{
	json_t *tools = serve_tools_list();

	(void)c;
	(void)params;
	if (!tools)
		return rpc_fail(e, RPC_INTERNAL, "out of memory");
	return json_pack("{s:o}", "tools", tools);
}

static const char *mime_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot)
		return "text/plain";
	if (!strcmp(dot, ".md"))
		return "text/markdown";
	if (!strcmp(dot, ".py"))
		return "text/x-python";
	if (!strcmp(dot, ".ts"))
		return "text/x-typescript";
	if (!strcmp(dot, ".json"))
		return "application/json";
	return "text/plain";
}

static json_t *m_resources_list(struct mcp_conn *c, json_t *params, struct rpc_err *e)
{
	const char *cursor = json_string_value(json_object_get(params, "cursor"));
	json_t *files, *list, *res;
	char *end, uri[1200];
	size_t i, from = 0, n;
	unsigned long v;

	if (json_object_get(params, "cursor") && !cursor)
		return rpc_fail(e, RPC_INVALID_PARAMS, "cursor must be a string");
	if (cursor) {
		errno = 0;
		v = strtoul(cursor, &end, 10);
		if (errno || *end || end == cursor)
			return rpc_fail(e, RPC_INVALID_PARAMS, "cursor '%.64s' is not one of ours",
					cursor);
		from = v;
	}
	files = serve_catalog_files(c->e->catalog);
	list = json_array();
	if (!files || !list) {
		json_decref(files);
		json_decref(list);
		return rpc_fail(e, RPC_INTERNAL, "out of memory");
	}
	n = json_array_size(files);
	for (i = from; i < n && i < from + RESOURCES_PAGE; i++) {
		const char *path = json_string_value(json_array_get(files, i));

		snprintf(uri, sizeof(uri), URI_PREFIX "%s", path);
		json_array_append_new(list, json_pack("{s:s,s:s,s:s}", "uri", uri, "name", path,
						      "mimeType", mime_of(path)));
	}
	res = json_pack("{s:o}", "resources", list);
	if (res && i < n) {
		snprintf(uri, sizeof(uri), "%zu", i);
		json_object_set_new(res, "nextCursor", json_string(uri));
	}
	json_decref(files);
	return res;
}

static json_t *m_resources_read(struct mcp_conn *c, json_t *params, struct rpc_err *e)
{
	const char *uri = json_string_value(json_object_get(params, "uri"));
	const char *path;
	struct buf b;
	json_t *res;
	int rc;

	if (!uri)
		return rpc_fail(e, RPC_INVALID_PARAMS, "resources/read wants params.uri");
	if (strncmp(uri, URI_PREFIX, strlen(URI_PREFIX)))
		return rpc_fail(e, RPC_NO_RESOURCE,
				"no resource '%.200s': ours begin with " URI_PREFIX, uri);
	path = uri + strlen(URI_PREFIX);
	buf_init(&b, RESOURCE_MAX);
	rc = serve_catalog_render(c->e->catalog, path, &b);
	if (rc) {
		buf_free(&b);
		if (rc == -ENOENT || rc == -EISDIR)
			return rpc_fail(e, RPC_NO_RESOURCE, "no resource '%.200s'", uri);
		return rpc_fail(e, RPC_INTERNAL, "render %.200s: %s", path, strerror(-rc));
	}
	res = json_pack("{s:[{s:s,s:s,s:s%}]}", "contents", "uri", uri, "mimeType", mime_of(path),
			"text", b.data ? b.data : "", b.len);
	buf_free(&b);
	return res;
}

static json_t *m_resource_templates(struct mcp_conn *c, json_t *params, struct rpc_err *e)
{
	(void)c;
	(void)params;
	(void)e;
	return json_pack("{s:[]}", "resourceTemplates");
}

/* --- tools/call --- */

static json_t *tool_result(const struct serve_tool *tool, struct tool_out *out,
			   const struct err *err, bool failed)
{
	char *text;
	json_t *res;

	if (failed)
		return json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text", "text",
				 err->text[0] ? err->text : "failed", "isError", 1);
	text = out->text ? out->text : json_dumps(out->structured, JSON_INDENT(1));
	res = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text", "text", text ? text : "",
			"isError", out->is_error);
	if (res && tool->output_schema && out->structured)
		json_object_set(res, "structuredContent", out->structured);
	if (text != out->text)
		free(text);
	return res;
}

static void call_unlink(struct mcp_call *call)
{
	struct mcp_conn *c = call->conn;
	struct mcp_call **pp;

	pthread_mutex_lock(&c->lock);
	for (pp = &c->calls; *pp; pp = &(*pp)->next)
		if (*pp == call) {
			*pp = call->next;
			break;
		}
	c->ncalls--;
	pthread_cond_broadcast(&c->idle);
	pthread_mutex_unlock(&c->lock);
}

static void call_free(struct mcp_call *call)
{
	json_decref(call->id);
	json_decref(call->token);
	json_decref(call->args);
	cancel_destroy(&call->cancel);
	free(call);
}

static void *call_thread(void *arg)
{
	struct mcp_call *call = arg;
	struct mcp_conn *c = call->conn;
	struct tool_ctx t = {
	    .e = c->e, .customer = c->customer, .session = c->session, .call = call, .ws_hold = -1};
	struct tool_out out = {0};
	struct err err = {0};
	json_t *res;
	bool failed, cancelled;

	failed = call->tool->fn(&t, call->args, &out, &err) < 0;
	res = tool_result(call->tool, &out, &err, failed);
	cancelled = mcp_call_cancelled(call);
	/* Counted before the answer goes: a get_session sent after it waits. */
	if (out.after) {
		pthread_mutex_lock(&c->lock);
		c->afters++;
		pthread_mutex_unlock(&c->lock);
	}
	/* After notifications/cancelled the client expects no answer. */
	if (!cancelled) {
		if (res)
			reply(c, call->id, res);
		else
			reply_error(c, call->id, RPC_INTERNAL, "out of memory");
	} else {
		json_decref(res);
	}
	json_decref(out.structured);
	free(out.text);
	if (out.after) {
		out.after(out.after_ctx);
		pthread_mutex_lock(&c->lock);
		c->afters--;
		pthread_cond_broadcast(&c->idle);
		pthread_mutex_unlock(&c->lock);
	}
	ws_release(t.ws_hold);
	call_unlink(call);
	call_free(call);
	mcp_conn_unref(c);
	return NULL;
}

/* Starts the call's thread; the reply comes from it. Returns 0, or -1 with
 * @e when the call was refused before it began. */
static int tools_call(struct mcp_conn *c, json_t *id, json_t *params, struct rpc_err *e)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	json_t *args = json_object_get(params, "arguments");
	json_t *meta = json_object_get(params, "_meta");
	const struct serve_tool *tool;
	struct mcp_call *call;
	struct err err = {0};
	pthread_attr_t attr;
	pthread_t th;
	int rc;

	if (!name) {
		rpc_fail(e, RPC_INVALID_PARAMS, "tools/call wants params.name");
		return -1;
	}
	tool = serve_tool_find(name);
	if (!tool) {
		rpc_fail(e, RPC_INVALID_PARAMS, "unknown tool '%.100s'; tools/list names them",
			 name);
		return -1;
	}
	if (args && !json_is_object(args)) {
		rpc_fail(e, RPC_INVALID_PARAMS, "params.arguments must be an object");
		return -1;
	}
	call = calloc(1, sizeof(*call));
	if (!call) {
		rpc_fail(e, RPC_INTERNAL, "out of memory");
		return -1;
	}
	cancel_init(&call->cancel);
	call->conn = c;
	call->asker = (struct client_asker){mcp_call_ask, call, mcp_call_tool_progress};
	call->tool = tool;
	call->id = json_deep_copy(id);
	call->args = args ? json_deep_copy(args) : json_object();
	if (json_object_get(meta, "progressToken"))
		call->token = json_deep_copy(json_object_get(meta, "progressToken"));
	if (!call->id || !call->args) {
		call_free(call);
		rpc_fail(e, RPC_INTERNAL, "out of memory");
		return -1;
	}
	/* A bad argument is a result the model can read and fix (isError). */
	if (serve_tool_check(tool, call->args, &err) < 0) {
		struct tool_out none = {0};

		reply(c, id, tool_result(tool, &none, &err, true));
		call_free(call);
		return 0;
	}
	pthread_mutex_lock(&c->lock);
	if (c->closed || c->ncalls >= MCP_CALLS_MAX) {
		pthread_mutex_unlock(&c->lock);
		call_free(call);
		rpc_fail(e, RPC_INTERNAL, "%s",
			 c->closed
			     ? "the session is closing"
			     : "too many calls in flight on this session (64); wait for some");
		return -1;
	}
	call->next = c->calls;
	c->calls = call;
	c->ncalls++;
	c->refs++;
	pthread_mutex_unlock(&c->lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&th, &attr, call_thread, call);
	pthread_attr_destroy(&attr);
	if (rc) {
		call_unlink(call);
		call_free(call);
		mcp_conn_unref(c);
		rpc_fail(e, RPC_INTERNAL, "pthread_create: %s", strerror(rc));
		return -1;
	}
	return 0;
}

static void n_cancelled(struct mcp_conn *c, json_t *params)
{
	json_t *id = json_object_get(params, "requestId");
	struct mcp_call *call;

	if (!id)
		return;
	pthread_mutex_lock(&c->lock);
	for (call = c->calls; call; call = call->next)
		if (json_equal(call->id, id))
			call_cancel_locked(call);
	pthread_mutex_unlock(&c->lock);
}

static void n_initialized(struct mcp_conn *c, json_t *params)
{
	(void)c;
	(void)params;
}

static const struct method {
	const char *name;
	json_t *(*fn)(struct mcp_conn *c, json_t *params, struct rpc_err *e);
} methods[] = {
    {"initialize", m_initialize},	  {"ping", m_ping},
    {"tools/list", m_tools_list},	  {"resources/list", m_resources_list},
    {"resources/read", m_resources_read}, {"resources/templates/list", m_resource_templates},
};

static const struct notification {
	const char *name;
	void (*fn)(struct mcp_conn *c, json_t *params);
} notifications[] = {
    {"notifications/initialized", n_initialized},
    {"notifications/cancelled", n_cancelled},
};

static void handle_request(struct mcp_conn *c, const char *method, json_t *id, json_t *params)
{
	struct rpc_err e = {0};
	json_t *res;
	size_t i;

	if (strcmp(method, "initialize") && strcmp(method, "ping") && !c->initialized) {
		reply_error(c, id, RPC_INVALID_REQUEST, "send initialize first");
		return;
	}
	if (!strcmp(method, "tools/call")) {
		if (tools_call(c, id, params, &e) < 0)
			reply_error(c, id, e.code, e.text);
		return;
	}
	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (!strcmp(method, methods[i].name))
			break;
	if (i == sizeof(methods) / sizeof(methods[0])) {
		reply_error(c, id, RPC_NO_METHOD, "method not found");
		return;
	}
	res = methods[i].fn(c, params, &e);
	if (res)
		reply(c, id, res);
	else
		reply_error(c, id, e.code ? e.code : RPC_INTERNAL, e.text[0] ? e.text : "failed");
}

void mcp_conn_handle(struct mcp_conn *c, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	json_t *params = json_object_get(msg, "params");
	const char *method = json_string_value(json_object_get(msg, "method"));
	size_t i;

	if (!json_is_object(msg)) {
		reply_error(c, NULL, RPC_INVALID_REQUEST,
			    json_is_array(msg) ? "batches are not supported: send one message"
					       : "a message must be a JSON object");
		return;
	}
	if (!method) {
		/* A response to a request of ours (ask.c), or one too late for
		 * it. An error without an id is the client complaining: nothing
		 * to answer. */
		if (!id && !json_object_get(msg, "error") && !json_object_get(msg, "result"))
			reply_error(c, NULL, RPC_INVALID_REQUEST, "a message needs a method");
		else if (id)
			mcp_conn_answered(c, msg);
		return;
	}
	if (strcmp(json_string_value(json_object_get(msg, "jsonrpc")) ?: "", "2.0")) {
		reply_error(c, id, RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
		return;
	}
	if (params && !json_is_object(params)) {
		if (id)
			reply_error(c, id, RPC_INVALID_PARAMS, "params must be an object");
		return;
	}
	if (id) {
		if (!json_is_string(id) && !json_is_integer(id)) {
			reply_error(c, NULL, RPC_INVALID_REQUEST,
				    "id must be a string or an integer");
			return;
		}
		handle_request(c, method, id, params);
		return;
	}
	for (i = 0; i < sizeof(notifications) / sizeof(notifications[0]); i++)
		if (!strcmp(method, notifications[i].name))
			notifications[i].fn(c, params);
}

void mcp_conn_handle_text(struct mcp_conn *c, const char *text, size_t len)
{
	json_error_t je;
	json_t *msg = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	char why[ERR_TEXT_MAX];

	if (!msg) {
		snprintf(why, sizeof(why), "parse error: %s at line %d column %d", je.text, je.line,
			 je.column);
		reply_error(c, NULL, RPC_PARSE, why);
		return;
	}
	mcp_conn_handle(c, msg);
	json_decref(msg);
}
