/* Session logs: <ws>/sessions/<session>.json, one JSON document per session
 * with the fields people know from the pattern: session_id, customer_uid,
 * started_at, ended_at, tasks[], state_files, checkpoint {step, last_task,
 * context, timestamp}. Every write is atomic (temp, fsync, rename). Safe for
 * several processes at once (a lock file beside the log). */
#ifndef MCPFS_WORKSPACES_SESSION_H
#define MCPFS_WORKSPACES_SESSION_H

#include <jansson.h>
#include <stddef.h>

#include "../common/err.h"
#include "workspace.h"

/* Append one task record (borrowed) to the session's log, creating the log
 * if needed. The executor builds the record: task_id, description, code,
 * result, output, tool_calls[{server, tool, duration_ms, ok}] (the first
 * calls), tool_calls_by_tool[{server, tool, calls, failed, duration_ms}]
 * (every call), exit_code, started_at, ended_at. A record past 1 MiB is cut
 * down (code, output, then the list of calls), never dropped for its size
 * alone; tool_calls_dropped says how many calls the list leaves out.
 * Returns 0 or -1 with @err. */
int session_append_task(const struct ws *ws, const char *session_id, json_t *task, struct err *err);

/* The tool calls a task record made and how many failed: from its per-tool
 * summary, which counts every call; a record without one (written before
 * there was one), from its list. */
void session_task_calls(json_t *task, json_int_t *calls, json_int_t *failed);

/* The checkpoint of a session: a new reference, json null when none, or NULL
 * with @err. */
json_t *session_checkpoint_get(const struct ws *ws, const char *session_id, struct err *err);

/* Set the checkpoint (borrowed object with step, last_task, context; the
 * timestamp is added here). Returns 0 or -1 with @err. */
int session_checkpoint_set(const struct ws *ws, const char *session_id, json_t *checkpoint,
			   struct err *err);

/* The whole log: a new reference, or NULL with @err (EXIT_USAGE when the
 * session does not exist). */
json_t *session_load(const struct ws *ws, const char *session_id, struct err *err);

/* Every session of the customer, newest first: a new array of
 * {session_id, started_at, ended_at, tasks (count), updated_at}, or NULL. */
json_t *session_list(const struct ws *ws, struct err *err);

/* Set ended_at; later appends to the session are refused. Ending an ended
 * session is a no-op. Returns 0 or -1 with @err. */
int session_end(const struct ws *ws, const char *session_id, struct err *err);

#endif
