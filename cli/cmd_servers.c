/* mcpfs servers: every configured server, connected in parallel, with its
 * transport, state and tool count; a broken one is reported beside the rest. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../servers/hub_progress.h"
#include "cli.h"

static const char *const state_names[] = {
    [HUB_IDLE] = "idle",
    [HUB_STARTING] = "starting",
    [HUB_READY] = "ready",
    [HUB_FAILED] = "failed",
};

static const char *const transport_names[] = {
    [TRANSPORT_STDIO] = "stdio",
    [TRANSPORT_HTTP] = "http",
    [TRANSPORT_SSE] = "sse",
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mcpfs servers [--json] [--check] [--names] [--timeout S]\n\n"
		   "Start every configured server in parallel and show its transport, state\n"
		   "and tool count. A server that fails or takes longer than the timeout\n"
		   "(default 30 s) is reported with the reason; the others are still shown.\n\n"
		   "  --json       one JSON array of {name, transport, scope, state, tools,\n"
		   "               generation, error, log, log_tail, sandbox}\n"
		   "  --check      exit 3 when a server is not ready (failed, disabled, or\n"
		   "               still starting at the timeout)\n"
		   "  --names      only the servers' names, one a line, none started\n"
		   "  --timeout S  how long to wait for all servers\n");
}

/* A server whose ${VAR}s are unset never starts: "disabled", not "failed". */
static const char *state_name(const struct server_config *sc, const struct hub_server_info *in)
{
	return sc->disabled ? "disabled" : state_names[in->state];
}

/* How a server's process runs: NULL for a remote one. */
static const char *sandbox_note(const struct server_config *sc)
{
	enum server_network net = sc->sandbox.network;

	if (sc->transport != TRANSPORT_STDIO)
		return NULL;
	if (sc->sandbox.off)
		return "NOT sandboxed (\"sandbox\": false)";
	if (net == SERVER_NET_DEFAULT)
		net = sc->scope == SCOPE_CUSTOMER ? SERVER_NET_NONE : SERVER_NET_HOST;
	return net == SERVER_NET_NONE ? "sandboxed, no network" : "sandboxed, host network";
}

static json_t *info_json(const struct server_config *sc, const struct hub_server_info *in)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:s}", "name", in->name, "transport",
			      transport_names[sc->transport], "scope",
			      sc->scope == SCOPE_CUSTOMER ? "customer" : "shared", "state",
			      state_name(sc, in), "generation", (json_int_t)in->generation, "log",
			      in->log_path ? in->log_path : "");

	if (!o)
		return NULL;
	json_object_set_new(o, "tools",
			    in->state == HUB_READY || in->ntools
				? json_integer((json_int_t)in->ntools)
				: json_null());
	json_object_set_new(o, "error", in->why[0] ? json_string(in->why) : json_null());
	json_object_set_new(o, "sandbox",
			    sandbox_note(sc) ? json_string(sandbox_note(sc)) : json_null());
	json_object_set_new(o, "log_tail",
			    in->log_tail[0] ? json_string(in->log_tail) : json_null());
	return o;
}

/* A daemon's answer for one server as the hub would give it. */
static void info_of(json_t *v, const struct server_config *sc, struct hub_server_info *in)
{
	memset(in, 0, sizeof(*in));
	in->name = sc->name;
	in->state = (enum hub_state)json_integer_value(json_object_get(v, "state"));
	if (in->state > HUB_FAILED)
		in->state = HUB_FAILED;
	in->generation = (uint64_t)json_integer_value(json_object_get(v, "generation"));
	in->ntools = (size_t)json_integer_value(json_object_get(v, "ntools"));
	snprintf(in->why, sizeof(in->why), "%s",
		 json_string_value(json_object_get(v, "why")) ?: "");
	snprintf(in->log_tail, sizeof(in->log_tail), "%s",
		 json_string_value(json_object_get(v, "log_tail")) ?: "");
}

int cmd_servers(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},  {"timeout", required_argument, NULL, 't'},
	    {"check", no_argument, NULL, 'k'}, {"names", no_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},  {NULL, 0, NULL, 0},
	};
	const struct config *cfg;
	struct hub_server_info in;
	double timeout = 30;
	bool as_json = false, check = false, names = false;
	size_t down = 0;
	struct hub_progress *pr;
	json_t *arr = NULL, *list = NULL;
	struct err e = {0};
	struct hub *h;
	size_t i;
	int c, fd;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = true;
			break;
		case 't':
			if (cli_positive("servers", "--timeout", optarg, 86400, &timeout))
				return EXIT_USAGE;
			break;
		case 'k':
			check = true;
			break;
		case 'n':
			names = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option("servers", argv);
		}
	}
	if (optind < argc) {
		cli_error("servers: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	cfg = cli_config(cli);
	if (cfg && names) {
		for (i = 0; i < cfg->nservers; i++)
			printf("%s\n", cfg->servers[i].name);
		return 0;
	}
	fd = cfg ? cli_daemon_connect(cli) : -1;
	if (fd >= 0) {
		list =
		    cli_daemon_request(fd, "servers", json_pack("{s:f}", "timeout_s", timeout), &e);
		close(fd);
		if (!list)
			return cli_fail(&e);
	}
	h = cfg && !list ? cli_hub_new(cli, -1) : NULL;
	if (!h && !list)
		return EXIT_USAGE;
	if (h) {
		pr = hub_progress_start(h, STDERR_FILENO);
		hub_connect_all(h, timeout);
		hub_progress_stop(pr);
	}
	if (as_json)
		arr = json_array();
	else
		printf("%-20s %-9s %-8s %5s  %s\n", "NAME", "TRANSPORT", "STATE", "TOOLS", "NOTE");
	for (i = 0; i < (list ? json_array_size(list) : hub_count(h)); i++) {
		const char *name =
		    list ? json_string_value(json_object_get(json_array_get(list, i), "name"))
			 : hub_name(h, i);
		const struct server_config *sc = name ? config_find(cfg, name) : NULL;

		if (!sc) /* the daemon's config has a server this one has not */
			continue;
		if (list)
			info_of(json_array_get(list, i), sc, &in);
		else
			hub_info(h, name, &in);
		down += sc->disabled || in.state != HUB_READY;
		if (arr) {
			json_array_append_new(arr, info_json(sc, &in));
			continue;
		}
		if (sc->sandbox.off && sc->transport == TRANSPORT_STDIO)
			cli_error("warning: server '%s' is not sandboxed (\"sandbox\": false): "
				  "code that calls it reaches whatever its user can",
				  sc->name);
		if (in.state == HUB_READY)
			printf("%-20s %-9s %-8s %5zu  %s%s%s\n", in.name,
			       transport_names[sc->transport], state_name(sc, &in), in.ntools,
			       sc->scope == SCOPE_CUSTOMER ? "per customer" : "",
			       sc->scope == SCOPE_CUSTOMER && sandbox_note(sc) ? ", " : "",
			       sandbox_note(sc) ?: "");
		else
			printf("%-20s %-9s %-8s %5s  %s\n", in.name, transport_names[sc->transport],
			       state_name(sc, &in), "-", in.why);
	}
	if (!arr)
		printf("config: %s (sources: 'mcpfs config')\n", cfg->origin);
	if (arr)
		cli_print_json(arr);
	/* Servers may take seconds to stop: show the answer first. */
	fflush(stdout);
	json_decref(list);
	hub_free(h);
	if (check && down)
		cli_error("servers: %zu of %zu not ready", down, cfg->nservers);
	return check && down ? EXIT_UNREACHABLE : 0;
}
