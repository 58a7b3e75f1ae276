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
#include "../search/search.h"
#include "../executor/run.h"
#include "../workspaces/idle.h"
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
	    "                  [--timeout S] [--memory MB] [--description TEXT] [--json] FILE|-\n"
	    "                  [--pii on|off]\n\n"
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
	    "  --pii on|off      PII tokens for this run, over the config's pii section;\n"
	    "                    while on, output is printed when the run ends and\n"
	    "                    stdin is empty, as with --json\n"
	    "  --json            one object: exit_code, signal, timed_out, stdout, stderr,\n"
	    "                    truncated, duration_ms, tool_calls, limits (hit),\n"
	    "                    limits_in_force, session_id\n\n"
	    "With a daemon ('mcpfs serve') on the data root, the run goes through it: its\n"
	    "servers are warm; the output comes at the end and the program's stdin is empty.\n\n"
	    "Environment: MCPFS_NO_DAEMON=1  run here even when a daemon runs\n"
	    "             MCPFS_WORKSPACE_IDLE_S  a run here also unmounts the workspace\n"
	    "                    images nobody used for this long (default 300; 0: never)\n"
	    "             MCPFS_CGROUP  under cgroup v2, a delegated group holding no\n"
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

struct stopper {
	struct run *run;
	const sigset_t *signals;
};

/* SIGINT, SIGTERM or SIGHUP cancel the run; SIGUSR1 (sent by exec_run
 * when the run is over) ends the thread. */
static void *stopper_main(void *arg)
{
	struct stopper *s = arg;
	int sig = 0;

	while (sigwait(s->signals, &sig) == 0 && sig != SIGUSR1)
		run_cancel(s->run);
	return NULL;
}

/* The sweeps beside the run: what runs of a killed mcpfs left (run_sweep:
 * folders, locks, cgroups, which the jail's own stale sweep would take only
 * a minute later) and idle workspaces (workspaces/idle.h). A daemon sweeps
 * on its own; runs without one sweep while they run, not before. */
struct sweeps {
	const char *root;
	const char *cgroup_parent;
	double idle_s;
	pthread_t thread;
	bool started;
};

static void *sweeps_main(void *arg)
{
	struct sweeps *s = arg;
	struct err e = {0};

	run_sweep(s->root, s->cgroup_parent);
	if (ws_idle_sweep(s->root, s->idle_s, NULL, &e) < 0)
		fprintf(stderr, "mcpfs: exec: idle workspaces: %s\n", e.text);
	return NULL;
}

/* One run, cancelled by the stop signals (blocked in every thread). */
static json_t *exec_run(const struct run_opts *ro, const sigset_t *signals, int *status,
			struct err *e)
{
	struct stopper s = {run_new(ro, e), signals};
	pthread_t thread;
	json_t *res = NULL;
	bool watching;

	if (!s.run)
		return NULL;
	watching = pthread_create(&thread, NULL, stopper_main, &s) == 0;
	if (run_start(s.run, e) == 0)
		res = run_wait(s.run, status, e);
	if (watching) {
		pthread_kill(thread, SIGUSR1);
		pthread_join(thread, NULL);
	}
	run_free(s.run);
	return res;
}

/* Code that failed may have failed for a server that needs an OAuth login
 * (its folder in the tree is empty): say which, with the command to run. */
static void say_logins_needed(struct hub *hub)
{
	struct hub_server_info in;
	size_t i;

	for (i = 0; i < hub_count(hub); i++) {
		hub_info(hub, hub_name(hub, i), &in);
		if (in.state == HUB_FAILED && strstr(in.why, "`mcpfs login "))
			cli_error("exec: %s", in.why);
	}
}

static void print_field(json_t *res, const char *field, FILE *f)
{
	json_t *s = json_object_get(res, field);

	fwrite(json_string_value(s), 1, json_string_length(s), f);
	fflush(f);
}

/* In text mode the code's own output passes through, so a run that a limit
 * ended says so here, in one line (--json has "limits"). */
static void say_limit(const struct run_opts *ro, json_t *res)
{
	json_t *limits = json_object_get(res, "limits"), *v;
	size_t i;

	json_array_foreach(limits, i, v)
	{
		const char *l = json_string_value(v);

		if (!l)
			continue;
		if (!strcmp(l, "timeout"))
			cli_error("exec: the run timed out after %g s and was killed (--timeout S "
				  "allows more)",
				  ro->timeout_s > 0 ? ro->timeout_s : RUN_DEFAULT_TIMEOUT_S);
		else if (!strcmp(l, "memory"))
			cli_error("exec: the run hit its memory limit of %u MiB and was killed "
				  "(--memory MB allows more)",
				  ro->memory_mb ? ro->memory_mb : RUN_DEFAULT_MEMORY_MB);
		else if (!strcmp(l, "pids"))
			cli_error("exec: the run hit its limit on processes and threads (pids); "
				  "fork and thread creation failed");
		else if (!strcmp(l, "cpu"))
			cli_error("exec: the run used up its CPU time and was killed");
		else if (!strcmp(l, "file_size"))
			cli_error("exec: the run wrote a file past the 256 MiB limit and was "
				  "killed");
		else
			continue;
		return;
	}
}

