/* list_servers and get_tool_definitions: the catalog as the tree shows it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../policy/policy.h"
#include "../servers/hub.h"
#include "catalog.h"
#include "engine.h"
#include "tools.h"

#define DEFINITIONS_MAX 50
#define DEFINITION_BYTES (1u << 20)

static const char *const state_names[] = {
    [HUB_IDLE] = "idle",
    [HUB_STARTING] = "starting",
    [HUB_READY] = "ready",
    [HUB_FAILED] = "failed",
};

static int list_servers(struct tool_ctx *t, json_t *args, struct tool_out *out, struct err *err)
{
	const struct cg_root *root = serve_catalog_root(t->e->catalog);
	struct hub_server_info info;
	json_t *arr = json_array(), *s;
	size_t i;

	(void)args;
	for (i = 0; arr && i < hub_count(t->e->o.hub); i++) {
		if (!policy_server_open(policy_rules(t->e->o.policy, t->customer),
					hub_name(t->e->o.hub, i)))
			continue; /* closed to this customer: not named */
		memset(&info, 0, sizeof(info));
		hub_info(t->e->o.hub, hub_name(t->e->o.hub, i), &info);
		s = json_pack("{s:s,s:s,s:s,s:I,s:s}", "name", hub_name(t->e->o.hub, i), "module",
			      cg_root_server_ident(root, i), "state", state_names[info.state],
			      "tools", (json_int_t)info.ntools, "readme", "");
		if (s) {
			char readme[300];

			snprintf(readme, sizeof(readme), "servers/%s/README.md",
				 cg_root_server_ident(root, i));
			json_object_set_new(s, "readme", json_string(readme));
			if (info.state == HUB_FAILED && info.why[0])
				json_object_set_new(s, "why", json_string(info.why));
		}
		if (json_array_append_new(arr, s)) {
			json_decref(arr);
			arr = NULL;
		}
	}
	out->structured = arr ? json_pack("{s:o}", "servers", arr) : NULL;
	return out->structured ? 0 : err_set(err, EXIT_FAILED, "out of memory");
}

/* Split "server.tool" where the part before a dot names a server. */
static long split_name(struct serve_catalog *c, const char *full, const char **tool)
{
	char server[256];
	const char *dot;
	size_t len;
	long i;

	for (dot = strchr(full, '.'); dot; dot = strchr(dot + 1, '.')) {
		len = (size_t)(dot - full);
		if (len >= sizeof(server))
			break;
		memcpy(server, full, len);
		server[len] = '\0';
		i = serve_catalog_server(c, server);
		if (i >= 0) {
			*tool = dot + 1;
			return i;
		}
	}
	return -1;
}

static int definition(struct tool_ctx *t, const char *full, const char *ext, json_t *defs,
		      struct buf *text, struct err *err)
{
	struct serve_catalog *c = t->e->catalog;
	const struct cg_root *root = serve_catalog_root(c);
	char ident[256], path[600];
	struct err e = {0};
	const char *tool = NULL;
	struct buf b;
	long i = split_name(c, full, &tool);
	int rc;

	if (i < 0)
		return err_set(err, EXIT_USAGE,
			       "'%.200s' names no server: write server.tool (list_servers names "
			       "the servers)",
			       full);
	rc = serve_catalog_tool_ident(c, (size_t)i, tool, ident, sizeof(ident), &e);
	if (rc == -EHOSTUNREACH)
		return err_set(err, EXIT_UNREACHABLE, "server '%s' cannot be reached: %s",
			       cg_root_server_name(root, (size_t)i), e.text[0] ? e.text : "down");
	/* A tool the customer may not call reads as one that is not there. */
	if (rc || policy_hides(policy_rules(t->e->o.policy, t->customer), t->e->o.hub,
			       cg_root_server_name(root, (size_t)i), tool))
		return err_set(err, EXIT_USAGE,
			       "server '%s' has no tool '%.200s'; search_tools or its README "
			       "names its tools",
			       cg_root_server_name(root, (size_t)i), tool);
	snprintf(path, sizeof(path), "servers/%s/%s%s", cg_root_server_ident(root, (size_t)i),
		 ident, ext);
	buf_init(&b, DEFINITION_BYTES);
	rc = serve_catalog_render(c, path, &b);
	if (!rc) {
		json_array_append_new(defs,
				      json_pack("{s:s,s:s,s:s,s:s,s:s}", "name", full, "server",
						cg_root_server_name(root, (size_t)i), "tool", tool,
						"file", path, "definition", b.data ? b.data : ""));
		buf_printf(text, "# %s (%s)\n%s\n", full, path, b.data ? b.data : "");
	}
	buf_free(&b);
	return rc ? err_set(err, EXIT_FAILED, "render %s: %s", path, strerror(-rc)) : 0;
}

