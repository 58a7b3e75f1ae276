/* The hub and client against live servers of ours (tests/node/servers, the
 * official SDK): list_changed bumps the generation and calls back, a crash
 * fails the call at once and the next call restarts, a hang times out (or is
 * cancelled by its caller, or meets its deadline) and sends
 * notifications/cancelled, paginated tools/list, per-customer instances and
 * their idle stop. Needs node; skips (check.h) without it. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../common/cancel.h"
#include "../../common/clock.h"
#include "../../common/fsx.h"
#include "../../servers/config.h"
#include "../../servers/hub.h"
#include "check.h"

#ifndef MCPFS_SRCDIR
#define MCPFS_SRCDIR "."
#endif

struct changes {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t generation; /* last reported for "dyn" */
	int calls;
};

static void on_changed(void *ctx, const char *server, uint64_t generation)
{
	struct changes *ch = ctx;

	pthread_mutex_lock(&ch->lock);
	if (!strcmp(server, "dyn")) {
		ch->generation = generation;
		ch->calls++;
	}
	pthread_cond_broadcast(&ch->cond);
	pthread_mutex_unlock(&ch->lock);
}

static bool wait_generation(struct changes *ch, uint64_t want)
{
	struct timespec ts;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&ch->lock);
	while (ch->generation < want)
		if (pthread_cond_timedwait(&ch->cond, &ch->lock, &ts))
			break;
	ok = ch->generation >= want;
	pthread_mutex_unlock(&ch->lock);
	return ok;
}

static bool has_tool(json_t *tools, const char *name)
{
	json_t *t;
	size_t i;

	json_array_foreach(
	    tools, i,
	    t) if (!strcmp(json_string_value(json_object_get(t, "name")) ?: "", name)) return true;
	return false;
}

/* The text of the first content item of @result, or "". */
static const char *text_of(json_t *result)
{
	return json_string_value(
		   json_object_get(json_array_get(json_object_get(result, "content"), 0), "text"))
		   ?: "";
}

static json_t *call_opts(struct hub *h, const char *server, const char *tool, const char *args,
			 const struct hub_call_opts *o, struct err *e)
{
	json_t *a = json_loads(args, 0, NULL), *r;

	r = hub_call(h, server, tool, a, o, e);
	json_decref(a);
	return r;
}

static json_t *call(struct hub *h, const char *server, const char *tool, const char *args,
		    double timeout, struct err *e)
{
	struct hub_call_opts o = {.timeout_s = timeout};

	return call_opts(h, server, tool, args, &o, e);
}

static void test_list_changed(struct hub *h, struct changes *ch, const char *root)
{
	char path[4096], *cache = NULL;
	struct err e = {0};
	uint64_t gen = 0;
	json_t *tools, *r;

	tools = hub_tools(h, "dyn", &gen, &e);
	CHECK(tools && json_array_size(tools) == 3 && gen == 1,
	      "dyn: 3 tools at generation 1, "
	      "got %zu at %llu (%s)",
	      json_array_size(tools), (unsigned long long)gen, e.text);
	json_decref(tools);

	r = call(h, "dyn", "add_tool", "{\"name\": \"extra\"}", 10, &e);
	CHECK(r && !json_is_true(json_object_get(r, "isError")), "add_tool: %s", e.text);
	json_decref(r);
	CHECK(wait_generation(ch, 2), "list_changed: callback with generation 2");
	tools = hub_tools(h, "dyn", &gen, &e);
	CHECK(tools && has_tool(tools, "extra") && gen == 2, "catalog has 'extra' at 2");
	json_decref(tools);
	snprintf(path, sizeof(path), "%s/cache/catalogs/dyn.json", root);
	CHECK(fsx_read(path, 1 << 20, &cache, NULL) == 0 && strstr(cache, "\"extra\""),
	      "cache rewritten with 'extra'");
	free(cache);

	r = call(h, "dyn", "remove_tool", "{\"name\": \"extra\"}", 10, &e);
	json_decref(r);
	CHECK(wait_generation(ch, 3), "remove_tool: generation 3");
	tools = hub_tools(h, "dyn", &gen, &e);
	CHECK(tools && !has_tool(tools, "extra") && json_array_size(tools) == 3, "'extra' gone");
	json_decref(tools);
}

