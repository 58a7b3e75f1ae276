#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/paths.h"
#include "../common/version.h"
#include "../executor/server_sandbox.h"
#include "cli.h"

static const struct command {
	const char *name;
	int (*run)(struct cli *cli, int argc, char **argv);
	const char *summary;
} commands[] = {
    {"servers", cmd_servers, "configured servers, state, tool counts"},
    {"tools", cmd_tools, "tools of every server, or of one"},
    {"search", cmd_search, "find the tools that fit a task"},
    {"call", cmd_call, "call one tool"},
    {"generate", cmd_generate, "write the tree of importable code files"},
    {"mount", cmd_mount, "mount the tree with FUSE"},
    {"exec", cmd_exec, "run agent code in the jail"},
    {"bridge", cmd_bridge, "serve tool calls to generated code on a unix socket"},
    {"workspace", cmd_workspace, "per-customer workspaces"},
    {"session", cmd_session, "session logs and checkpoints"},
    {"skill", cmd_skill, "per-customer skills"},
    {"login", cmd_login, "log in to a remote server with OAuth"},
    {"logout", cmd_logout, "forget a remote server's OAuth tokens"},
    {"pii", cmd_pii, "find, tokenize and restore personal data (stdin)"},
    {"serve", cmd_serve, "mcpfs as an MCP server (stdio or HTTP)"},
    {"token", cmd_token, "bearer tokens for serve --http"},
    {"config", cmd_config, "the config sources found and the one in use"},
    {"doctor", cmd_doctor, "check what mcpfs needs from this host, with fixes"},
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: mcpfs [--config FILE] [--root DIR] COMMAND [ARGS]\n\n");
	fprintf(f, "Turns every configured MCP server into a tree of importable code files.\n\n");
	fprintf(f, "commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\noptions:\n"
		   "  --config FILE  MCP config (else $MCPFS_CONFIG, ./mcpfs.json,\n"
		   "                 ~/.config/mcpfs/config.json, the embedded default);\n"
		   "                 other hosts' files: 'mcpfs config'\n"
		   "  --root DIR     data root (else $MCPFS_ROOT, $XDG_DATA_HOME/mcpfs)\n"
		   "  -h, --help     this text; 'mcpfs COMMAND --help' for a command\n"
		   "  -V, --version  the version\n\n"
		   "exit status: 0 ok, 1 the tool or code failed, 2 usage or config error,\n"
		   "3 a server could not be reached\n");
}

int cli_verb(const char *cmd, int argc, char **argv, const char *const *names, size_t n,
	     size_t size, void (*print_usage)(FILE *f), int *status)
{
	size_t i;

	if (argc < 2) {
		cli_error("%s: no verb given; see 'mcpfs %s --help'", cmd, cmd);
		*status = EXIT_USAGE;
		return -1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_usage(stdout);
		*status = 0;
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(argv[1], *(const char *const *)((const char *)names + i * size)))
			return (int)i;
	cli_error("%s: unknown verb '%s'; see 'mcpfs %s --help'", cmd, argv[1], cmd);
	*status = EXIT_USAGE;
	return -1;
}

int cli_bad_option(const char *cmd, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	/* getopt leaves optopt at the short option it could not use; for a long
	 * one the argument itself says which. */
	if (optopt && (!arg || arg[0] != '-' || arg[1] == '-' || !arg[1]))
		cli_error("%s: option '-%c' is unknown or needs a value; see 'mcpfs %s --help'",
			  cmd, optopt, cmd);
	else
		cli_error("%s: option '%s' is unknown or needs a value; see 'mcpfs %s --help'", cmd,
			  arg, cmd);
	return EXIT_USAGE;
}

int cli_bad_args(const char *cmd)
{
	cli_error("%s: wrong number of arguments; see 'mcpfs %s --help'", cmd, cmd);
	return EXIT_USAGE;
}

void cli_error(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	char *p;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (p = line; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	fprintf(stderr, "mcpfs: %s\n", line);
}

int cli_print_json(json_t *j)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_ENCODE_ANY);

	json_decref(j);
	if (!text) {
		cli_error("out of memory");
		return EXIT_FAILED;
	}
	puts(text);
	free(text);
	return 0;
}

