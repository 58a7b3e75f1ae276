/* get_session: what this session did, from its log (workspaces/session.h). */
#include <stdio.h>
#include <string.h>

#include "../workspaces/session.h"
#include "mcp_i.h"
#include "tools.h"

#define TASKS_MAX 100 /* the newest tasks shown */

static int get_session(struct tool_ctx *t, json_t *args, struct tool_out *out, struct err *err)
{
	json_t *log, *tasks, *list, *task, *cp;
	json_int_t calls, failed, all_calls = 0, all_failed = 0;
	size_t i, n, from;
	struct err e = {0};
	struct ws ws;

	(void)args;
	if (tool_ws(t, &ws, err) < 0)
		return -1;
	/* Runs answered on this connection write their task records after the
	 * answer: what the client was told ran is in the log. */
	mcp_call_wait_after(t->call);
	log = session_load(&ws, t->session, &e);
	if (!log && e.status != EXIT_USAGE) {
		*err = e;
		return -1;
	}
	tasks = json_object_get(log, "tasks");
	list = json_array();
	n = json_array_size(tasks);
	from = n > TASKS_MAX ? n - TASKS_MAX : 0;
	for (i = 0; list && i < n; i++) {
		task = json_array_get(tasks, i);
		session_task_calls(task, &calls, &failed);
		all_calls += calls;
		all_failed += failed;
		if (i < from)
			continue;
		json_array_append_new(
		    list,
		    json_pack("{s:O,s:O,s:O,s:O,s:O,s:I,s:I}", "task_id",
			      json_object_get(task, "task_id") ?: json_null(), "description",
			      json_object_get(task, "description") ?: json_null(), "exit_code",
			      json_object_get(task, "exit_code") ?: json_null(), "started_at",
			      json_object_get(task, "started_at") ?: json_null(), "ended_at",
			      json_object_get(task, "ended_at") ?: json_null(), "tool_calls", calls,
			      "failed_calls", failed));
	}
	cp = json_object_get(log, "checkpoint");
	out->structured = json_pack("{s:s,s:s,s:I,s:o,s:I,s:I,s:O,s:O}", "session_id", t->session,
				    "customer", t->customer, "task_count", (json_int_t)n, "tasks",
				    list, "tool_calls", all_calls, "failed_calls", all_failed,
				    "started_at", json_object_get(log, "started_at") ?: json_null(),
				    "checkpoint", cp ? cp : json_null());
	json_decref(log);
	return out->structured ? 0 : err_set(err, EXIT_FAILED, "out of memory");
}

const struct serve_tool tools_session[] = {
    {
	.name = "get_session",
	.title = "This session's history",
	.description =
	    "Show what this session did so far: each execute_code run (description, exit "
	    "code, times, tool calls and failed calls; the newest 100), the totals, and the "
	    "checkpoint your code saved. Use it to pick up where you left off.",
	.input_schema = "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	.output_schema =
	    "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},"
	    "\"customer\":{\"type\":\"string\"},\"task_count\":{\"type\":\"integer\"},"
	    "\"tasks\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
	    "\"tool_calls\":{\"type\":\"integer\"},\"failed_calls\":{\"type\":\"integer\"},"
	    "\"started_at\":{\"type\":[\"string\",\"null\"]},"
	    "\"checkpoint\":{\"type\":[\"object\",\"null\"]}},"
	    "\"required\":[\"session_id\",\"customer\",\"task_count\",\"tasks\","
	    "\"tool_calls\",\"failed_calls\"]}",
	.hints = TOOL_READ_ONLY,
	.fn = get_session,
    },
    {0},
};
