/* The bridge: a unix socket through which generated code calls tools.
 *
 * Wire protocol (shared with templates/_runtime.py and _runtime.ts):
 * newline-delimited JSON-RPC 2.0 over a SOCK_STREAM unix socket whose path is
 * in $MCPFS_BRIDGE. The first request on every connection is
 *   {"jsonrpc":"2.0","id":0,"method":"auth","params":{"token":"<$MCPFS_BRIDGE_TOKEN>"}}
 * answered {"result":{}} or an error, after which the server closes. Then:
 *   tools/call       {"server": <configured name>, "name": <MCP tool name>,
 *                     "arguments": {...}}  -> the MCP CallToolResult
 *   tools/search     {"query": s, "detail": "name"|"summary"|"full",
 *                     "limit": n, "regex": bool} -> {"results": [...],
 *                     "hint"?} as search_query (search/search.h)
 *   resources/read   {"server": <configured name>, "uri": s} -> the MCP
 *                     ReadResourceResult ({"contents": [...]})
 *   prompts/get      {"server": <configured name>, "name": s, "arguments":
 *                     {s: s}} -> the MCP GetPromptResult ({"messages": [...]})
 *   checkpoint/set   {"step": n, "last_task": s, "context": {...}} -> {}
 *   checkpoint/get   {} -> the checkpoint object, or null
 * While a tools/call waits, the server's progress on it (its notifications,
 * a task's status messages) may come as
 *   {"method": "notifications/progress", "params": {"id": <the request's id>,
 *    "server", "tool", "progress", "total"?, "message"?}}
 * sent only when the connection has room at once: progress may be lost.
 * Several requests may be in flight on one connection; replies carry their
 * ids and may come in any order. Errors are JSON-RPC errors with a one-line
 * message. Lines are capped (MCPFS_BRIDGE_MAX_LINE); a longer one is an error.
 *
 * Budgets bound what a run's code can make mcpfs hold, outside the run's
 * own memory limit: requests and replies in memory at once (bridge_opts.
 * budget; past it a request or reply fails with an error and the run goes
 * on), 32 tool calls, resource reads and prompts in flight (more wait
 * their turn), 256 connections, and a connection that has not
 * authenticated within 4 KiB and 5 s is closed. */
#ifndef MCPFS_EXECUTOR_BRIDGE_H
#define MCPFS_EXECUTOR_BRIDGE_H

#define BRIDGE_ENV_SOCKET "MCPFS_BRIDGE"
#define BRIDGE_ENV_TOKEN "MCPFS_BRIDGE_TOKEN"
#define MCPFS_BRIDGE_MAX_LINE (16u << 20)

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"

struct client_asker;
struct hub;
struct search_source;
struct ws;
struct bridge;

/* Told of every tools/call the bridge answered, from the thread that served
 * it: the MCP names, whether it succeeded, how long it took. Must not block. */
typedef void (*bridge_call_fn)(void *ctx, const char *server, const char *tool, bool ok, double ms);

struct bridge_opts {
	struct hub *hub;       /* borrowed; outlives the bridge */
	const char *token;     /* copied; the secret every connection must present first */
	const char *customer;  /* copied; hub_call_opts.customer, NULL: none */
	const char *workspace; /* copied; hub_call_opts.workspace, NULL: none */
	const struct ws *ws;   /* borrowed; checkpoints go to its session log; NULL: refused */
	const char *session;   /* copied; the session the checkpoints belong to */
	double call_timeout_s; /* per tools/call; <= 0: the server's configured timeout */
	double deadline_s;     /* clock_now_s() by which every call ends; 0: none */
	size_t max_result;     /* cap on one reply line; 0: MCPFS_BRIDGE_MAX_LINE */
	size_t max_records;    /* calls bridge_calls lists; 0: 100,000 */
	size_t budget; /* bytes the run's requests and replies may hold at once; 0: 64 MiB */
	bridge_call_fn on_call; /* NULL: none */
	void *on_call_ctx;
	/* borrowed; answers tools/search; NULL: refused */
	const struct search_source *search;
	/* borrowed; answers what servers ask during the calls (elicitation,
	 * sampling): servers/client.h; NULL: mcpfs answers */
	const struct client_asker *asker;
};

/* Listen on @path (a stale socket there is replaced; mode 0600) and serve in
 * threads of its own until bridge_free. NULL with @err. */
struct bridge *bridge_new(const char *path, const struct bridge_opts *o, struct err *err);

/* The same on @lfd, a unix socket already listening (a jail's, made in its
 * own root: jail_spec.listen_path), owned by the bridge from here on, even
 * when this fails. NULL with @err. */
struct bridge *bridge_adopt(int lfd, const struct bridge_opts *o, struct err *err);

/* tools/call requests answered so far (results and errors). */
size_t bridge_ncalls(struct bridge *b);

/* A new array of the first max_records calls answered, in the order they
 * finished: {"server", "tool", "duration_ms", "ok"}. NULL on allocation
 * failure. */
json_t *bridge_calls(struct bridge *b);

/* A new array summing every call answered so far, listed or not, per tool in
 * the order first called: {"server", "tool", "calls", "failed",
 * "duration_ms"}. Past 1,000 tools the rest are summed under server and tool
 * "*". NULL on allocation failure. */
json_t *bridge_calls_by_tool(struct bridge *b);

/* Stop accepting, close every connection, cancel calls in flight (their
 * servers get notifications/cancelled; nobody is left to read the results)
 * and wait for them to return, remove the socket. Idempotent; bridge_ncalls
 * and the call lists stay valid, cancelled calls listed as failed. */
void bridge_stop(struct bridge *b);

/* bridge_stop, then free. Accepts NULL. */
void bridge_free(struct bridge *b);

/* Fill @out (at least 33 bytes) with a new random token of 32 hex digits.
 * Returns 0 or -errno. */
int bridge_token_new(char *out, size_t n);

#endif
