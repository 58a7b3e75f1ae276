/* The hub's call hooks and catalog listeners: the chain's order, a before
 * that rewrites the arguments or refuses (the server is then never called),
 * an after that rewrites the result both on the caller's thread and on the
 * fast path (client_call_hooks.result), an after that sees a failed call,
 * removal that waits for a call in flight, and any number of listeners.
 * Against a live server of ours (tests/node/servers/sdk_faults.mjs); exits
 * 77 (skip) without node. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../../common/fsx.h"
#include "../../servers/config.h"
#include "../../servers/hub.h"
#include "../../servers/hub_hooks.h"
#include "check.h"

#ifndef MCPFS_SRCDIR
#define MCPFS_SRCDIR "."
#endif

/* A hook that writes what it saw into a shared trace. */
struct probe {
	char name;
	char *trace; /* appended to: "<name>b" before, "<name>a" after */
	pthread_mutex_t *lock;
	bool refuse;
	const char *rewrite_arg; /* set message to this */
	const char *append;	 /* append to the result's first text */
	atomic_int befores, afters, failed_afters;
	atomic_bool hold; /* before waits while this is true */
	atomic_bool inside;
};

static void note(struct probe *p, char what)
{
	size_t n;

	pthread_mutex_lock(p->lock);
	n = strlen(p->trace);
	p->trace[n] = p->name;
	p->trace[n + 1] = what;
	p->trace[n + 2] = '\0';
	pthread_mutex_unlock(p->lock);
}

static int before(void *ctx, const struct hub_call *call, json_t **args, struct err *err)
{
	struct probe *p = ctx;

	(void)call;
	note(p, 'b');
	p->befores++;
	p->inside = true;
	while (p->hold)
		usleep(1000);
	if (p->refuse)
		return err_set(err, EXIT_FAILED, "refused by %c", p->name);
	if (p->rewrite_arg)
		*args = json_pack("{s:s}", "message", p->rewrite_arg);
	return 0;
}

static int after(void *ctx, const struct hub_call *call, json_t **result, struct err *err)
{
	struct probe *p = ctx;
	json_t *text;
	char buf[256];

	(void)call;
	(void)err;
	note(p, 'a');
	p->afters++;
	if (!*result) {
		p->failed_afters++;
		return 0;
	}
	if (p->append) {
		text = json_object_get(json_array_get(json_object_get(*result, "content"), 0),
				       "text");
		snprintf(buf, sizeof(buf), "%s%s", json_string_value(text), p->append);
		json_string_set(text, buf);
	}
	return 0;
}

static const char *first_text(json_t *r)
{
	return json_string_value(
	    json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"));
}

static json_t *echo(struct hub *h, const char *msg, const struct hub_call_opts *o, struct err *e)
{
	json_t *a = json_pack("{s:s}", "message", msg), *r;

	r = hub_call(h, "faults", "echo", a, o, e);
	json_decref(a);
	return r;
}

/* The fast path: the caller hears the result as it arrives. */
struct heard {
	char text[256];
	int times;
};

static void on_result(void *ctx, json_t *result)
{
	struct heard *hd = ctx;

	snprintf(hd->text, sizeof(hd->text), "%s", first_text(result) ? first_text(result) : "");
	hd->times++;
}

static void test_chain(struct hub *h)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	char trace[256] = "";
	struct probe outer = {.name = 'A', .trace = trace, .lock = &lock, .append = "+A"};
	struct probe inner = {.name = 'P', .trace = trace, .lock = &lock, .append = "+P",
			      .rewrite_arg = "rewritten"};
	struct hub_call_opts o = {0};
	struct heard hd = {0};
	struct err e = {0};
	int ha, hp;
	json_t *r;

	/* Added inner first: order, not the order of adding, decides. */
	hp = hub_hook_add(h, &(struct hub_hook){HUB_ORDER_PII, before, after, &inner});
	ha = hub_hook_add(h, &(struct hub_hook){HUB_ORDER_ACCOUNTING, before, after, &outer});
	CHECK(hp > 0 && ha > 0 && hp != ha, "hub_hook_add: %d %d", hp, ha);

	r = echo(h, "original", NULL, &e);
	CHECK(r && first_text(r) && !strcmp(first_text(r), "rewritten+P+A"),
	      "the server saw the rewritten argument and the afters ran inner first: %s (%s)",
	      r ? first_text(r) : "(null)", e.text);
	CHECK(!strcmp(trace, "AbPbPaAa"), "befores ascending, afters descending: %s", trace);
	json_decref(r);

	/* The fast path hands on what the afters made, once. */
	trace[0] = '\0';
	o.hooks.result = on_result;
	o.hooks.result_ctx = &hd;
	r = echo(h, "original", &o, &e);
	CHECK(r && !strcmp(first_text(r), "rewritten+P+A"), "fast path: returned %s",
	      r ? first_text(r) : "(null)");
	CHECK(hd.times == 1 && !strcmp(hd.text, "rewritten+P+A"),
	      "fast path: the caller heard the hooked result once: %d '%s'", hd.times, hd.text);
	CHECK(!strcmp(trace, "AbPbPaAa"), "fast path: the chain ran once: %s", trace);
	json_decref(r);

	/* A refusal: the server is not called, and only the outer after runs. */
	trace[0] = '\0';
	inner.refuse = true;
	hd.times = 0;
	r = echo(h, "x", &o, &e);
	CHECK(!r && strstr(e.text, "refused by P"), "refusal: %s", e.text);
	CHECK(!strcmp(trace, "AbPbAa"), "refusal: the refusing hook's after does not run: %s",
	      trace);
	CHECK(hd.times == 0, "refusal: nothing heard");
	CHECK(outer.failed_afters == 1, "refusal: the outer after saw a failed call");
	inner.refuse = false;

	/* A failed call: the afters see it, with the error. */
	err_clear(&e);
	outer.failed_afters = 0;
	o = (struct hub_call_opts){.timeout_s = 0.3};
	r = hub_call(h, "faults", "hang", NULL, &o, &e);
	CHECK(!r && outer.failed_afters == 1 && inner.failed_afters == 1,
	      "a timed-out call reaches every after as a failure: %s", e.text);

	hub_hook_remove(h, hp);
	hub_hook_remove(h, ha);
	trace[0] = '\0';
	r = echo(h, "plain", NULL, &e);
	CHECK(r && !strcmp(first_text(r), "plain") && !trace[0], "removed hooks run no more: %s",
	      trace);
	json_decref(r);
}

