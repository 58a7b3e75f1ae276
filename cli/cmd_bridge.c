/* mcpfs bridge --socket PATH: serve tool calls to generated code that runs
 * outside a jail, until SIGINT or SIGTERM. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../executor/bridge.h"
#include "../executor/run.h"
#include "../workspaces/workspace.h"
#include "../search/search.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: mcpfs bridge --socket PATH [--token TOKEN] [--customer ID]\n"
	    "                    [--session ID] [--timeout S]\n\n"
	    "Serve tool calls on a unix socket (protocol: executor/bridge.h) until\n"
	    "SIGINT or SIGTERM. Once listening, prints MCPFS_BRIDGE=PATH and\n"
	    "MCPFS_BRIDGE_TOKEN=TOKEN on stdout: the environment the runtime shims read.\n\n"
	    "  --socket PATH   where to listen (a stale socket there is replaced)\n"
	    "  --token TOKEN   the secret clients present (else $MCPFS_BRIDGE_TOKEN,\n"
	    "                  else a new random one)\n"
	    "  --customer ID   whose customer-scoped servers and checkpoints (default: default)\n"
	    "  --session ID    the session checkpoints belong to (default: a new id)\n"
	    "  --timeout S     per-call timeout (default: the server's)\n");
}

int cmd_bridge(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"socket", required_argument, NULL, 's'},
	    {"token", required_argument, NULL, 't'},
	    {"customer", required_argument, NULL, 'c'},
	    {"session", required_argument, NULL, 'S'},
	    {"timeout", required_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *sock = NULL, *token = getenv(BRIDGE_ENV_TOKEN), *customer = "default";
	const char *session = NULL, *root;
	char tokbuf[64], sidbuf[64];
	struct bridge_opts bo = {0};
	struct search_hub *sh = NULL;
	struct search_source src;
	struct ws ws;
	struct err e = {0};
	struct bridge *b;
	struct hub *hub;
	sigset_t set;
	int c, sig;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sock = optarg;
			break;
		case 't':
			token = optarg;
			break;
		case 'c':
			customer = optarg;
			break;
		case 'S':
			session = optarg;
			break;
		case 'T':
			if (cli_positive("bridge", "--timeout", optarg, 86400, &bo.call_timeout_s))
				return EXIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option("bridge", argv);
		}
	}
	if (!sock || optind != argc) {
		return cli_bad_args("bridge");
	}
	if (!token || !token[0]) {
		if (bridge_token_new(tokbuf, sizeof(tokbuf)) < 0) {
			cli_error("bridge: getrandom failed");
			return EXIT_FAILED;
		}
		token = tokbuf;
	}
	if (!session) {
		if (run_id_new(sidbuf, sizeof(sidbuf)) < 0) {
			cli_error("bridge: getrandom failed");
			return EXIT_FAILED;
		}
		session = sidbuf;
	} else if (!id_valid(session, "session", &e)) {
		return cli_fail(&e);
	}
	root = cli_root(cli);
	if (!root || !cli_config(cli))
		return EXIT_USAGE;
	if (ws_open(root, customer, true, &ws, &e) < 0)
		return cli_fail(&e);
	/* Block the stop signals before any thread exists so every thread
	 * inherits the mask and sigwait below is the only receiver. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	hub = cli_hub_new(cli, 3600);
	if (!hub)
		return EXIT_USAGE;
	bo.hub = hub;
	bo.token = token;
	bo.customer = ws.customer;
	bo.workspace = ws.workspace;
	bo.ws = &ws;
	bo.session = session;
	sh = search_hub_new(hub);
	if (sh) {
		src = search_hub_source(sh);
		bo.search = &src;
	}
	b = bridge_new(sock, &bo, &e);
	if (!b) {
		search_hub_free(sh);
		hub_free(hub);
		return cli_fail(&e);
	}
	printf("%s=%s\n%s=%s\n", BRIDGE_ENV_SOCKET, sock, BRIDGE_ENV_TOKEN, token);
	fflush(stdout);
	sigwait(&set, &sig);
	bridge_free(b);
	search_hub_free(sh);
	hub_free(hub);
	return 0;
}