static void test_faults(struct hub *h)
{
	struct hub_server_info in;
	struct err e = {0};
	json_t *r, *tools;
	double t0;

	tools = hub_tools(h, "faults", NULL, &e);
	CHECK(tools && json_array_size(tools) == 18 && has_tool(tools, "filler_4"),
	      "paginated tools/list: 18 tools over 5 pages, got %zu", json_array_size(tools));
	json_decref(tools);

	t0 = clock_now_s();
	r = call(h, "faults", "crash", "{}", 30, &e);
	CHECK(!r && e.status == EXIT_UNREACHABLE && strstr(e.text, "exited with status 3") &&
		  clock_now_s() - t0 < 5,
	      "crash fails the call at once: %.2f s, '%s'", clock_now_s() - t0, e.text);
	json_decref(r);
	hub_info(h, "faults", &in);
	CHECK(in.state == HUB_FAILED && strstr(in.why, "exited"), "state failed after crash");
	r = call(h, "faults", "echo", "{\"message\": \"again\"}", 30, &e);
	CHECK(r && !strcmp(text_of(r), "again"), "restarted on next use: %s", e.text);
	json_decref(r);

	t0 = clock_now_s();
	r = call(h, "faults", "hang", "{}", 0.5, &e);
	CHECK(!r && strstr(e.text, "timed out after 0.5 s") && clock_now_s() - t0 < 3,
	      "hang times out: '%s'", e.text);
	json_decref(r);
	usleep(200 * 1000);
	r = call(h, "faults", "cancelled", "{}", 10, &e);
	CHECK(r && strcmp(text_of(r), "[]"), "the server saw notifications/cancelled: %s",
	      r ? text_of(r) : e.text);
	json_decref(r);

	r = call(h, "faults", "nonexistent", "{}", 10, &e);
	CHECK(r && json_is_true(json_object_get(r, "isError")), "unknown tool: an isError result");
	json_decref(r);
}

struct hang_call {
	struct hub *h;
	struct cancel *cancel;
	struct err e;
	json_t *r;
	double took;
};

static void *hang_main(void *arg)
{
	struct hang_call *hc = arg;
	struct hub_call_opts o = {.timeout_s = 30, .hooks.cancel = hc->cancel};
	double t0 = clock_now_s();

	hc->r = hub_call(hc->h, "faults", "hang", NULL, &o, &hc->e);
	hc->took = clock_now_s() - t0;
	return NULL;
}

/* How many requests the faults server saw cancelled so far, or -1. */
static int ncancelled(struct hub *h)
{
	struct err e = {0};
	json_t *r = call(h, "faults", "cancelled", "{}", 10, &e);
	json_t *ids = r ? json_loads(text_of(r), 0, NULL) : NULL;
	int n = json_is_array(ids) ? (int)json_array_size(ids) : -1;

	json_decref(ids);
	json_decref(r);
	return n;
}

/* A call ends when its caller's cancel switch fires, long before its
 * timeout, and the server hears of it; once fired, no call starts. A
 * deadline ends a call as its timeout would. */
