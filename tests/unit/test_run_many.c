/* Runs as objects: 16 runs from 16 threads of one process, sharing one hub,
 * each calling a tool of a live server through its own bridge; half of them
 * are cancelled while their code runs. The cancelled ones end at once with
 * "interrupted" and leave nothing behind; the others print what their tool
 * call returned. Also: a run cancelled before it starts never runs its code.
 * Needs root (the jail), python3 and node; exits 77 (skip) without them. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../../common/fsx.h"
#include "../../executor/run.h"
#include "../../servers/config.h"
#include "../../servers/hub.h"
#include "../../workspaces/idle.h"
#include "../../workspaces/workspace.h"
#include "check.h"

#ifndef MCPFS_SRCDIR
#define MCPFS_SRCDIR "."
#endif

#define NRUNS 16
#define CUSTOMER "many"
#define DEADLINE_S 120.0

struct slot {
	int i;
	bool cancel; /* this one sleeps until cancelled */
	struct run_opts o;
	char code[512];
	struct run *_Atomic run; /* set once started */
	atomic_bool ended;
	atomic_bool released; /* the main thread is done with run */
	json_t *res;
	int status;
	struct err e;
	double cancelled_at, ended_at;
	pthread_t thread;
};

static atomic_int heard; /* tool calls heard through run_opts.on_tool_call */

static void on_tool_call(void *ctx, const char *server, const char *tool, bool ok, double ms)
{
	(void)ctx;
	(void)ms;
	if (!strcmp(server, "faults") && !strcmp(tool, "echo") && ok)
		heard++;
}

static void *run_main(void *arg)
{
	struct slot *s = arg;
	struct run *r = run_new(&s->o, &s->e);

	if (r && run_start(r, &s->e) == 0) {
		atomic_store(&s->run, r);
		s->res = run_wait(r, &s->status, &s->e);
	}
	s->ended_at = clock_now_s();
	atomic_store(&s->ended, true);
	/* The main thread may still hold the handle to cancel: wait for its
	 * word before freeing. */
	while (!atomic_load(&s->released))
		usleep(1000);
	run_free(r);
	return NULL;
}

/* Entries of @path but the sweep lock, which stays (executor/run.h). */
static int entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		     strcmp(de->d_name, strrchr(RUN_SWEEP_LOCK, '/') + 1);
	closedir(d);
	return n;
}

static bool wait_file(const char *path, double until)
{
	while (access(path, F_OK) != 0)
		if (clock_now_s() > until)
			return false;
		else
			usleep(5000);
	return true;
}

static void test_many(const char *root, const struct config *cfg, struct hub *h)
{
	struct slot slots[NRUNS] = {0};
	double until = clock_now_s() + DEADLINE_S;
	struct ws ws;
	struct err e = {0};
	char mark[PATH_MAX + 64], want[64];
	const char *out;
	int i, ok = 0, interrupted = 0;

	CHECK(ws_open(root, CUSTOMER, true, &ws, &e) == 0, "ws_open: %s", e.text);
	for (i = 0; i < NRUNS; i++) {
		struct slot *s = &slots[i];

		s->i = i;
		s->cancel = i % 2;
		snprintf(s->code, sizeof(s->code),
			 "from servers.faults import echo\n"
			 "print(echo(message='run-%d'), flush=True)\n"
			 "%s%d%s",
			 i, s->cancel ? "import time, pathlib\npathlib.Path('started-" : "# ", i,
			 s->cancel ? "').touch()\ntime.sleep(600)\n" : "\n");
		s->o = (struct run_opts){.root = root,
					 .cfg = cfg,
					 .hub = h,
					 .customer = CUSTOMER,
					 .lang = RUN_LANG_PYTHON,
					 .code = s->code,
					 .code_len = strlen(s->code),
					 .timeout_s = DEADLINE_S,
					 .capture = true,
					 .stdin_fd = -1,
					 .cgroup_parent = getenv("MCPFS_CGROUP"),
					 .on_tool_call = on_tool_call};
		pthread_create(&s->thread, NULL, run_main, s);
	}
	/* Cancel each sleeper once its code is provably running. */
	for (i = 1; i < NRUNS; i += 2) {
		struct slot *s = &slots[i];

		snprintf(mark, sizeof(mark), "%s/started-%d", ws.workspace, i);
		CHECK(wait_file(mark, until), "run %d started its code", i);
		while (!atomic_load(&s->run) && !atomic_load(&s->ended) && clock_now_s() < until)
			usleep(1000);
		if (atomic_load(&s->run)) {
			s->cancelled_at = clock_now_s();
			run_cancel(atomic_load(&s->run));
		}
	}
	for (i = 0; i < NRUNS; i++) {
		while (!atomic_load(&slots[i].ended) && clock_now_s() < until)
			usleep(5000);
		atomic_store(&slots[i].released, true);
		pthread_join(slots[i].thread, NULL);
	}
	for (i = 0; i < NRUNS; i++) {
		struct slot *s = &slots[i];
		json_t *limits = json_object_get(s->res, "limits");

		out = json_string_value(json_object_get(s->res, "stdout"));
		snprintf(want, sizeof(want), "run-%d\n", i);
		if (!s->res) {
			CHECK(false, "run %d: %s", i, s->e.text);
			continue;
		}
		if (!s->cancel) {
			CHECK(s->status == 0 && out && !strcmp(out, want),
			      "run %d: exit %d, stdout '%s' (want '%s'), stderr %s", i, s->status,
			      out ? out : "", want,
			      json_string_value(json_object_get(s->res, "stderr")));
			ok += s->status == 0 && out && !strcmp(out, want);
			continue;
		}
		CHECK(json_is_string(json_array_get(limits, 0)) &&
			  !strcmp(json_string_value(json_array_get(limits, 0)), "interrupted") &&
			  s->status == 128 + 9,
		      "run %d: cancelled: status %d, limits %s", i, s->status,
		      json_string_value(json_array_get(limits, 0)));
		CHECK(out && !strncmp(out, want, strlen(want)),
		      "run %d: its tool call before the cancel went through: '%s'", i,
		      out ? out : "");
		/* Generous: "at once" on a machine at load 40 is seconds. */
		CHECK(s->ended_at - s->cancelled_at < 20, "run %d ended %.1f s after its cancel", i,
		      s->ended_at - s->cancelled_at);
		interrupted++;
		json_decref(s->res);
		s->res = NULL;
	}
	for (i = 0; i < NRUNS; i++)
		json_decref(slots[i].res);
	CHECK(heard == NRUNS, "every run's tool call was heard once: %d", (int)heard);
	CHECK(ok == NRUNS / 2 && interrupted == NRUNS / 2, "%d ran to the end, %d cancelled", ok,
	      interrupted);
}