struct caller {
	struct hub *h;
	pthread_t thread;
	atomic_bool done;
};

static void *call_main(void *arg)
{
	struct caller *c = arg;
	struct err e = {0};

	json_decref(echo(c->h, "slow", NULL, &e));
	c->done = true;
	return NULL;
}

static void test_remove_waits(struct hub *h)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	char trace[64] = "";
	struct probe p = {.name = 'W', .trace = trace, .lock = &lock};
	struct caller c = {.h = h};
	double until = clock_now_s() + 30;
	int hd;

	p.hold = true;
	hd = hub_hook_add(h, &(struct hub_hook){HUB_ORDER_POLICY, before, after, &p});
	pthread_create(&c.thread, NULL, call_main, &c);
	while (!p.inside && clock_now_s() < until)
		usleep(1000);
	CHECK(p.inside, "the call reached the hook");
	p.hold = false; /* the call goes on while remove waits for it */
	hub_hook_remove(h, hd);
	CHECK(p.afters == 1, "remove returned only after the call's after ran: %d", p.afters);
	pthread_join(c.thread, NULL);
	CHECK(c.done, "the call ended");
}

static void test_too_many(struct hub *h)
{
	struct hub_hook none = {0};
	int handles[HUB_MAX_HOOKS + 1], i, n = 0;

	for (i = 0; i < HUB_MAX_HOOKS + 1; i++)
		if ((handles[i] = hub_hook_add(h, &none)) > 0)
			n++;
	CHECK(n == HUB_MAX_HOOKS && handles[HUB_MAX_HOOKS] < 0,
	      "the chain holds at most %d hooks, then says so: %d", HUB_MAX_HOOKS, n);
	for (i = 0; i < HUB_MAX_HOOKS + 1; i++)
		if (handles[i] > 0)
			hub_hook_remove(h, handles[i]);
}

struct count {
	atomic_int n;
	char last[64];
};

static void counted(void *ctx, const char *server, uint64_t generation)
{
	struct count *c = ctx;

	snprintf(c->last, sizeof(c->last), "%s@%llu", server, (unsigned long long)generation);
	c->n++;
}

static void test_listeners(void)
{
	struct hub_ext *x = hub_ext_new();
	struct count c[100] = {0};
	int handles[100], i, total = 0;

	for (i = 0; i < 100; i++)
		handles[i] = hub_ext_listen(x, &(struct hub_listener){counted, &c[i]});
	hub_ext_notify(x, "srv", 7);
	for (i = 0; i < 100; i++)
		total += c[i].n;
	CHECK(total == 100 && !strcmp(c[99].last, "srv@7"),
	      "every one of 100 listeners is told once: %d", total);
	for (i = 0; i < 100; i += 2)
		hub_ext_unlisten(x, handles[i]);
	hub_ext_notify(x, "srv", 8);
	CHECK(c[0].n == 1 && c[1].n == 2, "an unlistened listener is not told: %d %d",
	      (int)c[0].n, (int)c[1].n);
	for (i = 1; i < 100; i += 2)
		hub_ext_unlisten(x, handles[i]);
	hub_ext_free(x);
}

int main(void)
{
	char root[] = "/tmp/mcpfs-test-hooks-XXXXXX", text[1024];
	struct hub_opts o = {.cache_max_age_s = -1};
	struct config cfg = {0};
	struct err e = {0};
	struct hub *h;

	test_listeners();
	if (system("node --version >/dev/null 2>&1")) {
		printf("skipped: node is not installed\n");
		return 77;
	}
	if (!mkdtemp(root))
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
	test_chain(h);
	test_remove_waits(h);
	test_too_many(h);
	hub_free(h);
	config_free(&cfg);
	fsx_remove_tree(root);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
