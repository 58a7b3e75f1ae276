/* Requests of ours to the MCP host: what a server asks while a call made by
 * the host's execute_code is in flight (elicitation/create for the host's
 * user, sampling/createMessage for its model), forwarded on the session of
 * that call, and the host's answer handed back (servers/client.h,
 * struct client_asker). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../servers/client.h"
#include "mcp_i.h"

/* One request to the host waiting for its answer. */
struct mcp_ask {
	json_t *id;	  /* new: "mcpfs-ask-N" */
	json_t *response; /* new, once answered; protected by conn->lock */
	pthread_cond_t cond;
	struct mcp_ask *next; /* conn->asks; protected by conn->lock */
};

/* Whether the host declared what @method needs: sampling, or elicitation in
 * form mode ("elicitation": {} is form, as before modes existed). */
static bool host_can(struct mcp_conn *c, const char *method)
{
	json_t *el;
	bool can;

	pthread_mutex_lock(&c->lock);
	el = json_object_get(c->host_caps, "elicitation");
	if (!strcmp(method, "sampling/createMessage"))
		can = json_is_object(json_object_get(c->host_caps, "sampling"));
	else
		can = json_is_object(el) && (!json_object_size(el) || json_object_get(el, "form"));
	pthread_mutex_unlock(&c->lock);
	return can;
}

static void ask_unlink_locked(struct mcp_conn *c, struct mcp_ask *a)
{
	struct mcp_ask **pp;

	for (pp = &c->asks; *pp; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			return;
		}
}

/* The host's answer as the server gets it: its result (new), or NULL with
 * *code and @err. */
static json_t *outcome(json_t *response, int *code, struct err *err)
{
	json_t *error = json_object_get(response, "error");

	if (json_is_object(json_object_get(response, "result")))
		return json_incref(json_object_get(response, "result"));
	*code = error ? (int)json_integer_value(json_object_get(error, "code")) : 0;
	if (!*code)
		*code = -32603;
	err_set(err, EXIT_FAILED, "the MCP host: %s",
		json_string_value(json_object_get(error, "message")) ?: "no result");
	return NULL;
}

json_t *mcp_call_ask(void *ctx, const char *method, json_t *params, struct cancel *cancel,
		     int *code, struct err *err)
{
	struct mcp_call *call = ctx;
	struct mcp_conn *c = call->conn;
	struct mcp_ask a = {0};
	struct cancel_wait cw = {.lock = &c->lock, .cond = &a.cond};
	char id[64];
	json_t *msg, *out = NULL, *fwd;
	bool watching, ended;

	*code = 0;
	if (!host_can(c, method)) {
		if (!strcmp(method, "elicitation/create"))
			return NULL; /* mcpfs answers the form as without a host */
		*code = -32601;
		err_set(err, EXIT_FAILED,
			"the MCP host that ran this code (%s) does not offer sampling",
			c->host_name[0] ? c->host_name : "unnamed");
		return NULL;
	}
	/* The server's _meta (its progress token, its task) means nothing to
	 * the host. */
	fwd = json_is_object(params) ? json_deep_copy(params) : json_object();
	if (fwd)
		json_object_del(fwd, "_meta");
	pthread_mutex_lock(&c->lock);
	snprintf(id, sizeof(id), "mcpfs-ask-%u", ++c->asks_made);
	a.id = json_string(id);
	ended = c->closed;
	pthread_mutex_unlock(&c->lock);
	msg = a.id && fwd ? json_pack("{s:s,s:O,s:s,s:O}", "jsonrpc", "2.0", "id", a.id, "method",
				      method, "params", fwd)
			  : NULL;
	json_decref(fwd);
	if (!msg || ended) {
		json_decref(msg);
		json_decref(a.id);
		*code = -32603;
		err_set(err, EXIT_FAILED, "%s",
			ended ? "the MCP session is closing" : "out of memory");
		return NULL;
	}
	pthread_cond_init(&a.cond, NULL);
	watching = cancel_watch(cancel, &cw);
	pthread_mutex_lock(&c->lock);
	a.next = c->asks;
	c->asks = &a;
	pthread_mutex_unlock(&c->lock);
	/* On the stream of the call that started the run (HTTP sends it
	 * there), as the spec relates a server's request to a client's. */
	if (watching)
		mcp_send(c, msg, call->id);
	json_decref(msg);
	pthread_mutex_lock(&c->lock);
	while (watching && !a.response && !c->closed && !cancel_fired(cancel))
		pthread_cond_wait(&a.cond, &c->lock);
	ask_unlink_locked(c, &a);
	ended = c->closed;
	pthread_mutex_unlock(&c->lock);
	if (watching)
		cancel_unwatch(cancel, &cw);
	if (a.response) {
		out = outcome(a.response, code, err);
	} else {
		if (watching && !ended) {
			msg = json_pack("{s:s,s:s,s:{s:O,s:s}}", "jsonrpc", "2.0", "method",
					"notifications/cancelled", "params", "requestId", a.id,
					"reason", "the call that asked ended");
			mcp_send(c, msg, call->id);
			json_decref(msg);
		}
		*code = -32603;
		err_set(err, EXIT_FAILED, "%s",
			ended ? "the MCP session ended before the host answered"
			      : "the call ended before the host answered");
	}
	json_decref(a.response);
	json_decref(a.id);
	pthread_cond_destroy(&a.cond);
	return out;
}

bool mcp_conn_answered(struct mcp_conn *c, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	struct mcp_ask *a;

	if (!json_is_string(id))
		return false;
	pthread_mutex_lock(&c->lock);
	for (a = c->asks; a; a = a->next)
		if (json_equal(a->id, id) && !a->response) {
			a->response = json_incref(msg);
			pthread_cond_signal(&a->cond);
			break;
		}
	pthread_mutex_unlock(&c->lock);
	return a != NULL;
}

void mcp_asks_wake_locked(struct mcp_conn *c)
{
	struct mcp_ask *a;

	for (a = c->asks; a; a = a->next)
		pthread_cond_signal(&a->cond);
}
