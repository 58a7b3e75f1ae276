/* The control socket: <root>/run/serve.sock (mode 0600, the daemon's user
 * only), through which `mcpfs exec`, `call`, `tools` and `servers` of the
 * same data root use a running daemon, whose servers are warm. Newline-delimited JSON-RPC:
 *   call {server, tool, arguments, customer?, timeout_s?, start_timeout_s?}
 *     -> CallToolResult (start_timeout_s bounds starting the server)
 *   exec {code, language, customer?, session?, description?, record,
 *         timeout_s?, memory_mb?} -> {result: the exec --json object, status}
 *   servers {timeout_s?} -> [{name, state, generation, ntools, why, log_tail}]
 *   tools {server?, timeout_s?} -> [{name, tools} | {name, error, status}]
 *   retire {customer} -> {}: its parked jails are gone (its workspace grows)
 * Errors are JSON-RPC errors whose data.status is the exit status. An exec
 * whose client hangs up is cancelled. One daemon holds the socket; a second
 * on the same data root serves its fronts without one. */
#ifndef MCPFS_SERVE_CONTROL_H
#define MCPFS_SERVE_CONTROL_H

#include <stdbool.h>

#include "../common/err.h"

struct serve_engine;
struct control;

#define CONTROL_SOCKET "run/serve.sock"

/* Listen; NULL with @err (*@taken set, no error, when a live daemon already
 * holds the socket). */
struct control *control_start(struct serve_engine *e, bool *taken, struct err *err);
/* Stop listening, cancel execs in flight, wait for every connection, remove
 * the socket. Accepts NULL. */
void control_stop(struct control *c);

#endif