static void test_cancel_before_start(const char *root, const struct config *cfg, struct hub *h)
{
	const char *code = "open('ran', 'w').write('x')\n";
	struct run_opts o = {.root = root,
			     .cfg = cfg,
			     .hub = h,
			     .customer = "early",
			     .lang = RUN_LANG_PYTHON,
			     .code = code,
			     .code_len = strlen(code),
			     .capture = true,
			     .stdin_fd = -1,
			     .cgroup_parent = getenv("MCPFS_CGROUP")};
	struct err e = {0};
	struct run *r = run_new(&o, &e);
	char path[PATH_MAX + 8];
	struct ws ws;

	run_cancel(r);
	CHECK(run_start(r, &e) < 0 && strstr(e.text, "cancelled"),
	      "a run cancelled before it starts does not start: %s", e.text);
	run_free(r);
	CHECK(ws_open(root, "early", false, &ws, &e) == 0, "ws_open: %s", e.text);
	snprintf(path, sizeof(path), "%s/ran", ws.workspace);
	CHECK(access(path, F_OK) != 0, "its code never ran");
}

int main(void)
{
	char root[] = "/tmp/mcpfs-test-runs-XXXXXX", text[1024], runs[PATH_MAX];
	struct hub_opts o = {.cache_max_age_s = -1};
	struct config cfg = {0};
	struct err e = {0};
	struct hub *h;

	if (geteuid() != 0)
		return CHECK_SKIP("the jail needs root (id maps, cgroups)");
	if (system("node --version >/dev/null 2>&1 && python3 --version >/dev/null 2>&1"))
		return CHECK_SKIP("node or python3 is not installed");
	if (!mkdtemp(root) || chmod(root, 0755) < 0)
		return 1;
	snprintf(text, sizeof(text),
		 "{\"mcpServers\": {\"faults\": {\"command\": \"node\", \"args\": "
		 "[\"%s/tests/node/servers/sdk_faults.mjs\"]}}}",
		 MCPFS_SRCDIR);
	if (config_parse(&cfg, text, "test", &e) < 0) {
		printf("config: %s\n", e.text);
		return 1;
	}
	o.state_dir = root;
	h = hub_new(&cfg, &o);
	test_many(root, &cfg, h);
	test_cancel_before_start(root, &cfg, h);
	hub_free(h);
	config_free(&cfg);
	snprintf(runs, sizeof(runs), "%s/run", root);
	CHECK(entries(runs) == 0, "no run folder or socket left in %s", runs);
	CHECK(ws_unmount_unused(root, &e) == 2, "both workspaces unmounted: %s", e.text);
	CHECK(fsx_remove_tree(root) == 0, "%s removed", root);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