/* The run through a daemon's control socket: its servers are warm. The
 * output comes when the run ends; the program's stdin is empty. */
static int exec_daemon(int fd, const struct run_opts *ro, struct err *e)
{
	json_t *p =
	    json_pack("{s:s%,s:s,s:b,s:f,s:i}", "code", ro->code, ro->code_len, "language",
		      ro->lang == RUN_LANG_TYPESCRIPT ? "typescript" : "python", "record",
		      ro->record, "timeout_s", ro->timeout_s, "memory_mb", (int)ro->memory_mb);
	json_t *out, *res;
	const char *s;
	int status;

	if (p && ro->customer)
		json_object_set_new(p, "customer", json_string(ro->customer));
	if (p && ro->session)
		json_object_set_new(p, "session", json_string(ro->session));
	if (p && ro->description)
		json_object_set_new(p, "description", json_string(ro->description));
	out = cli_daemon_request(fd, "exec", p, e);
	if (!out)
		return cli_fail(e);
	res = json_object_get(out, "result");
	status = (int)json_integer_value(json_object_get(out, "status"));
	if (ro->capture) {
		json_dumpf(res, stdout, JSON_COMPACT | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
	} else {
		s = json_string_value(json_object_get(res, "stdout"));
		fwrite(s, 1, json_string_length(json_object_get(res, "stdout")), stdout);
		s = json_string_value(json_object_get(res, "stderr"));
		fwrite(s, 1, json_string_length(json_object_get(res, "stderr")), stderr);
		say_limit(ro, res);
	}
	fflush(stdout);
	json_decref(out);
	return status;
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
	    {"pii", required_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct run_opts ro = {.stdin_fd = -1, .cgroup_parent = getenv("MCPFS_CGROUP")};
	const char *lang = NULL;
	struct err e = {0};
	char *code = NULL;
	double v;
	int c, status = EXIT_FAILED, rc, fd;
	json_t *res;
	struct hub *hub;
	struct search_hub *sh = NULL;
	struct search_source src;
	struct sweeps sweep = {0};
	bool as_json = false, pii;
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
			ro.capture = as_json = true;
			break;
		case 'p':
			if (cli_pii_mode(cli, "exec", optarg) < 0)
				return EXIT_USAGE;
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
	    (ro.session && !id_valid(ro.session, "session", &e)) ||
	    (sweep.idle_s = ws_idle_time(&e)) < 0)
		return cli_fail(&e);
	if ((rc = read_code(argv[optind], &code, &ro.code_len)) < 0) {
		cli_error("exec: read %s: %s", argv[optind],
			  rc == -E2BIG ? "larger than 4 MiB" : strerror(-rc));
		return EXIT_USAGE;
	}
	ro.code = code;
	if (strcmp(argv[optind], "-"))
		ro.stdin_fd = STDIN_FILENO;
	if ((fd = cli_daemon_connect(cli)) >= 0) {
		status = exec_daemon(fd, &ro, &e);
		close(fd);
		free(code);
		return status;
	}
	/* Before any thread exists, so that none of them takes the stop
	 * signals: the stopper thread turns them into run_cancel. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigaddset(&stop, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	ro.root = cli_root(cli);
	ro.cfg = ro.root ? cli_config(cli) : NULL;
	hub = ro.cfg ? cli_hub_new(cli, EXEC_CATALOG_MAX_AGE_S) : NULL;
	if (!hub) {
		free(code);
		return EXIT_USAGE;
	}
	ro.hub = hub;
	ro.policy = cli->policy;
	/* A person at the terminal approves what the policy asks for. */
	policy_set_terminal(cli->policy, isatty(STDERR_FILENO));
	sh = search_hub_new(hub);
	if (sh) {
		src = search_hub_source(sh);
		ro.search = &src;
	}
	/* Output is tokenized as a whole, so it is captured, then printed. */
	pii = pii_engine_active(cli->pii, ro.customer);
	if (pii) {
		ro.capture = true;
		ro.output_filter = pii_engine_filter_output;
		ro.output_ctx = cli->pii;
	}
	sweep.root = ro.root;
	sweep.cgroup_parent = ro.cgroup_parent;
	sweep.started = pthread_create(&sweep.thread, NULL, sweeps_main, &sweep) == 0;
	res = exec_run(&ro, &stop, &status, &e);
	if (sweep.started)
		pthread_join(sweep.thread, NULL);
	if (res && pii && !as_json) {
		print_field(res, "stdout", stdout);
		print_field(res, "stderr", stderr);
	} else if (res && ro.capture) {
		json_dumpf(res, stdout, JSON_COMPACT | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
		fflush(stdout);
	}
	if (res && !as_json)
		say_limit(&ro, res);
	if (!res)
		status = cli_fail(&e);
	if (status)
		say_logins_needed(hub);
	json_decref(res);
	search_hub_free(sh);
	hub_free(hub);
	free(code);
	return status;
}
