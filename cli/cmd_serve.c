/* mcpfs serve: mcpfs as an MCP server (serve/), over stdio or HTTP. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../codegen/codegen.h"
#include "../executor/run.h"
#include "../fusefs/mount.h"
#include "../serve/control.h"
#include "../serve/engine.h"
#include "../serve/front_http.h"
#include "../serve/front_stdio.h"
#include "../workspaces/idle.h"
#include "../workspaces/workspace.h"
#include "cli.h"

#define SERVE_CATALOG_MAX_AGE_S (365.0 * 24 * 3600)
#define SERVE_DRAIN_S 10.0

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: mcpfs serve --stdio [--customer ID] [OPTIONS]\n"
	    "       mcpfs serve --http HOST:PORT [--customer ID] [OPTIONS]\n\n"
	    "mcpfs as an MCP server: one execute_code tool over every configured server,\n"
	    "plus tools to find tools, keep files and skills; the tree as resources.\n\n"
	    "  --stdio           serve one MCP host on stdin/stdout (one JSON message a line)\n"
	    "  --http HOST:PORT  serve Streamable HTTP at /mcp, /healthz and /metrics; prints\n"
	    "                    the URL (PORT 0 picks one); a bearer token decides the\n"
	    "                    customer ('mcpfs token create'); without any token only a\n"
	    "                    loopback HOST is allowed\n"
	    "  --customer ID     whose workspace, skills and servers (default: the config's\n"
	    "                    \"customer\", else default); over HTTP, only when no token\n"
	    "                    exists\n"
	    "  --max-runs N      runs at once (default: 8 per CPU)\n"
	    "  --max-queue N     runs waiting for a slot before new ones are refused (default 64)\n"
	    "  --memory MB       memory limit of each run (default 512)\n"
	    "  --max-timeout S   the longest timeout_s a run may ask for (default 300)\n"
	    "  --pool N          jails kept ready, each for one run, per customer with a run\n"
	    "                    lately (default 1; 0: none): a run skips its jail's set-up\n"
	    "  --pool-idle S     retire a ready jail unused for S seconds (default 10, or\n"
	    "                    half the --workspace-idle time when that is shorter)\n"
	    "  --drain S         on SIGTERM, how long runs in flight may go on (default 10)\n"
	    "  --mount DIR       also mount the tree at DIR (as 'mcpfs mount'), on this\n"
	    "                    daemon's warm servers; unmounted when it stops\n"
	    "  --workspace-idle S  unmount a customer's workspace image nobody used for\n"
	    "                    S seconds (default $MCPFS_WORKSPACE_IDLE_S, else 300;\n"
	    "                    0: never); a run in it keeps it mounted\n\n"
	    "SIGTERM or SIGINT drains: no new run starts, runs in flight get --drain seconds,\n"
	    "then are cancelled; workspaces nobody uses are unmounted, nothing is left behind.\n"
	    "While it runs, 'mcpfs exec', 'call', 'tools' and 'servers' on the same data root\n"
	    "go through it (<root>/run/serve.sock).\n");
}

/* The signal that asked us to stop, written to a pipe the front polls. */
static int stop_pipe[2] = {-1, -1};

static void on_stop(int sig)
{
	int saved = errno;
	char c = (char)sig;

	if (write(stop_pipe[1], &c, 1) < 0) {
		/* the pipe is full: a stop is already pending */
	}
	errno = saved;
}

/* Block the stop signals in every thread but the main one, which takes
 * them through a handler that writes to the stop pipe: the other threads
 * (libmicrohttpd's, the calls') never see EINTR, and a stop is one event. */
static void signals_block(sigset_t *stop)
{
	sigemptyset(stop);
	sigaddset(stop, SIGINT);
	sigaddset(stop, SIGTERM);
	sigaddset(stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, stop, NULL);
}

static void signals_main(void)
{
	struct sigaction sa = {.sa_handler = on_stop};
	sigset_t stop;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signals_block(&stop);
	pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
}

struct stdio_job {
	struct serve_engine *e;
	const char *customer;
	double drain_s;
	struct err err;
	int rc;
	int done[2]; /* written when the front returns */
};

