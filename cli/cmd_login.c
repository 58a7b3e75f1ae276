/* mcpfs login SERVER / mcpfs logout SERVER: OAuth for remote servers
 * (servers/oauth.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../servers/oauth.h"
#include "../common/id.h"
#include "cli.h"

/* The customer a customer-scoped server serves when none is named, as the hub. */
#define LOGIN_DEFAULT_CUSTOMER "default"
#define LOGIN_DEFAULT_TIMEOUT_S 300.0

static void login_usage(FILE *f)
{
	fprintf(f, "usage: mcpfs login SERVER [--customer ID] [--timeout S] [--no-browser]\n\n"
		   "Log in to the remote server SERVER with OAuth (authorization code with\n"
		   "PKCE): prints the URL to open, opens a browser when there is one ($BROWSER,\n"
		   "else xdg-open with a display), takes the redirect on 127.0.0.1 and keeps\n"
		   "the tokens under the data root (mode 0600). A server configured with\n"
		   "\"oauth\": {\"grant\": \"client_credentials\", ...} gets its token without\n"
		   "a browser.\n\n"
		   "  --customer ID  for a customer-scoped server: whose login (default\n"
		   "                 \"default\")\n"
		   "  --timeout S    how long to wait for the browser (default 300 s)\n"
		   "  --no-browser   only print the URL\n");
}

static void logout_usage(FILE *f)
{
	fprintf(f, "usage: mcpfs logout SERVER [--customer ID]\n\n"
		   "Forget the OAuth tokens and client registration kept for SERVER.\n\n"
		   "  --customer ID  for a customer-scoped server: whose login\n");
}

/* The instance config of @name for @customer with its store; NULL after
 * printing why. */
static struct server_config *instance(struct cli *cli, const char *cmd, const char *name,
				      const char *customer)
{
	const struct server_config *sc;
	struct server_config *out;
	struct err e = {0};
	const char *root;

	if (!cli_config(cli))
		return NULL;
	sc = config_find(cli_config(cli), name);
	if (!sc) {
		cli_error("%s: no server named '%s' in %s", cmd, name, cli_config(cli)->origin);
		return NULL;
	}
	if (sc->transport == TRANSPORT_STDIO) {
		cli_error("%s: server '%s' is a local (stdio) server: it takes no login", cmd,
			  name);
		return NULL;
	}
	if (sc->transport == TRANSPORT_SSE) {
		cli_error("%s: server '%s' is legacy HTTP+SSE (\"type\": \"sse\"), which predates "
			  "OAuth in MCP: use \"type\": \"http\" if it speaks Streamable HTTP",
			  cmd, name);
		return NULL;
	}
	if (customer && sc->scope != SCOPE_CUSTOMER) {
		cli_error("%s: server '%s' is shared: --customer does not apply", cmd, name);
		return NULL;
	}
	if (sc->scope == SCOPE_CUSTOMER && !customer)
		customer = LOGIN_DEFAULT_CUSTOMER;
	if (customer && !id_valid(customer, "customer", &e)) {
		cli_fail(&e);
		return NULL;
	}
	root = cli_root(cli);
	if (!root)
		return NULL;
	out = server_config_dup(sc);
	if (!out || oauth_instance_setup(out, root, customer, &e)) {
		server_config_free(out);
		if (!e.status)
			err_set(&e, EXIT_FAILED, "out of memory");
		cli_fail(&e);
		return NULL;
	}
	return out;
}

int cmd_login(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"customer", required_argument, NULL, 'c'},
	    {"timeout", required_argument, NULL, 't'},
	    {"no-browser", no_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct oauth_login_opts o = {
	    .timeout_s = LOGIN_DEFAULT_TIMEOUT_S, .out = stdout, .browser = getenv("BROWSER")};
	const char *customer = NULL;
	struct server_config *sc;
	struct err e = {0};
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			customer = optarg;
			break;
		case 't':
			if (cli_positive("login", "--timeout", optarg, 86400, &o.timeout_s))
				return EXIT_USAGE;
			break;
		case 'n':
			o.browser = "";
			break;
		case 'h':
			login_usage(stdout);
			return 0;
		default:
			login_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		login_usage(stderr);
		return EXIT_USAGE;
	}
	sc = instance(cli, "login", argv[optind], customer);
	if (!sc)
		return EXIT_USAGE;
	rc = oauth_login(sc, &o, &e) ? cli_fail(&e) : 0;
	server_config_free(sc);
	return rc;
}

int cmd_logout(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"customer", required_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *customer = NULL;
	struct server_config *sc;
	struct err e = {0};
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			customer = optarg;
			break;
		case 'h':
			logout_usage(stdout);
			return 0;
		default:
			logout_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		logout_usage(stderr);
		return EXIT_USAGE;
	}
	sc = instance(cli, "logout", argv[optind], customer);
	if (!sc)
		return EXIT_USAGE;
	rc = oauth_logout(sc, &e);
	if (rc < 0)
		rc = cli_fail(&e);
	else {
		printf(rc ? "Logged out of '%s'.\n" : "No login kept for '%s'.\n", sc->name);
		rc = 0;
	}
	server_config_free(sc);
	return rc;
}
