/* mcpfs config: the config files found on this machine (mcpfs's own and other
 * MCP hosts'), the servers each defines, and the one in use. Reading a host's
 * file never makes it the one in use: that stays --config or "imports". */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CONFIG_SOURCES_MAX 16

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mcpfs config [--json]\n\n"
		"Show the config in use and the MCP config files found on this machine:\n"
		"mcpfs's own (--config, $MCPFS_CONFIG, ./mcpfs.json,\n"
		"~/.config/mcpfs/config.json) and those of Claude Desktop, Claude Code\n"
		"(./.mcp.json, ~/.claude.json), VS Code (./.vscode/mcp.json, the user's\n"
		"mcp.json), Cursor and Windsurf, with the servers each defines. To use one:\n"
		"--config PATH, or \"imports\": [\"claude-desktop\", \"./.mcp.json\"] in mcpfs's\n"
		"own config.\n\n"
		"  --json  one object {in_use, servers, sources: [{name, host, path, found,\n"
		"          servers, error}]}\n");
}

/* The servers of @cfg: [{"name", "disabled"?}]. New. */
static json_t *servers_json(const struct config *cfg)
{
	json_t *arr = json_array(), *o;
	size_t i;

	for (i = 0; arr && i < cfg->nservers; i++) {
		o = json_pack("{s:s}", "name", cfg->servers[i].name);
		if (o && cfg->servers[i].disabled)
			json_object_set_new(o, "disabled", json_string(cfg->servers[i].disabled));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *source_json(const struct config_source *src)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:b}", "name", src->name, "host", src->host, "path",
			      src->path, "found", src->found);
	struct config cfg = {0};
	struct err e = {0};

	if (!o || !src->found)
		return o;
	if (config_load(&cfg, src->path, &e) < 0) {
		json_object_set_new(o, "error", json_string(e.text));
		return o;
	}
	json_object_set_new(o, "servers", servers_json(&cfg));
	config_free(&cfg);
	return o;
}

static void print_servers(const json_t *servers)
{
	const json_t *s;
	size_t i;

	json_array_foreach(servers, i, s)
	    printf("%s%s%s", i ? ", " : "", json_string_value(json_object_get(s, "name")),
		   json_object_get(s, "disabled") ? " (disabled)" : "");
	printf("\n");
}

static void print_text(const json_t *o)
{
	const json_t *src;
	size_t i;

	printf("in use: %s\n  servers: ", json_string_value(json_object_get(o, "in_use")));
	print_servers(json_object_get(o, "servers"));
	printf("sources:\n");
	json_array_foreach(json_object_get(o, "sources"), i, src)
	{
		printf("  %-17s %-5s %s  (%s)\n", json_string_value(json_object_get(src, "name")),
		       json_is_true(json_object_get(src, "found")) ? "found" : "-",
		       json_string_value(json_object_get(src, "path")),
		       json_string_value(json_object_get(src, "host")));
		if (json_object_get(src, "error"))
			printf("    error: %s\n", json_string_value(json_object_get(src, "error")));
		else if (json_object_get(src, "servers")) {
			printf("    servers: ");
			print_servers(json_object_get(src, "servers"));
		}
	}
	printf("to use one: mcpfs --config PATH, or \"imports\": [\"NAME\" or \"PATH\", ...] in "
	       "mcpfs's own config\n");
}

int cmd_config(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct config_source srcs[CONFIG_SOURCES_MAX];
	const struct config *cfg;
	bool as_json = false;
	json_t *o, *arr;
	size_t i, n;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option("config", argv);
		}
	}
	if (optind < argc)
		return cli_bad_args("config");
	cfg = cli_config(cli);
	if (!cfg)
		return EXIT_USAGE;
	n = config_sources(srcs, CONFIG_SOURCES_MAX);
	arr = json_array();
	for (i = 0; arr && i < n; i++)
		json_array_append_new(arr, source_json(&srcs[i]));
	o = json_pack("{s:s, s:o, s:o}", "in_use", cfg->origin, "servers", servers_json(cfg),
		      "sources", arr);
	if (!o) {
		cli_error("config: out of memory");
		return EXIT_FAILED;
	}
	if (as_json)
		return cli_print_json(o);
	print_text(o);
	json_decref(o);
	return 0;
}
