/* The HTTP transports under the real client (servers/client.h), against real
 * servers on 127.0.0.1: tests/node/servers/http_probe.mjs (official SDK) and
 * server-everything, over Streamable HTTP and legacy SSE. What one-shot CLI
 * runs cannot show: tools/list_changed arriving on the GET stream, and a
 * lost session (the server restarted on the same port) answered by a new
 * initialize. Run from the repository root (tests/e2e/test_unit.py does);
 * skips (check.h) when node or the npm servers are missing. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../servers/client.h"
#include "check.h"

#define PROBE "tests/node/servers/http_probe.mjs"
#define EVERYTHING "servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

struct events {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int tools_changed; /* protected by lock */
	int closed;	   /* protected by lock */
};

static void on_tools_changed(void *ctx)
{
	struct events *e = ctx;

	pthread_mutex_lock(&e->lock);
	e->tools_changed++;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

static void on_closed(void *ctx, const char *why)
{
	struct events *e = ctx;

	(void)why;
	pthread_mutex_lock(&e->lock);
	e->closed++;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

/* Wait until tools_changed reaches @n, at most @s seconds. */
static bool wait_tools_changed(struct events *e, int n, int s)
{
	struct timespec until;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += s;
	pthread_mutex_lock(&e->lock);
	while (e->tools_changed < n &&
	       pthread_cond_timedwait(&e->cond, &e->lock, &until) != ETIMEDOUT)
		;
	ok = e->tools_changed >= n;
	pthread_mutex_unlock(&e->lock);
	return ok;
}

static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static bool port_open(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				.sin_port = htons((unsigned short)port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = !connect(fd, (struct sockaddr *)&a, sizeof(a));
	close(fd);
	return ok;
}

/* Start `node @script @mode` with PORT and PROBE_PORT set to @port, and
 * wait (10 s at most) until it accepts connections. Returns the pid or -1. */
static pid_t start_node(const char *script, const char *mode, int port)
{
	char p[16];
	pid_t pid;
	int i;

	snprintf(p, sizeof(p), "%d", port);
	fflush(stdout); /* else the child's freopen writes our buffer out again */
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		setenv("PORT", p, 1);
		setenv("PROBE_PORT", p, 1);
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(126);
		execlp("node", "node", script, mode, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200; i++) {
		if (port_open(port))
			return pid;
		usleep(50000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static void stop_node(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static struct client *connect_to(struct events *ev, enum server_transport tr, const char *url,
				 struct err *e)
{
	struct client_events cev = {ev, on_tools_changed, on_closed};
	struct server_config sc = {0};
	struct client *c;

	sc.name = "t";
	sc.transport = tr;
	sc.url = (char *)url;
	sc.timeout_s = 20;
	sc.connect_timeout_s = 10;
	c = client_new(&sc, NULL, &cev);
	if (c && client_connect(c, e)) {
		client_free(c);
		return NULL;
	}
	return c;
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

/* The text of a CallToolResult's first content item, or "". Borrowed. */
static const char *result_text(json_t *r)
{
	return json_string_value(
		   json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"))
		   ?: "";
}

static json_t *call(struct client *c, const char *tool, const char *args, struct err *e)
{
	json_t *a = json_loads(args, 0, NULL), *r;

	r = client_call_tool(c, tool, a, 0, NULL, e);
	json_decref(a);
	return r;
}

static void test_list_changed(void)
{
	struct events ev = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
	int port = free_port(), before;
	struct err e = {0};
	json_t *tools, *r;
	struct client *c;
	char url[64];
	pid_t pid;

	pid = start_node(PROBE, "", port);
	CHECK(pid > 0, "probe server did not start on %d", port);
	if (pid <= 0)
		return;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/mcp", port);
	c = connect_to(&ev, TRANSPORT_HTTP, url, &e);
	CHECK(c, "connect %s: %s", url, e.text);
	if (!c)
		goto out_stop;
	tools = client_list_tools(c, &e);
	CHECK(tools && has_tool(tools, "echo") && !has_tool(tools, "extra"), "tools/list: %s",
	      e.text);
	json_decref(tools);
	pthread_mutex_lock(&ev.lock);
	before = ev.tools_changed;
	pthread_mutex_unlock(&ev.lock);
	r = call(c, "add_tool", "{\"name\": \"extra\"}", &e);
	CHECK(r && !strcmp(result_text(r), "added extra"), "add_tool: %s", e.text);
	json_decref(r);
	CHECK(wait_tools_changed(&ev, before + 1, 10), "no tools/list_changed within 10 s");
	tools = client_list_tools(c, &e);
	CHECK(tools && has_tool(tools, "extra"), "tools/list after the change: %s", e.text);
	json_decref(tools);

	/* The GET stream closes; the change sent meanwhile is replayed when we
	 * reconnect with Last-Event-ID after the server's retry delay. */
	r = call(c, "drop_get", "{\"name\": \"later\"}", &e);
	CHECK(r && !strcmp(result_text(r), "added later"), "drop_get: %s", e.text);
	json_decref(r);
	CHECK(wait_tools_changed(&ev, before + 2, 10), "no replayed tools/list_changed in 10 s");
	/* A call whose own stream closes before the result: resumed by GET. */
	r = call(c, "drop_post", "{\"message\": \"resumed\"}", &e);
	CHECK(r && !strcmp(result_text(r), "resumed"), "drop_post: %s", e.text);
	json_decref(r);
	client_free(c);
out_stop:
	stop_node(pid);
}

struct caller {
	pthread_t thread;
	struct client *c;
	int index;
	int ok; /* calls answered with their own message */
};

static void *caller_main(void *arg)
{
	struct caller *k = arg;
	struct err e = {0};
	char args[64], want[32];
	json_t *r;
	int i;

	for (i = 0; i < 5; i++) {
		snprintf(want, sizeof(want), "caller %d call %d", k->index, i);
		snprintf(args, sizeof(args), "{\"message\": \"%s\"}", want);
		r = call(k->c, "echo", args, &e);
		if (r && !strcmp(result_text(r), want))
			k->ok++;
		json_decref(r);
	}
	return NULL;
}

/* Eight threads call through one client at once: every POST has its own
 * worker and easy handle, and each answer reaches its own caller. */
static void test_concurrent_calls(void)
{
	struct events ev = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
	struct caller k[8];
	int port = free_port(), ok = 0;
	struct err e = {0};
	struct client *c;
	char url[64];
	size_t i;
	pid_t pid;

	pid = start_node(PROBE, "", port);
	CHECK(pid > 0, "probe server did not start on %d", port);
	if (pid <= 0)
		return;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/mcp", port);
	c = connect_to(&ev, TRANSPORT_HTTP, url, &e);
	CHECK(c, "connect %s: %s", url, e.text);
	if (!c)
		goto out_stop;
	for (i = 0; i < 8; i++) {
		k[i] = (struct caller){.c = c, .index = (int)i};
		if (pthread_create(&k[i].thread, NULL, caller_main, &k[i]))
			k[i].index = -1;
	}
	for (i = 0; i < 8; i++) {
		if (k[i].index < 0)
			continue;
		pthread_join(k[i].thread, NULL);
		ok += k[i].ok;
	}
	CHECK(ok == 40, "%d of 40 concurrent calls answered right", ok);
	client_free(c);
out_stop:
	stop_node(pid);
}

/* Kill the server, start it again on the same port: our session is gone
 * (the SDK answers 404, server-everything 400), and the next call must
 * initialize again by itself. Then kill it for good: the call fails. */
static void session_loss(const char *script, const char *mode, const char *path, const char *tool,
			 const char *args, const char *want)
{
	struct events ev = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
	int port = free_port();
	struct err e = {0};
	struct client *c;
	char url[64];
	pid_t pid;
	json_t *r;

	pid = start_node(script, mode, port);
	CHECK(pid > 0, "%s did not start on %d", script, port);
	if (pid <= 0)
		return;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
	c = connect_to(&ev, TRANSPORT_HTTP, url, &e);
	CHECK(c, "connect %s: %s", url, e.text);
	if (!c)
		goto out_stop;
	r = call(c, tool, args, &e);
	CHECK(r && strstr(result_text(r), want), "%s first call: %s", script, e.text);
	json_decref(r);

	stop_node(pid);
	pid = start_node(script, mode, port);
	CHECK(pid > 0, "%s did not restart on %d", script, port);
	memset(&e, 0, sizeof(e));
	r = call(c, tool, args, &e);
	CHECK(r && strstr(result_text(r), want), "%s call after restart: %s", script, e.text);
	json_decref(r);
	CHECK(client_alive(c), "%s: client dead after a restart", script);

	stop_node(pid);
	pid = -1;
	memset(&e, 0, sizeof(e));
	r = call(c, tool, args, &e);
	CHECK(!r && e.status == EXIT_UNREACHABLE && strstr(e.text, url),
	      "%s call to a killed server: status %d '%s'", script, e.status, e.text);
	json_decref(r);
	client_free(c);
out_stop:
	stop_node(pid);
}

static void test_session_loss(void)
{
	session_loss(PROBE, "", "/mcp", "echo", "{\"message\": \"again\"}", "again");
	session_loss(EVERYTHING, "streamableHttp", "/mcp", "get-sum", "{\"a\": 2, \"b\": 3}",
		     "is 5");
}

/* Legacy HTTP+SSE, named explicitly and reached by the fallback. */
static void test_legacy(void)
{
	static const enum server_transport trs[] = {TRANSPORT_SSE, TRANSPORT_HTTP};
	struct events ev = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
	int port = free_port();
	struct err e = {0};
	struct client *c;
	char url[64];
	size_t i;
	pid_t pid;
	json_t *r;

	pid = start_node(EVERYTHING, "sse", port);
	CHECK(pid > 0, "server-everything sse did not start on %d", port);
	if (pid <= 0)
		return;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/sse", port);
	for (i = 0; i < 2; i++) {
		c = connect_to(&ev, trs[i], url, &e);
		CHECK(c, "connect %s (%zu): %s", url, i, e.text);
		if (!c)
			continue;
		r = call(c, "get-sum", "{\"a\": 20, \"b\": 22}", &e);
		CHECK(r && strstr(result_text(r), "is 42"), "legacy call (%zu): %s", i, e.text);
		json_decref(r);
		client_free(c);
	}
	stop_node(pid);
}

static void timed(const char *name, void (*fn)(void))
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	fn();
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%s: %ld ms\n", name,
	       (long)((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000));
}

static bool have(const char *path)
{
	return !access(path, R_OK);
}

int main(void)
{
	if (system("node --version >/dev/null 2>&1") || !have(PROBE) || !have(EVERYTHING))
		return CHECK_SKIP("node, " PROBE " or server-everything missing");
	signal(SIGPIPE, SIG_IGN);
	timed("list_changed", test_list_changed);
	timed("concurrent calls", test_concurrent_calls);
	timed("session loss", test_session_loss);
	timed("legacy", test_legacy);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
