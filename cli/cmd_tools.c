/* mcpfs tools [SERVER]: the live tool catalog of every server, or of one. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../servers/hub_progress.h"
#include "cli.h"

#define SUMMARY_MAX 100

static void usage(FILE *f)
{
	fprintf(f, "usage: mcpfs tools [SERVER] [--json] [--timeout S]\n\n"
		   "List the tools of every configured server (started in parallel), or of\n"
		   "SERVER. Text: one line per tool, \"SERVER TOOL SUMMARY\". A server that\n"
		   "cannot be reached (or is disabled: an unset ${VAR}) is reported on stderr\n"
		   "and the others still listed (exit 3). Tools mcpfs skipped (not usable, a\n"
		   "repeated name, nested too deep) are named on stderr with why.\n\n"
		   "  --json       one JSON array of MCP Tool objects, each plus \"server\"\n"
		   "  --timeout S  how long to wait for the servers (default 30 s)\n");
}

/* The first line of the description (or the title), cut at SUMMARY_MAX. */
static void summary(const json_t *tool, char *out, size_t n)
{
	const char *d = json_string_value(json_object_get(tool, "description"));
	size_t k;

	if (!d || !*d)
		d = json_string_value(json_object_get(tool, "title"));
	if (!d)
		d = "";
	while (*d == ' ' || *d == '\n')
		d++;
	k = strcspn(d, "\r\n");
	if (k >= n)
		k = n - 1;
	memcpy(out, d, k);
	out[k] = '\0';
	if (k == n - 1 && k > 3)
		memcpy(out + k - 3, "...", 3);
}

/* Print or collect the tools of one server. */
static void emit(const char *server, json_t *tools, json_t *arr)
{
	char sum[SUMMARY_MAX + 1];
	json_t *tool, *copy;
	size_t i;

	json_array_foreach(tools, i, tool)
	{
		if (arr) {
			copy = json_copy(tool);
			if (copy && !json_object_set_new(copy, "server", json_string(server)))
				json_array_append_new(arr, copy);
			else
				json_decref(copy);
			continue;
		}
		summary(tool, sum, sizeof(sum));
		printf("%s %s %s\n", server,
		       json_string_value(json_object_get(tool, "name")) ?: "?", sum);
	}
}

/* The same through a running daemon, whose servers are warm. */
static int tools_daemon(int fd, const char *only, double timeout, json_t *arr)
{
	json_t *p = json_pack("{s:f}", "timeout_s", timeout), *list, *v;
	struct err e = {0};
	size_t i;
	int rc = 0;

	if (p && only)
		json_object_set_new(p, "server", json_string(only));
	list = cli_daemon_request(fd, "tools", p, &e);
	if (!list)
		return cli_fail(&e);
	json_array_foreach(list, i, v)
	{
		const char *name = json_string_value(json_object_get(v, "name"));

		if (json_object_get(v, "tools")) {
			emit(name, json_object_get(v, "tools"), arr);
			continue;
		}
		err_set(&e, (int)json_integer_value(json_object_get(v, "status")) ?: EXIT_FAILED,
			"%s%s", only ? "" : "tools: ",
			json_string_value(json_object_get(v, "error")) ?: "failed");
		rc = cli_fail(&e);
	}
	json_decref(list);
	return rc;
}

/* The tools mcpfs could not use, one line each on stderr. */
static void warn_skipped(struct hub *h, const char *server)
{
	json_t *notes = hub_notes(h, server), *s;
	size_t i;

	json_array_foreach(json_object_get(notes, "skipped"), i, s)
	    cli_error("tools: server '%s': skipped tool '%s': %s", server,
		      json_string_value(json_object_get(s, "name")),
		      json_string_value(json_object_get(s, "why")));
	json_decref(notes);
}

int cmd_tools(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"timeout", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *only = NULL;
	struct hub_server_info in;
	struct err e = {0};
	double timeout = 30;
	bool as_json = false;
	json_t *arr = NULL, *tools;
	int c, rc = 0, fd;
	struct hub *h;
	struct hub_progress *pr;
	size_t i;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = true;
			break;
		case 't':
			if (cli_positive("tools", "--timeout", optarg, 86400, &timeout))
				return EXIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option("tools", argv);
		}
	}
	if (optind < argc)
		only = argv[optind++];
	if (optind < argc) {
		cli_error("tools: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (!cli_config(cli))
		return EXIT_USAGE;
	if (only && !config_find(cli_config(cli), only)) {
		cli_error("tools: no server named '%s' in %s", only, cli_config(cli)->origin);
		return EXIT_USAGE;
	}
	if (as_json)
		arr = json_array();
	if ((fd = cli_daemon_connect(cli)) >= 0) {
		rc = tools_daemon(fd, only, timeout, arr);
		close(fd);
		if (arr)
			cli_print_json(arr);
		return rc;
	}
	h = cli_hub_new(cli, -1);
	if (!h) {
		json_decref(arr);
		return EXIT_USAGE;
	}
	if (!only) {
		pr = hub_progress_start(h, STDERR_FILENO);
		hub_connect_all(h, timeout);
		hub_progress_stop(pr);
	}
	for (i = 0; i < hub_count(h); i++) {
		const char *name = hub_name(h, i);

		if (only && strcmp(only, name))
			continue;
		/* After hub_connect_all a failed server keeps its error: asking
		 * again would only start it a second time. */
		hub_info(h, name, &in);
		if (!only && in.state == HUB_FAILED) {
			cli_error("tools: %s", in.why);
			rc = EXIT_UNREACHABLE;
			continue;
		}
		pr = only ? hub_progress_start(h, STDERR_FILENO) : NULL;
		tools = hub_tools(h, name, NULL, &e);
		hub_progress_stop(pr);
		if (!tools) {
			rc = cli_fail(&e);
			continue;
		}
		emit(name, tools, arr);
		json_decref(tools);
		warn_skipped(h, name);
	}
	if (arr)
		cli_print_json(arr);
	/* Servers may take seconds to stop: show the answer first. */
	fflush(stdout);
	hub_free(h);
	return rc;
}