int cli_positive(const char *cmd, const char *flag, const char *arg, double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno || *end || end == arg || !(*out > 0) || *out > max) {
		cli_error("%s: %s wants a number in (0, %g], not '%s'", cmd, flag, max, arg);
		return -1;
	}
	return 0;
}

int cli_fail(const struct err *e)
{
	cli_error("%s", e->text[0] ? e->text : "failed");
	return e->status ? e->status : EXIT_FAILED;
}

const struct config *cli_config(struct cli *cli)
{
	struct err e = {0};

	if (cli->have_cfg)
		return &cli->cfg;
	if (config_load(&cli->cfg, cli->config_path, &e) < 0) {
		cli_fail(&e);
		return NULL;
	}
	cli->have_cfg = true;
	return &cli->cfg;
}

const char *cli_root(struct cli *cli)
{
	struct err e = {0};

	if (cli->root[0])
		return cli->root;
	if (paths_root(cli->root_flag, cli->root, sizeof(cli->root), &e) < 0) {
		cli->root[0] = '\0';
		cli_fail(&e);
		return NULL;
	}
	return cli->root;
}

const struct server_launcher *cli_launcher(struct cli *cli)
{
	const char *root = cli_root(cli);

	if (!cli->sandbox && root)
		cli->sandbox = server_sandbox_new(root, getenv("MCPFS_CGROUP"));
	return server_sandbox_launcher(cli->sandbox);
}

struct hub *cli_hub_new(struct cli *cli, double cache_max_age_s)
{
	const struct config *cfg = cli_config(cli);
	const char *root = cfg ? cli_root(cli) : NULL;
	struct hub_opts o = {0};
	struct hub *h;

	if (!root)
		return NULL;
	o.state_dir = root;
	o.cache_max_age_s = cache_max_age_s;
	o.launcher = cli_launcher(cli);
	h = hub_new(cfg, &o);
	if (!h) {
		cli_error("out of memory");
		return NULL;
	}
	if (cli_pii_attach(cli, h) < 0 || cli_policy_attach(cli, h) < 0) {
		hub_free(h);
		return NULL;
	}
	return h;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"root", required_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	struct cli cli = {0};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t i;
	int c, sub, rc = EXIT_USAGE;

	/* One malloc arena a core, not glibc's eight: a mount's FUSE threads
	 * would each keep the buffers they freed in an arena of their own
	 * (~2 MB after a walk of 10,000 tools, issue 27); tcache still serves
	 * small allocations without taking an arena's lock. */
	mallopt(M_ARENA_MAX, cpus > 0 ? (int)cpus : 1);

	/* Our own one-line messages replace getopt's, here and in subcommands. */
	opterr = 0;
	/* "+" stops at the first non-option: the subcommand owns the rest. */
	while ((c = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cli.config_path = optarg;
			break;
		case 'r':
			cli.root_flag = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("mcpfs %s (MCP %s)\n", MCPFS_VERSION, MCPFS_MCP_VERSION);
			return 0;
		default:
			optind = optind > 1 ? optind : 1;
			cli_error("option '%s' is unknown or needs a value; see 'mcpfs --help'",
				  argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_error("no command given; see 'mcpfs --help'");
		return EXIT_USAGE;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name))
			continue;
		sub = optind;
		optind = 0; /* glibc: 0 re-initializes getopt for the subcommand */
		rc = commands[i].run(&cli, argc - sub, argv + sub);
		break;
	}
	if (i == sizeof(commands) / sizeof(commands[0])) {
		cli_error("unknown command '%s'; see 'mcpfs --help'", argv[optind]);
		return EXIT_USAGE;
	}
	pii_engine_free(cli.pii); /* after the command freed its hub */
	policy_free(cli.policy);
	server_sandbox_free(cli.sandbox);
	if (cli.have_cfg)
		config_free(&cli.cfg);
	return rc;
}
