/* The bridge server over a stand-in hub: replies by id in any order, the
 * result cap, authentication, records, the budgets. hub_call,
 * hub_read_resource and hub_get_prompt below replace the real ones
 * (servers/hub.o is then never linked in). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../../executor/bridge.h"
#include "../../servers/hub.h"
#include "check.h"

static atomic_int in_flight, max_in_flight; /* calls in the stand-in hub */

/* arguments {"sleep_ms": n, "size": n, "fail": true} shape the answer */
json_t *hub_call(struct hub *h, const char *server, const char *tool, json_t *args,
		 const struct hub_call_opts *o, struct err *err)
{
	long ms = (long)json_integer_value(json_object_get(args, "sleep_ms"));
	size_t size = (size_t)json_integer_value(json_object_get(args, "size"));
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	json_t *res;
	char *text;

	int now = ++in_flight;

	(void)h;
	while (now > max_in_flight &&
	       !atomic_compare_exchange_weak(&max_in_flight, &(int){max_in_flight}, now))
		;
	if (ms)
		nanosleep(&ts, NULL);
	in_flight--;
	if (json_is_true(json_object_get(args, "fail"))) {
		err_set(err, EXIT_UNREACHABLE, "server %s is gone", server);
		return NULL;
	}
	text = calloc(1, size + 1);
	memset(text, 'x', size);
	res =
	    json_pack("{s:[{s:s,s:s}],s:s}", "content", "type", "text", "text", text, "tool", tool);
	free(text);
	/* as the client does: the result to the hook first, and returned too */
	if (res && o && o->hooks.result)
		o->hooks.result(o->hooks.result_ctx, res);
	return res;
}

/* A read of "sleep://N" takes N ms, as hub_call's sleep_ms. */
json_t *hub_read_resource(struct hub *h, const char *server, const char *uri,
			  const struct hub_call_opts *o, struct err *err)
{
	json_t *args = json_pack("{s:i}", "sleep_ms", atoi(uri + strlen("sleep://")));
	json_t *res = strncmp(uri, "sleep://", 8) ? NULL : hub_call(h, server, uri, args, o, err);

	json_decref(args);
	if (!res && !err->text[0])
		err_set(err, EXIT_FAILED, "no resource %s", uri);
	return res;
}

json_t *hub_get_prompt(struct hub *h, const char *server, const char *name, json_t *args,
		       const struct hub_call_opts *o, struct err *err)
{
	(void)h;
	(void)server;
	(void)args;
	(void)o;
	err_set(err, EXIT_FAILED, "no prompt %s", name);
	return NULL;
}

static char sock_path[] = "/tmp/test_jail_bridge_XXXXXX";

static int connect_auth(const char *token, FILE **in)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char line[256];
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/b.sock", sock_path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	dprintf(
	    fd,
	    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"auth\",\"params\":{\"token\":\"%s\"}}\n",
	    token);
	*in = fdopen(dup(fd), "r");
	if (!fgets(line, sizeof(line), *in) || !strstr(line, "\"result\"")) {
		fclose(*in);
		close(fd);
		return -2;
	}
	return fd;
}

static json_t *read_reply(FILE *in)
{
	static char line[1 << 20];

	if (!fgets(line, sizeof(line), in))
		return NULL;
	return json_loads(line, 0, NULL);
}

#define SLOW_CALL                                                                                  \
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"server\":\"s\","    \
	"\"name\":\"slow\",\"arguments\":{\"sleep_ms\":400}}}\n"
#define FAST_CALL                                                                                  \
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"server\":\"s\","    \
	"\"name\":\"fast\",\"arguments\":{}}}\n"

/* A fast call sent after a slow one on the same connection answers first:
 * sent together in one write (@gap_ms 0: the pool serves the first), or
 * alone @gap_ms later (the parked connection is read on by another worker). */
static void check_fast_overtakes(long gap_ms)
{
	const struct timespec gap = {0, gap_ms * 1000 * 1000};
	FILE *in;
	int fd = connect_auth("tok", &in);
	json_t *a, *b;

	CHECK(fd >= 0, "connect: %d", fd);
	if (fd < 0)
		return;
	if (gap_ms) {
		dprintf(fd, SLOW_CALL);
		nanosleep(&gap, NULL);
		dprintf(fd, FAST_CALL);
	} else {
		dprintf(fd, SLOW_CALL FAST_CALL);
	}
	a = read_reply(in);
	b = read_reply(in);
	CHECK(json_integer_value(json_object_get(a, "id")) == 2,
	      "gap %ld ms: the fast call answers first", gap_ms);
	CHECK(json_integer_value(json_object_get(b, "id")) == 1, "gap %ld ms: then the slow one",
	      gap_ms);
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(b, "result"), "tool")),
		      "slow"),
	      "gap %ld ms: reply matches its request", gap_ms);
	json_decref(a);
	json_decref(b);
	fclose(in);
	close(fd);
}