static void *stdio_thread(void *arg)
{
	struct stdio_job *j = arg;

	j->rc = serve_stdio(j->e, j->customer, STDIN_FILENO, STDOUT_FILENO, stop_pipe[0],
			    j->drain_s, &j->err);
	if (write(j->done[1], "x", 1) < 0) {
		/* the main thread then never wakes: cannot happen with a fresh pipe */
	}
	return NULL;
}

/* The HTTP front: its threads start with the stop signals blocked, then the
 * main thread waits for a stop and drains. */
static int serve_http(struct serve_engine *e, const char *listen, const char *root,
		      const struct stdio_job *job)
{
	struct front_http_opts o = {.listen = listen, .root = root, .customer = job->customer};
	struct front_http *h;
	struct err err = {0};
	struct pollfd p;
	char url[128], sig;

	h = front_http_start(e, &o, url, &err);
	if (!h)
		return cli_fail(&err);
	printf("%s\n", url);
	fflush(stdout);
	signals_main();
	p = (struct pollfd){.fd = stop_pipe[0], .events = POLLIN};
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	if (read(stop_pipe[0], &sig, 1) == 1)
		fprintf(stderr, "mcpfs: serve: %s: draining\n", strsignal(sig));
	front_http_stop(h, job->drain_s);
	return 0;
}