static int get_tool_definitions(struct tool_ctx *t, json_t *args, struct tool_out *out,
				struct err *err)
{
	json_t *names = json_object_get(args, "tools"), *defs = json_array(), *v;
	const char *lang = json_string_value(json_object_get(args, "language")) ?: "python";
	const char *ext = !strcmp(lang, "typescript") ? ".ts"
			  : !strcmp(lang, "json")     ? ".json"
						      : ".py";
	struct buf text;
	size_t i;
	int rc = 0;

	if (!defs)
		return err_set(err, EXIT_FAILED, "out of memory");
	if (!json_array_size(names)) {
		json_decref(defs);
		return err_set(err, EXIT_USAGE, "tools is empty: name at least one server.tool");
	}
	buf_init(&text, (size_t)DEFINITIONS_MAX * DEFINITION_BYTES);
	json_array_foreach(names, i, v)
	{
		if ((rc = definition(t, json_string_value(v), ext, defs, &text, err)) < 0)
			break;
	}
	if (rc < 0) {
		json_decref(defs);
		buf_free(&text);
		return -1;
	}
	out->structured = json_pack("{s:o}", "tools", defs);
	out->text = buf_steal(&text, NULL);
	return out->structured && out->text ? 0 : err_set(err, EXIT_FAILED, "out of memory");
}

const struct serve_tool tools_catalog[] = {
    {
	.name = "list_servers",
	.title = "List the MCP servers",
	.description =
	    "List the MCP servers this mcpfs connects to: each one's configured name, the "
	    "module to import it from (servers.<module>), its state (idle until first used, "
	    "ready, failed with why) and how many tools it has. Start here to see what is "
	    "available; then read a server's README resource or search_tools.",
	.input_schema = "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	.output_schema =
	    "{\"type\":\"object\",\"properties\":{\"servers\":{\"type\":\"array\",\"items\":{"
	    "\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
	    "\"module\":{\"type\":\"string\"},\"state\":{\"type\":\"string\"},"
	    "\"tools\":{\"type\":\"integer\"},\"readme\":{\"type\":\"string\"},"
	    "\"why\":{\"type\":\"string\"}},"
	    "\"required\":[\"name\",\"module\",\"state\",\"tools\",\"readme\"]}}},"
	    "\"required\":[\"servers\"]}",
	.hints = TOOL_READ_ONLY | TOOL_IDEMPOTENT,
	.fn = list_servers,
    },
    {
	.name = "get_tool_definitions",
	.title = "Show tools' code signatures",
	.description =
	    "Show the generated code for tools: the typed function signature, its parameters "
	    "and docs, and the import line, exactly as the file in the tree. Name each tool "
	    "as \"server.tool\" (the configured server name or its module, then the MCP tool "
	    "name or its identifier). Use it before writing code that calls a tool you have "
	    "not used yet. At most 50 tools per call; language python (default), typescript, or "
	    "json (the tool's MCP definition).",
	.input_schema =
	    "{\"type\":\"object\",\"properties\":{"
	    "\"tools\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"maxLength\":512},"
	    "\"maxItems\":50,\"description\":\"[\\\"server.tool\\\", ...]\"},"
	    "\"language\":{\"type\":\"string\",\"enum\":[\"python\",\"typescript\",\"json\"],"
	    "\"default\":\"python\"}},"
	    "\"required\":[\"tools\"],\"additionalProperties\":false}",
	.output_schema =
	    "{\"type\":\"object\",\"properties\":{\"tools\":{\"type\":\"array\",\"items\":{"
	    "\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
	    "\"server\":{\"type\":\"string\"},\"tool\":{\"type\":\"string\"},"
	    "\"file\":{\"type\":\"string\"},\"definition\":{\"type\":\"string\"}},"
	    "\"required\":[\"name\",\"server\",\"tool\",\"file\",\"definition\"]}}},"
	    "\"required\":[\"tools\"]}",
	.hints = TOOL_READ_ONLY | TOOL_IDEMPOTENT,
	.fn = get_tool_definitions,
    },
    {0},
};
