/* The MCP server protocol, independent of transport: one connection (an MCP
 * session) takes JSON-RPC messages in and sends replies and notifications
 * out through its transport's send function. initialize (with instructions),
 * ping, tools/list, tools/call (every tool in a thread of its own, so the
 * reader stays free for notifications/cancelled), resources/list,
 * resources/read, resources/templates/list; notifications/cancelled stops a
 * call; notifications/resources/list_changed goes out when a catalog
 * changes. Malformed input gets a JSON-RPC error. */
#ifndef MCPFS_SERVE_MCP_H
#define MCPFS_SERVE_MCP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"

struct serve_engine;
struct mcp_conn;

/* The protocol versions answered; the first is offered when the client asks
 * for one we do not speak. */
extern const char *const mcp_protocol_versions[];

struct mcp_conn_ops {
	/* Send @msg (borrowed) to the client. @rel is the id of the request the
	 * message answers or belongs to (its result, its progress), NULL for
	 * one that belongs to none (list_changed). Called from any thread, one
	 * message at a time per connection. */
	void (*send)(void *ctx, json_t *msg, const json_t *rel);
	void *ctx;
};

/* A new connection for @customer (copied) in MCP session @session (copied;
 * NULL: a new id), which is also the session log's id. @ops is copied; its
 * ctx must stay valid until mcp_conn_close returns. Joins the engine's
 * broadcast list. NULL with @err. */
struct mcp_conn *mcp_conn_new(struct serve_engine *e, const char *customer, const char *session,
			      const struct mcp_conn_ops *ops, struct err *err);

/* Handle one message (borrowed). Requests are answered through send, now or
 * later from another thread (tools/call). */
void mcp_conn_handle(struct mcp_conn *c, json_t *msg);
/* The same from text; text that is not JSON gets a parse error (-32700). */
void mcp_conn_handle_text(struct mcp_conn *c, const char *text, size_t len);

/* True for a JSON-RPC request (method and id), false for a notification or
 * a response. */
bool mcp_is_request(const json_t *msg);

/* Cancel every call in flight (their runs are stopped) and wait until none
 * is left; nothing is sent after this returns. Leaves the broadcast list.
 * Idempotent. */
void mcp_conn_close(struct mcp_conn *c);
/* Close, then drop the caller's reference. Accepts NULL. */
void mcp_conn_free(struct mcp_conn *c);

const char *mcp_conn_session(const struct mcp_conn *c);
const char *mcp_conn_customer(const struct mcp_conn *c);
bool mcp_conn_initialized(const struct mcp_conn *c);
/* The protocol version agreed in initialize, or NULL before. */
const char *mcp_conn_protocol(const struct mcp_conn *c);
/* Calls in flight. */
size_t mcp_conn_busy(struct mcp_conn *c);

#endif