#define MIXED_N 400

struct mixed {
	int fd;
	unsigned seed;
};

/* Requests one by one with small random gaps, some slow, some with results
 * too large for the reader thread to send on: every hand-off of the read
 * side between the serving worker and the watcher gets raced, and the
 * polling for the next request too. */
static void *mixed_writer(void *arg)
{
	struct mixed *m = arg;
	struct timespec gap = {0, 0};
	int i;

	for (i = 1; i <= MIXED_N; i++) {
		dprintf(m->fd,
			"{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{"
			"\"server\":\"s\",\"name\":\"t%d\",\"arguments\":{\"sleep_ms\":%d,"
			"\"size\":%d}}}\n",
			i, i, rand_r(&m->seed) % 5 == 0 ? 1 + rand_r(&m->seed) % 3 : 0,
			rand_r(&m->seed) % 7 == 0 ? 20000 : 1);
		gap.tv_nsec = (long)(rand_r(&m->seed) % 300) * 1000;
		nanosleep(&gap, NULL);
	}
	return NULL;
}

static void test_mixed_stream_answers_each_once(void)
{
	static bool seen[MIXED_N + 1];
	struct mixed m = {.seed = 42};
	char want[32];
	const char *tool;
	pthread_t w;
	FILE *in;
	json_t *r;
	int i, id, ok = 0;

	m.fd = connect_auth("tok", &in);
	CHECK(m.fd >= 0, "connect: %d", m.fd);
	if (m.fd < 0)
		return;
	pthread_create(&w, NULL, mixed_writer, &m);
	for (i = 0; i < MIXED_N; i++) {
		r = read_reply(in);
		id = (int)json_integer_value(json_object_get(r, "id"));
		snprintf(want, sizeof(want), "t%d", id);
		tool = json_string_value(json_object_get(json_object_get(r, "result"), "tool"));
		if (id >= 1 && id <= MIXED_N && !seen[id] && tool && !strcmp(tool, want)) {
			seen[id] = true;
			ok++;
		}
		json_decref(r);
	}
	pthread_join(w, NULL);
	CHECK(ok == MIXED_N, "%d of %d requests answered once, by their own reply", ok, MIXED_N);
	fclose(in);
	close(m.fd);
}

static void test_result_cap_and_errors(void)
{
	FILE *in;
	int fd = connect_auth("tok", &in);
	json_t *r;
	const char *msg;

	CHECK(fd >= 0, "connect: %d", fd);
	if (fd < 0)
		return;
	/* past what the reader thread sends on, under the cap: sent by the worker */
	dprintf(fd,
		"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"server\":"
		"\"s\",\"name\":\"mid\",\"arguments\":{\"size\":50000}}}\n");
	r = read_reply(in);
	msg = json_string_value(json_object_get(
	    json_array_get(json_object_get(json_object_get(r, "result"), "content"), 0), "text"));
	CHECK(json_integer_value(json_object_get(r, "id")) == 6 && msg && strlen(msg) == 50000,
	      "a 50 kB result arrives whole");
	json_decref(r);
	dprintf(fd,
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"server\":"
		"\"s\",\"name\":\"big\",\"arguments\":{\"size\":200000}}}\n");
	r = read_reply(in);
	msg = json_string_value(json_object_get(json_object_get(r, "error"), "message"));
	CHECK(json_integer_value(json_object_get(r, "id")) == 7 && msg &&
		  strstr(msg, "exceeds the bridge cap of 100000 bytes"),
	      "oversized result: %s", msg ? msg : "(none)");
	json_decref(r);
	dprintf(fd,
		"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"server\":"
		"\"s\",\"name\":\"t\",\"arguments\":{\"fail\":true}}}\n");
	r = read_reply(in);
	msg = json_string_value(json_object_get(json_object_get(r, "error"), "message"));
	CHECK(msg && !strcmp(msg, "server s is gone"), "error text: %s", msg ? msg : "(none)");
	json_decref(r);
	dprintf(fd, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"checkpoint/get\"}\n");
	r = read_reply(in);
	CHECK(json_object_get(r, "error") != NULL, "checkpoints without a workspace are refused");
	json_decref(r);
	fclose(in);
	close(fd);
}