static void test_cancel(struct hub *h)
{
	struct cancel cancel;
	struct hang_call hc = {.h = h, .cancel = &cancel};
	struct hub_call_opts o = {.timeout_s = 30};
	struct err e = {0};
	pthread_t t;
	json_t *r;
	int before = ncancelled(h);
	double t0;

	cancel_init(&cancel);
	pthread_create(&t, NULL, hang_main, &hc);
	usleep(300 * 1000);
	cancel_fire(&cancel);
	pthread_join(t, NULL);
	CHECK(!hc.r && hc.took < 2 && strstr(hc.e.text, "tools/call 'hang' cancelled"),
	      "a hung call ends when cancelled: %.2f s, '%s'", hc.took, hc.e.text);
	usleep(200 * 1000);
	CHECK(ncancelled(h) == before + 1, "the server saw notifications/cancelled: %d, was %d",
	      ncancelled(h), before);

	o.hooks.cancel = &cancel;
	r = call_opts(h, "faults", "echo", "{\"message\": \"late\"}", &o, &e);
	CHECK(!r && strstr(e.text, "cancelled"), "no call starts once cancelled: '%s'", e.text);
	json_decref(r);
	cancel_destroy(&cancel);

	o.hooks.cancel = NULL;
	o.deadline_s = clock_now_s() + 0.5;
	t0 = clock_now_s();
	r = call_opts(h, "faults", "hang", "{}", &o, &e);
	CHECK(!r && strstr(e.text, "timed out") && clock_now_s() - t0 < 2,
	      "the deadline ends a call with a longer timeout: %.2f s, '%s'", clock_now_s() - t0,
	      e.text);
	json_decref(r);
	o.deadline_s = clock_now_s() - 1;
	r = call_opts(h, "faults", "echo", "{\"message\": \"late\"}", &o, &e);
	CHECK(!r && strstr(e.text, "no time left"), "past the deadline no call starts: '%s'",
	      e.text);
	json_decref(r);
}

struct caller {
	pthread_t thread;
	struct hub *h;
	int id, ok;
};

static void *caller_main(void *arg)
{
	struct caller *c = arg;
	char want[64];
	struct err e = {0};
	json_t *a, *r;
	int i;

	for (i = 0; i < 40; i++) {
		snprintf(want, sizeof(want), "caller %d call %d", c->id, i);
		a = json_pack("{s:s}", "message", want);
		r = hub_call(c->h, "faults", "echo", a, NULL, &e);
		c->ok += r && !strcmp(text_of(r), want);
		json_decref(r);
		json_decref(a);
	}
	return NULL;
}

/* Calls from many threads at once share one connection; replies match by id. */
static void test_concurrent(struct hub *h)
{
	struct caller c[8];
	int i, ok = 0;

	for (i = 0; i < 8; i++) {
		c[i] = (struct caller){.h = h, .id = i};
		pthread_create(&c[i].thread, NULL, caller_main, &c[i]);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(c[i].thread, NULL);
		ok += c[i].ok;
	}
	CHECK(ok == 8 * 40, "concurrent calls: %d of %d answered right", ok, 8 * 40);
}

static void test_customer(struct hub *h, const char *root)
{
	struct hub_call_opts o = {.timeout_s = 10, .customer = "acme"};
	struct hub_server_info in;
	char path[4096];
	struct err e = {0};
	struct stat st;
	json_t *r, *a;
	int i;

	a = json_pack("{s:s}", "message", "hi");
	r = hub_call(h, "percust", "echo", a, &o, &e);
	CHECK(r && !strcmp(text_of(r), "hi"), "customer instance: %s", e.text);
	json_decref(r);
	o.customer = "../evil";
	r = hub_call(h, "percust", "echo", a, &o, &e);
	CHECK(!r && e.status == EXIT_USAGE, "bad customer id refused: %s", e.text);
	json_decref(a);
	snprintf(path, sizeof(path), "%s/workspaces/acme/workspace", root);
	CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode), "workspace folder created");
	snprintf(path, sizeof(path), "%s/workspaces/acme/state/acme.roots", root);
	CHECK(stat(path, &st) == 0, "${CUSTOMER} and ${STATE} expanded in args");
	/* hub_info reports the "default" instance: start it, then watch it idle. */
	json_decref(hub_tools(h, "percust", NULL, &e));
	for (i = 0; i < 150; i++) {
		hub_info(h, "percust", &in);
		if (in.state == HUB_IDLE)
			break;
		usleep(100 * 1000);
	}
	CHECK(in.state == HUB_IDLE, "idle customer instance stopped, state %d", in.state);
}

