/* search_tools: the tool index (search/search.h) over every server's tools. */
#include <string.h>

#include "../policy/policy.h"
#include "../search/search.h"
#include "engine.h"
#include "tools.h"

static int search_tools(struct tool_ctx *t, json_t *args, struct tool_out *out, struct err *err)
{
	const char *detail = json_string_value(json_object_get(args, "detail_level")) ?: "summary";
	json_t *limit = json_object_get(args, "limit");
	struct search_opts o = {
	    .limit = limit ? (size_t)json_integer_value(limit) : 0,
	    .regex = json_is_true(json_object_get(args, "regex")),
	};

	if (search_detail_parse(detail, &o.detail) < 0)
		return err_set(err, EXIT_USAGE, "detail_level must be name, summary or full");
	out->structured = search_hub_query(
	    t->e->search, json_string_value(json_object_get(args, "query")), &o, err);
	/* The customer finds what it may call, as its runs' tree shows. */
	policy_filter_results(policy_rules(t->e->o.policy, t->customer), t->e->o.hub,
			      out->structured);
	return out->structured ? 0 : -1;
}

const struct serve_tool tools_search[] = {
    {
	.name = "search_tools",
	.title = "Search the tools",
	.description =
	    "Find the tools that fit a task across every server, best first: describe the task "
	    "in a few words (\"list open issues\", \"send email\"). detail_level name gives "
	    "server.tool only, summary (default) adds a one-line summary, full adds the "
	    "description, the import line and the signature; limit 1-100 (default 5). A query no "
	    "tool fits returns no results and a hint. regex: true takes the query as a "
	    "case-insensitive regular expression over names and descriptions. Then import the "
	    "tools in execute_code (from servers.<server> import <tool>).",
	.input_schema =
	    "{\"type\":\"object\",\"properties\":{"
	    "\"query\":{\"type\":\"string\",\"maxLength\":4096},"
	    "\"detail_level\":{\"type\":\"string\",\"enum\":[\"name\",\"summary\",\"full\"],"
	    "\"default\":\"summary\"},"
	    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":5},"
	    "\"regex\":{\"type\":\"boolean\",\"default\":false}},"
	    "\"required\":[\"query\"],\"additionalProperties\":false}",
	.output_schema =
	    "{\"type\":\"object\",\"properties\":{\"results\":{\"type\":\"array\",\"items\":{"
	    "\"type\":\"object\",\"properties\":{\"server\":{\"type\":\"string\"},"
	    "\"tool\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"},"
	    "\"score\":{\"type\":\"number\"}},\"required\":[\"server\",\"tool\",\"name\"]}},"
	    "\"hint\":{\"type\":\"string\"},\"skipped\":{\"type\":\"array\"}},"
	    "\"required\":[\"results\"]}",
	.hints = TOOL_READ_ONLY | TOOL_IDEMPOTENT,
	.fn = search_tools,
    },
    {0},
};