static void test_bad_token(void)
{
	FILE *in = NULL;
	int fd = connect_auth("wrong", &in);

	CHECK(fd == -2, "a wrong token is refused: %d", fd);
}

/* The sum of @key over the summary @by; *@n_star: the calls summed under "*". */
static json_int_t sum_of(json_t *by, const char *key, json_int_t *n_star)
{
	json_int_t n = 0;
	json_t *t;
	size_t i;

	*n_star = 0;
	json_array_foreach(by, i, t)
	{
		n += json_integer_value(json_object_get(t, key));
		if (!strcmp(json_string_value(json_object_get(t, "tool")), "*"))
			*n_star += json_integer_value(json_object_get(t, key));
	}
	return n;
}

/* A bridge listing 5 calls: 1,200 calls of 1,100 tools, every tenth
 * failing, are all counted per tool, past 1,000 tools under "*". */
static void test_summary_counts_every_call(const char *path)
{
	struct bridge_opts o = {.token = "tok", .max_records = 5};
	struct err e = {0};
	struct bridge *b = bridge_new(path, &o, &e);
	json_t *calls, *by;
	json_int_t star, n, nfailed;
	FILE *in;
	int fd, i;

	CHECK(b != NULL, "bridge_new: %s", e.text);
	if (!b)
		return;
	fd = connect_auth("tok", &in);
	CHECK(fd >= 0, "connect: %d", fd);
	for (i = 1; fd >= 0 && i <= 1200; i++) {
		json_t *r;

		dprintf(fd,
			"{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{"
			"\"server\":\"s\",\"name\":\"t%d\",\"arguments\":{\"fail\":%s}}}\n",
			i, i % 1100, i % 10 ? "false" : "true");
		r = read_reply(in);
		json_decref(r);
	}
	if (fd >= 0) {
		fclose(in);
		close(fd);
	}
	bridge_stop(b);
	calls = bridge_calls(b);
	by = bridge_calls_by_tool(b);
	n = sum_of(by, "calls", &star);
	CHECK(bridge_ncalls(b) == 1200 && json_array_size(calls) == 5, "5 of %zu calls listed",
	      bridge_ncalls(b));
	CHECK(n == 1200 && json_array_size(by) == 1001 && star == 1200 - 1000 - 100,
	      "every call summed: %lld in %zu entries, %lld under *", (long long)n,
	      json_array_size(by), (long long)star);
	nfailed = sum_of(by, "failed", &star);
	CHECK(nfailed == 120, "the failed ones counted: %lld", (long long)nfailed);
	json_decref(calls);
	json_decref(by);
	bridge_free(b);
}

/* True when the bridge closes @fd (EOF) within @s seconds. */
static bool closed_within(int fd, int s)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char buf[4096];
	time_t until = time(NULL) + s;

	while (time(NULL) < until)
		if (poll(&p, 1, 1000) == 1 && read(fd, buf, sizeof(buf)) == 0)
			return true;
	return false;
}

