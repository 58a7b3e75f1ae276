/* mcpfs exec: run agent code in the jail (executor/run.h). */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/buf.h"
#include "../common/fsx.h"
#include "../executor/run.h"
#include "../workspaces/workspace.h"
#include "cli.h"

#define EXEC_CODE_MAX (4u << 20)
/* A one-shot run takes catalogs from the disk cache however old: it must
 * never wait for a server to start only to render a tree. */
#define EXEC_CATALOG_MAX_AGE_S (365.0 * 24 * 3600)

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: mcpfs exec [--customer ID] [--session ID] [--lang python|typescript]\n"
	    "                  [--timeout S] [--memory MB] [--description TEXT] [--json] FILE|-\n\n"
	    "Run agent code in the jail: the tool tree read-only (import servers.<server>),\n"
	    "the customer's workspace as the working directory, tools through the bridge.\n"
	    "Without --json the code's output passes through and the exit status is the\n"
	    "code's (128+N when killed by signal N).\n\n"
	    "  --customer ID     whose workspace and servers (default: default); also\n"
	    "                    records the run in the session log\n"
	    "  --session ID      the session (default: a new id)\n"
	    "  --lang L          python or typescript (default: from the suffix; python for -)\n"
	    "  --timeout S       wall clock limit for the whole run (default 30)\n"
	    "  --memory MB       memory limit of the run (default 512)\n"
	    "  --description T   for the session log's task record\n"
	    "  --json            one object: exit_code, signal, timed_out, stdout, stderr,\n"
	    "                    truncated, duration_ms, tool_calls, limits, session_id\n\n"
	    "Environment: MCPFS_CGROUP  under cgroup v2, a delegated group holding no\n"
	    "                    process to make the runs' groups in (default: the one\n"
	    "                    mcpfs runs in, which it then leaves for a leaf of it)\n");
}

static int read_code(const char *file, char **code, size_t *len)
{
	struct buf b;
	char chunk[65536];
	ssize_t r;
	int rc = 0;

	if (strcmp(file, "-"))
		return fsx_read(file, EXEC_CODE_MAX, code, len);
	buf_init(&b, EXEC_CODE_MAX);
	while ((r = read(STDIN_FILENO, chunk, sizeof(chunk))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (rc = buf_append(&b, chunk, (size_t)r)) < 0) {
			rc = r < 0 ? -errno : rc;
			buf_free(&b);
			return rc;
		}
	}
	*code = buf_steal(&b, len);
	return *code ? 0 : -ENOMEM;
}

static int lang_of(const char *name, const char *file, enum run_lang *out)
{
	const char *dot = strrchr(file, '.');

	if (!name)
		name = !strcmp(file, "-") ? "python" : dot ? dot + 1 : "";
	if (!strcmp(name, "python") || !strcmp(name, "py"))
		*out = RUN_LANG_PYTHON;
	else if (!strcmp(name, "typescript") || !strcmp(name, "ts") || !strcmp(name, "mts"))
		*out = RUN_LANG_TYPESCRIPT;
	else
		return -1;
	return 0;
}

int cmd_exec(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"customer", required_argument, NULL, 'c'},
	    {"session", required_argument, NULL, 's'},
	    {"lang", required_argument, NULL, 'l'},
	    {"timeout", required_argument, NULL, 't'},
	    {"memory", required_argument, NULL, 'm'},
	    {"description", required_argument, NULL, 'd'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct run_opts ro = {.stdin_fd = -1, .cgroup_parent = getenv("MCPFS_CGROUP")};
	const char *lang = NULL;
	struct err e = {0};
	char *code = NULL;
	double v;
	int c, status = EXIT_FAILED, rc;
	json_t *res;
	struct hub *hub;
	sigset_t stop;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			ro.customer = optarg;
			ro.record = true;
			break;
		case 's':
			ro.session = optarg;
			ro.record = true;
			break;
		case 'l':
			lang = optarg;
			break;
		case 't':
			if (cli_positive("exec", "--timeout", optarg, RUN_MAX_TIMEOUT_S,
					 &ro.timeout_s) < 0)
				return EXIT_USAGE;
			break;
		case 'm':
			if (cli_positive("exec", "--memory", optarg, 1 << 20, &v) < 0)
				return EXIT_USAGE;
			if (v < 1 || v != (unsigned)v) {
				cli_error("exec: --memory wants whole MiB, at least 1, not '%s'",
					  optarg);
				return EXIT_USAGE;
			}
			ro.memory_mb = (unsigned)v;
			break;
		case 'd':
			ro.description = optarg;
			break;
		case 'j':
			ro.capture = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option("exec", argv);
		}
	}
	if (optind != argc - 1) {
		return cli_bad_args("exec");
	}
	if (lang_of(lang, argv[optind], &ro.lang) < 0) {
		cli_error("exec: cannot tell the language of '%s': use --lang python|typescript",
			  argv[optind]);
		return EXIT_USAGE;
	}
	if ((ro.customer && !id_valid(ro.customer, "customer", &e)) ||
	    (ro.session && !id_valid(ro.session, "session", &e)))
		return cli_fail(&e);
	if ((rc = read_code(argv[optind], &code, &ro.code_len)) < 0) {
		cli_error("exec: read %s: %s", argv[optind],
			  rc == -E2BIG ? "larger than 4 MiB" : strerror(-rc));
		return EXIT_USAGE;
	}
	ro.code = code;
	if (strcmp(argv[optind], "-"))
		ro.stdin_fd = STDIN_FILENO;
	/* Before any thread exists (run.h): a stop request kills the jail and
	 * cleans up instead of ending mcpfs on the spot. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	ro.root = cli_root(cli);
	ro.cfg = ro.root ? cli_config(cli) : NULL;
	hub = ro.cfg ? cli_hub_new(cli, EXEC_CATALOG_MAX_AGE_S) : NULL;
	if (!hub) {
		free(code);
		return EXIT_USAGE;
	}
	ro.hub = hub;
	res = run_exec(&ro, &status, &e);
	if (res && ro.capture) {
		json_dumpf(res, stdout, JSON_COMPACT | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
		fflush(stdout);
	}
	if (!res)
		status = cli_fail(&e);
	json_decref(res);
	hub_free(hub);
	free(code);
	return status;
}