int cmd_serve(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"stdio", no_argument, NULL, 's'},
	    {"http", required_argument, NULL, 'H'},
	    {"customer", required_argument, NULL, 'c'},
	    {"max-runs", required_argument, NULL, 'r'},
	    {"max-queue", required_argument, NULL, 'q'},
	    {"memory", required_argument, NULL, 'm'},
	    {"max-timeout", required_argument, NULL, 't'},
	    {"drain", required_argument, NULL, 'd'},
	    {"mount", required_argument, NULL, 'M'},
	    {"workspace-idle", required_argument, NULL, 'w'},
	    {"pool", required_argument, NULL, 'P'},
	    {"pool-idle", required_argument, NULL, 'I'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct serve_opts so = {
	    .cgroup_parent = getenv("MCPFS_CGROUP"), .ws_idle_s = -1, .pool = 1};
	struct stdio_job job = {.customer = NULL, .drain_s = SERVE_DRAIN_S, .done = {-1, -1}};
	struct fusefs_mount_opts mo = {.langs = CG_LANG_ALL};
	struct tree_filter view = {policy_tree_tools, NULL};
	struct fusefs_mount *mnt = NULL;
	struct serve_engine *e = NULL;
	struct control *ctl = NULL;
	bool taken = false;
	struct err err = {0};
	bool stdio = false;
	const char *http = NULL;
	int c, swept, status = EXIT_USAGE;
	struct pollfd p;
	pthread_t th;
	sigset_t stop;
	double v;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			stdio = true;
			break;
		case 'H':
			http = optarg;
			break;
		case 'c':
			job.customer = optarg;
			break;
		case 'r':
			if (cli_positive("serve", "--max-runs", optarg, 4096, &v) < 0)
				return EXIT_USAGE;
			so.max_running = (unsigned)v;
			break;
		case 'q':
			if (cli_positive("serve", "--max-queue", optarg, 1 << 20, &v) < 0)
				return EXIT_USAGE;
			so.max_queued = (unsigned)v;
			break;
		case 'm':
			if (cli_positive("serve", "--memory", optarg, 1 << 20, &v) < 0)
				return EXIT_USAGE;
			so.memory_mb = (unsigned)v;
			break;
		case 't':
			if (cli_positive("serve", "--max-timeout", optarg, 24 * 3600, &v) < 0)
				return EXIT_USAGE;
			so.max_timeout_s = v;
			break;
		case 'd':
			if (cli_positive("serve", "--drain", optarg, 24 * 3600, &job.drain_s) < 0)
				return EXIT_USAGE;
			break;
		case 'M':
			mo.mountpoint = optarg;
			break;
		case 'w':
			if (strcmp(optarg, "0") && cli_positive("serve", "--workspace-idle", optarg,
								1e9, &so.ws_idle_s) < 0)
				return EXIT_USAGE;
			if (!strcmp(optarg, "0"))
				so.ws_idle_s = 0;
			break;
		case 'P':
			if (strcmp(optarg, "0") &&
			    cli_positive("serve", "--pool", optarg, SERVE_POOL_MAX, &v) < 0)
				return EXIT_USAGE;
			so.pool = strcmp(optarg, "0") ? (unsigned)v : 0;
			break;
		case 'I':
			if (cli_positive("serve", "--pool-idle", optarg, 24 * 3600,
					 &so.pool_idle_s) < 0)
				return EXIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || stdio == !!http) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (job.customer && !id_valid(job.customer, "customer", &err))
		return cli_fail(&err);
	if (so.ws_idle_s < 0 && (so.ws_idle_s = ws_idle_time(&err)) < 0)
		return cli_fail(&err);
	signals_block(&stop);
	so.root = cli_root(cli);
	so.cfg = so.root ? cli_config(cli) : NULL;
	if (!so.cfg)
		return EXIT_USAGE;
	if (!job.customer)
		job.customer = so.cfg->customer ? so.cfg->customer : "default";
	/* The CLI's hub: the same call hooks (PII) as every other caller. */
	so.hub = cli_hub_new(cli, SERVE_CATALOG_MAX_AGE_S);
	if (!so.hub)
		return EXIT_FAILED;
	so.pii = cli->pii;
	so.policy = cli->policy;
	/* --mount shows the customer's view, as its runs see the tree */
	view.ctx = (void *)policy_rules(cli->policy, job.customer);
	mo.filter = view.ctx ? &view : NULL;
	e = serve_engine_new(&so, &err);
	if (!e) {
		hub_free(so.hub);
		return cli_fail(&err);
	}
	job.e = e;
	/* A daemon killed with -9 (or an exec) left its runs' folders and
	 * cgroups: gone before this one runs anything. */
	swept = run_sweep(so.root, so.cgroup_parent);
	if (swept > 0)
		fprintf(stderr, "mcpfs: serve: swept what %d killed run%s left behind\n", swept,
			swept == 1 ? "" : "s");
	ctl = control_start(e, &taken, &err);
	if (!ctl && !taken) {
		status = cli_fail(&err);
		goto out;
	}
	if (taken)
		fprintf(stderr,
			"mcpfs: serve: another daemon holds %s/" CONTROL_SOCKET
			"; the CLI goes through that one\n",
			so.root);
	if (mo.mountpoint && !(mnt = fusefs_mount_start(so.cfg, so.root, so.hub, &mo, &err))) {
		status = cli_fail(&err);
		goto out;
	}
	/* The fronts' threads start with the stop signals blocked; only then
	 * does the main thread take them (signals_main). */
	if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(job.done, O_CLOEXEC) < 0) {
		cli_error("serve: pipe2: %s", strerror(errno));
		status = EXIT_FAILED;
		goto out;
	}
	if (http) {
		status = serve_http(e, http, so.root, &job);
		goto out;
	}
	if (pthread_create(&th, NULL, stdio_thread, &job)) {
		cli_error("serve: pthread_create: %s", strerror(errno));
		status = EXIT_FAILED;
		goto out;
	}
	signals_main();
	p = (struct pollfd){.fd = job.done[0], .events = POLLIN};
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	pthread_join(th, NULL);
	status = job.rc < 0 ? cli_fail(&job.err) : 0;
out:
	fusefs_mount_stop(mnt);
	control_stop(ctl);
	serve_engine_free(e);
	hub_free(so.hub);
	/* A stopped daemon leaves no workspace mounted that nobody uses: after
	 * the hub, whose customers' servers held theirs (executor/server_hold.h). */
	if (ws_unmount_unused(so.root, &err) < 0)
		fprintf(stderr, "mcpfs: serve: workspaces: %s\n", err.text);
	for (c = 0; c < 2; c++) {
		if (job.done[c] >= 0)
			close(job.done[c]);
		if (stop_pipe[c] >= 0)
			close(stop_pipe[c]);
	}
	return status;
}