static int connect_raw(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/b.sock", sock_path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The run's budgets: an oversized request fails alone and gives its bytes
 * back; a reply over what is left becomes an error; at most 32 calls are in
 * flight, the rest wait and are answered; a connection that talks without
 * authenticating, or says nothing, is closed. */
static void test_budgets(const char *path)
{
	struct bridge_opts o = {.token = "tok", .budget = 1u << 20};
	struct err e = {0};
	struct bridge *b = bridge_new(path, &o, &e);
	char *big = malloc(2u << 20);
	FILE *in;
	json_t *r;
	int fd, i, answered = 0;

	CHECK(b != NULL, "bridge_new: %s", e.text);
	if (!b || !big)
		return;
	fd = connect_auth("tok", &in);
	memset(big, ' ', 2u << 20);
	dprintf(fd, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
		    "\"server\":\"s\",\"name\":\"t\",\"arguments\":{\"pad\":\"");
	CHECK(write(fd, big, (2u << 20) - 200) > 0, "write");
	dprintf(fd, "\"}}}\n");
	r = read_reply(in);
	CHECK(r && strstr(json_string_value(json_object_get(json_object_get(r, "error"), "message"))
			      ?: "",
			  "budget"),
	      "a request over the budget fails with a word of why");
	json_decref(r);
	fclose(in);
	close(fd);

	/* The bytes came back: a new connection works, and a reply over what
	 * the budget has fails alone. */
	fd = connect_auth("tok", &in);
	CHECK(fd >= 0, "a new connection after the oversized one: %d", fd);
	dprintf(fd, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{"
		    "\"server\":\"s\",\"name\":\"t\",\"arguments\":{\"size\":1500000}}}\n");
	r = read_reply(in);
	CHECK(r && json_integer_value(json_object_get(json_object_get(r, "error"), "code")) ==
		       -32002,
	      "a reply over the budget is an error for its id");
	json_decref(r);

	/* 100 slow calls and resource reads at once: never more than 32 in the
	 * hub, all answered. */
	max_in_flight = 0;
	for (i = 0; i < 100; i++)
		dprintf(fd,
			i % 2
			    ? "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
			      "{\"server\":\"s\",\"name\":\"t\",\"arguments\":{\"sleep_ms\":20}}}\n"
			    : "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"resources/read\","
			      "\"params\":{\"server\":\"s\",\"uri\":\"sleep://20\"}}\n",
			100 + i);
	for (i = 0; i < 100 && (r = read_reply(in)); i++) {
		answered += json_object_get(r, "result") != NULL;
		json_decref(r);
	}
	CHECK(answered == 100, "every waiting call is answered: %d", answered);
	CHECK(max_in_flight <= 32 && max_in_flight > 1, "calls in flight at once: %d",
	      (int)max_in_flight);
	fclose(in);
	close(fd);

	/* Unauthenticated: 16 KiB without a line end, then silence. */
	fd = connect_raw();
	CHECK(fd >= 0 && write(fd, big, 16384) > 0 && closed_within(fd, 60),
	      "a connection that talks without authenticating is closed");
	close(fd);
	fd = connect_raw();
	CHECK(fd >= 0 && closed_within(fd, 60), "a silent connection is closed in time");
	close(fd);
	free(big);
	bridge_free(b);
}

/* A bridge that cannot be made fails with one line and frees what it made
 * (ASan's leak check holds the error paths to that). */
static void test_new_fails_cleanly(void)
{
	struct bridge_opts o = {.token = "tok"};
	struct err e = {0};

	CHECK(!bridge_new("/nonexistent-mcpfs-dir/b.sock", &o, &e) && strstr(e.text, "bind"),
	      "a socket in a missing folder: %s", e.text);
	o.token = "";
	CHECK(!bridge_new("/tmp/never-made.sock", &o, &e) && strstr(e.text, "empty token") &&
		  access("/tmp/never-made.sock", F_OK) < 0,
	      "an empty token: %s", e.text);
}

int main(void)
{
	struct bridge_opts o = {.token = "tok", .max_result = 100000};
	char path[128];
	struct err e = {0};
	struct bridge *b;
	json_t *calls;

	signal(SIGPIPE, SIG_IGN); /* the bridge closes connections the tests write to */
	if (!mkdtemp(sock_path))
		return 1;
	snprintf(path, sizeof(path), "%s/b.sock", sock_path);
	b = bridge_new(path, &o, &e);
	CHECK(b != NULL, "bridge_new: %s", e.text);
	if (!b)
		return 1;
	check_fast_overtakes(0);
	check_fast_overtakes(50);
	test_mixed_stream_answers_each_once();
	test_result_cap_and_errors();
	test_bad_token();
	bridge_stop(b);
	CHECK(access(path, F_OK) < 0 && errno == ENOENT, "the socket is removed");
	CHECK(bridge_ncalls(b) == 7 + MIXED_N, "calls counted: %zu", bridge_ncalls(b));
	calls = bridge_calls(b);
	CHECK(json_array_size(calls) == 7 + MIXED_N &&
		  json_is_true(json_object_get(json_array_get(calls, 4 + MIXED_N), "ok")) &&
		  json_is_false(json_object_get(json_array_get(calls, 5 + MIXED_N), "ok")) &&
		  json_is_false(json_object_get(json_array_get(calls, 6 + MIXED_N), "ok")),
	      "calls recorded with their outcome, a result over the cap as failed");
	json_decref(calls);
	bridge_free(b);
	test_summary_counts_every_call(path);
	test_new_fails_cleanly();
	test_budgets(path);
	rmdir(sock_path);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
