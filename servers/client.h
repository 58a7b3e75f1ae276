/* One connection to one MCP server: the protocol over a transport.
 * Thread-safe: any number of threads may call at once; calls are matched to
 * replies by id. */
#ifndef MCPFS_SERVERS_CLIENT_H
#define MCPFS_SERVERS_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/cancel.h"
#include "../common/err.h"
#include "config.h"

struct client;

/* Called on a server notification the client does not consume itself, from a
 * transport thread. The list_changed notifications of tools, resources and
 * prompts are consumed: each triggers on_list_changed. */
struct client_events {
	void *ctx;
	void (*on_list_changed)(void *ctx);	       /* the catalog must be re-listed */
	void (*on_closed)(void *ctx, const char *why); /* the connection died */
};

/* Progress of one call: (progress, total or -1, message or NULL). Called from
 * a transport thread with the client's lock held: it must not call the client
 * or the hub. */
typedef void (*client_progress_fn)(void *ctx, double progress, double total, const char *message);

/* Who answers, in mcpfs's place, what a server asks while a call is in
 * flight and only a person or a model can answer: elicitation/create (form
 * mode) for the user of an MCP host, sampling/createMessage for its model.
 * ask runs on a thread of the client's own and may block until @cancel
 * fires (the call ended). Returns the new result object for the server; or
 * NULL with *code a JSON-RPC error code and @err its message; or NULL with
 * *code 0 when it cannot answer this one: mcpfs then answers as it does
 * without an asker (a form with its defaults or declined; sampling
 * refused). */
struct client_asker {
	json_t *(*ask)(void *ctx, const char *method, json_t *params, struct cancel *cancel,
		       int *code, struct err *err);
	void *ctx;
	/* Told of the progress of each tools/call made for it (the server's
	 * notifications, a task's status messages), with the configured server
	 * and MCP tool names, as client_progress_fn: must not block. NULL: not
	 * told. */
	void (*progress)(void *ctx, const char *server, const char *tool, double progress,
			 double total, const char *message);
};

/* What a caller of client_call_tool hears of its call on the connection's
 * reader thread. */
struct client_call_hooks {
	client_progress_fn progress; /* progress notifications; NULL: none asked for */
	void *progress_ctx;
	/* The CallToolResult (borrowed) the moment it arrives, before the
	 * caller's thread is woken, with no lock held: for a caller that can
	 * pass it on sooner than it can be woken. At most once; must not block
	 * or call the client or the hub. client_call_tool returns the result
	 * all the same. */
	void (*result)(void *ctx, json_t *result);
	void *result_ctx;
	/* Borrowed; when it fires, the call stops waiting: the server gets
	 * notifications/cancelled and the call fails. NULL: none. */
	struct cancel *cancel;
	/* Borrowed; answers the server's requests that belong to this call.
	 * Which call a request belongs to, MCP does not say on every
	 * transport: a request goes to an asker only when every call in
	 * flight on the connection has that same asker. NULL: none. */
	const struct client_asker *asker;
};

/* New, not yet connected. @sc is copied. @log_path receives the server's
 * stderr (stdio) and protocol faults; NULL for none. */
struct client *client_new(const struct server_config *sc, const char *log_path,
			  const struct client_events *ev);

/* Start the transport and run initialize/initialized with version
 * negotiation. Returns 0 or -1 with @err (EXIT_UNREACHABLE). */
int client_connect(struct client *c, struct err *err);

/* The lists a server may offer. */
enum client_list {
	CLIENT_LIST_TOOLS,     /* tools/list: Tool objects */
	CLIENT_LIST_RESOURCES, /* resources/list: Resource objects */
	CLIENT_LIST_TEMPLATES, /* resources/templates/list: ResourceTemplate objects */
	CLIENT_LIST_PROMPTS,   /* prompts/list: Prompt objects */
};

/* One list, following every nextCursor. Returns a new array of the objects
 * as the server sent them, or NULL with @err, also when the pages together
 * pass the config's max_tools (the most items of any one list) or
 * max_catalog_bytes. */
json_t *client_list(struct client *c, enum client_list what, struct err *err);

/* The method of a list ("resources/list"); static. */
const char *client_list_method(enum client_list what);

/* client_list(c, CLIENT_LIST_TOOLS, err). */
json_t *client_list_tools(struct client *c, struct err *err);

/* Whether the server declared @capability ("resources", "prompts", ...; a
 * dotted path names a member inside one: "tasks.requests.tools.call") at
 * initialize. */
bool client_offers(struct client *c, const char *capability);

/* tools/call. @args is borrowed (NULL: {}). @timeout_s <= 0 uses the config's.
 * @hooks may be NULL. On timeout sends notifications/cancelled. Returns the
 * new CallToolResult object (isError may be true: that is a result, not an
 * error), or NULL with @err (EXIT_FAILED for a JSON-RPC error,
 * EXIT_UNREACHABLE when the server is gone or timed out). */
json_t *client_call_tool(struct client *c, const char *tool, json_t *args, double timeout_s,
			 const struct client_call_hooks *hooks, struct err *err);

/* tools/call as a task (a tool whose execution.taskSupport asks or allows it): the
 * server answers with a task, polled with tasks/get at its own interval
 * (each status message goes to hooks->progress), then tasks/result gives
 * the CallToolResult. On timeout or cancellation the server gets
 * tasks/cancel. Same contract as client_call_tool. */
json_t *client_call_tool_task(struct client *c, const char *tool, json_t *args, double timeout_s,
			      const struct client_call_hooks *hooks, struct err *err);

/* resources/read of @uri: the new ReadResourceResult ({"contents": [...]}),
 * or NULL with @err (EXIT_FAILED for a JSON-RPC error such as an unknown
 * resource, EXIT_UNREACHABLE when the server is gone or timed out). @hooks
 * as for client_call_tool (its result hook is not used). */
json_t *client_read_resource(struct client *c, const char *uri, double timeout_s,
			     const struct client_call_hooks *hooks, struct err *err);

/* prompts/get of prompt @name with @args (borrowed; an object of strings,
 * NULL: none): the new GetPromptResult ({"description"?, "messages"}), or
 * NULL with @err, as client_read_resource. */
json_t *client_get_prompt(struct client *c, const char *name, json_t *args, double timeout_s,
			  const struct client_call_hooks *hooks, struct err *err);

bool client_alive(struct client *c);
/* The "instructions" the server gave at initialize, or NULL; borrowed, valid
 * while connected. */
const char *client_instructions(struct client *c);

/* Mark the connection dead and fail every pending request at once with @why
 * (shutdown), without freeing it: requests in other threads return. */
void client_abort(struct client *c, const char *why);

/* Close stdin, SIGTERM, SIGKILL (stdio) or DELETE the session (HTTP); fails
 * pending calls at once; then frees. Accepts NULL. */
void client_free(struct client *c);

#endif
