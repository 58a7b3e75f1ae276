/* The tools mcpfs offers a model, one table: name, description (when to use
 * it, its limits), input and output schemas, annotations, and the function.
 * Each tool lives in a tools_<group>.c file. */
#ifndef MCPFS_SERVE_TOOLS_H
#define MCPFS_SERVE_TOOLS_H

#include <jansson.h>
#include <stdbool.h>

#include "../common/err.h"
#include "../workspaces/workspace.h"

struct serve_engine;
struct mcp_call;

/* Annotation hints (MCP ToolAnnotations). */
enum {
	TOOL_READ_ONLY = 1u << 0,
	TOOL_DESTRUCTIVE = 1u << 1,
	TOOL_IDEMPOTENT = 1u << 2,
	TOOL_OPEN_WORLD = 1u << 3,
};

/* What a tool function gets. */
struct tool_ctx {
	struct serve_engine *e;
	const char *customer; /* decided by the front (token or --customer), never by the model */
	const char *session;
	struct mcp_call *call;
	int ws_hold; /* the workspace held since tool_ws (workspaces/idle.h), else -1 */
};

/* What a tool function gives: the structured result (new; the text content
 * is its JSON unless @text is set), and a text for the model (new, malloc'd)
 * when plain text reads better. */
struct tool_out {
	json_t *structured;
	char *text;
	bool is_error; /* a result that reports failure (isError) */
	/* Work the answer need not wait for (a run's task record): called with
	 * @after_ctx once the answer is sent, whether the function failed or
	 * not, before the call ends; it frees @after_ctx. get_session waits for
	 * it (mcp_call_wait_after). NULL: none. */
	void (*after)(void *ctx);
	void *after_ctx;
};

struct serve_tool {
	const char *name, *title, *description;
	const char *input_schema;  /* JSON text */
	const char *output_schema; /* JSON text, or NULL */
	unsigned hints;
	/* @args validated against input_schema. Returns 0, or -1 with @err: the
	 * model sees the text as an isError result. */
	int (*fn)(struct tool_ctx *t, json_t *args, struct tool_out *out, struct err *err);
};

/* The tool named @name, or NULL. */
const struct serve_tool *serve_tool_find(const char *name);
/* The tools/list result's "tools" array: a new reference to one built once. */
json_t *serve_tools_list(void);
/* Check @args against @t's input schema (the subset the table uses: type
 * object, properties with type string/integer/number/boolean/array/object,
 * enum, required, additionalProperties false, maxLength, minimum/maximum).
 * Returns 0 or -1 with @err naming the argument. */
int serve_tool_check(const struct serve_tool *t, json_t *args, struct err *err);

/* The customer's workspace paths (created if missing), held for the rest of
 * the call: the idle sweep leaves it mounted. 0 or -1 with @err. */
int tool_ws(struct tool_ctx *t, struct ws *ws, struct err *err);

/* The groups' tables, joined by tools.c. */
extern const struct serve_tool tools_exec[], tools_search[], tools_catalog[], tools_files[],
    tools_skills[], tools_session[];

#endif