/* A second hub over the same data root: a fresh cached catalog answers without
 * starting the server; a changed config makes that cache stale. */
static void test_cache(const char *root, const char *text)
{
	struct hub_opts o = {.state_dir = root, .cache_max_age_s = 3600};
	struct config cfg = {0}, changed = {0};
	struct hub_server_info in;
	char text2[4096];
	struct err e = {0};
	json_t *tools;
	struct hub *h;

	if (config_parse(&cfg, text, "test", &e) < 0)
		return;
	h = hub_new(&cfg, &o);
	tools = hub_tools(h, "dyn", NULL, &e);
	hub_info(h, "dyn", &in);
	CHECK(tools && json_array_size(tools) == 3 && in.state == HUB_IDLE,
	      "cached catalog used without a start: %zu tools, state %d", json_array_size(tools),
	      in.state);
	json_decref(tools);
	hub_free(h);

	/* Same name, another argument: another config hash. */
	snprintf(text2, sizeof(text2), "%s", text);
	*strstr(text2, "sdk_dynamic.mjs\"]") = '\0';
	snprintf(text2 + strlen(text2), sizeof(text2) - strlen(text2),
		 "sdk_dynamic.mjs\", \"--unused\"]}}}");
	if (config_parse(&changed, text2, "test2", &e) < 0) {
		CHECK(0, "changed config: %s", e.text);
		config_free(&cfg);
		return;
	}
	h = hub_new(&changed, &o);
	tools = hub_tools(h, "dyn", NULL, &e);
	hub_info(h, "dyn", &in);
	CHECK(tools && in.state == HUB_READY, "changed config: the server is started, state %d",
	      in.state);
	json_decref(tools);
	hub_free(h);
	config_free(&changed);
	config_free(&cfg);
}

int main(void)
{
	char root[] = "/tmp/mcpfs-test-hub-XXXXXX", text[4096];
	struct changes ch = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
	struct hub_opts o = {0};
	struct config cfg = {0};
	struct err e = {0};
	struct hub *h;

	if (system("node --version >/dev/null 2>&1"))
		return CHECK_SKIP("node is not installed");
	if (!mkdtemp(root))
		return 1;
	snprintf(text, sizeof(text),
		 "{\"mcpServers\": {"
		 "\"dyn\": {\"command\": \"node\", \"args\": "
		 "[\"%s/tests/node/servers/sdk_dynamic.mjs\"]},"
		 "\"faults\": {\"command\": \"node\", \"args\": "
		 "[\"%s/tests/node/servers/sdk_faults.mjs\","
		 "  \"--page\", \"4\", \"--extra\", \"5\"]},"
		 "\"percust\": {\"command\": \"sh\", \"scope\": \"customer\", \"args\": [\"-c\","
		 "  \"touch ${STATE}/${CUSTOMER}.roots && exec node "
		 "%s/tests/node/servers/sdk_faults.mjs\"]}"
		 "}}",
		 MCPFS_SRCDIR, MCPFS_SRCDIR, MCPFS_SRCDIR);
	if (config_parse(&cfg, text, "test", &e) < 0) {
		printf("config: %s\n", e.text);
		return 1;
	}
	o.state_dir = root;
	o.cache_max_age_s = -1;
	o.idle_timeout_s = 1;
	h = hub_new(&cfg, &o);
	CHECK(hub_listen(h, &(struct hub_listener){on_changed, &ch}) > 0, "hub_listen");
	test_list_changed(h, &ch, root);
	test_faults(h);
	test_cancel(h);
	test_concurrent(h);
	test_customer(h, root);
	hub_free(h);
	config_free(&cfg);
	test_cache(root, text);
	fsx_remove_tree(root);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
