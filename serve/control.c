#define _GNU_SOURCE
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../pii/engine.h"
#include "../common/buf.h"
#include "../common/fsx.h"
#include "../common/id.h"
#include "../executor/run.h"
#include "../executor/run_pool.h"
#include "../search/search.h"
#include "../servers/hub.h"
#include "../workspaces/workspace.h"
#include "engine.h"
#include "sched.h"

#define LINE_MAX_BYTES (16u << 20)

struct control {
	struct serve_engine *e;
	char path[4200];
	int fd;	     /* listening */
	int stop[2]; /* a pipe: readable once stopping */
	pthread_t accepter;
	pthread_mutex_t lock; /* conns, nconns */
	pthread_cond_t idle;
	struct conn *conns;
	size_t nconns;
};

struct conn {
	struct control *c;
	int fd;
	struct conn *next; /* protected by control.lock */
};

/* One line to a client. MSG_NOSIGNAL: a client killed before its answer
 * (Ctrl-C of `mcpfs call`) must not take the daemon down with SIGPIPE. */
static int write_msg(int fd, json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	size_t len;
	int rc;

	if (!text)
		return -ENOMEM;
	len = strlen(text);
	text[len++] = '\n';
	rc = fsx_send_all(fd, text, len);
	free(text);
	return rc;
}

static json_t *fail(const struct err *e)
{
	return json_pack("{s:{s:i,s:s,s:{s:i}}}", "error", "code", -32000, "message",
			 e->text[0] ? e->text : "failed", "data", "status",
			 e->status ? e->status : EXIT_FAILED);
}

static json_t *c_call(struct conn *cn, json_t *p)
{
	const char *server = json_string_value(json_object_get(p, "server"));
	const char *tool = json_string_value(json_object_get(p, "tool"));
	struct hub_call_opts o = {
	    .origin = "call",
	    .customer = json_string_value(json_object_get(p, "customer")),
	    .timeout_s = json_number_value(json_object_get(p, "timeout_s")),
	    .start_timeout_s = json_number_value(json_object_get(p, "start_timeout_s")),
	};
	struct err e = {0};
	json_t *res;

	if (!server || !tool) {
		err_set(&e, EXIT_USAGE, "call wants server and tool");
		return fail(&e);
	}
	res = hub_call(cn->c->e->o.hub, server, tool, json_object_get(p, "arguments"), &o, &e);
	return res ? json_pack("{s:o}", "result", res) : fail(&e);
}

static json_t *info_obj(struct hub *h, const char *name)
{
	struct hub_server_info in = {0};

	hub_info(h, name, &in);
	return json_pack("{s:s,s:i,s:I,s:I,s:s,s:s}", "name", name, "state", (int)in.state,
			 "generation", (json_int_t)in.generation, "ntools", (json_int_t)in.ntools,
			 "why", in.why, "log_tail", in.log_tail);
}

static double timeout_of(json_t *p)
{
	double t = json_number_value(json_object_get(p, "timeout_s"));

	return t > 0 ? t : 30;
}

/* Every server's hub_server_info, after starting them (as `mcpfs servers`). */
static json_t *c_servers(struct conn *cn, json_t *p)
{
	struct hub *h = cn->c->e->o.hub;
	json_t *arr = json_array();
	size_t i;

	hub_connect_all(h, timeout_of(p));
	for (i = 0; arr && i < hub_count(h); i++)
		json_array_append_new(arr, info_obj(h, hub_name(h, i)));
	return json_pack("{s:o}", "result", arr);
}

/* Each server's tools, or why not (as `mcpfs tools [SERVER]`). */
static json_t *c_tools(struct conn *cn, json_t *p)
{
	struct hub *h = cn->c->e->o.hub;
	const char *only = json_string_value(json_object_get(p, "server")), *name;
	struct hub_server_info in;
	json_t *arr = json_array(), *tools;
	struct err e = {0};
	size_t i;

	if (!only)
		hub_connect_all(h, timeout_of(p));
	for (i = 0; arr && i < hub_count(h); i++) {
		name = hub_name(h, i);
		if (only && strcmp(only, name))
			continue;
		memset(&in, 0, sizeof(in));
		hub_info(h, name, &in);
		if (!only && in.state == HUB_FAILED) {
			json_array_append_new(arr, json_pack("{s:s,s:s,s:i}", "name", name, "error",
							     in.why, "status", EXIT_UNREACHABLE));
			continue;
		}
		err_clear(&e);
		tools = hub_tools(h, name, NULL, &e);
		json_array_append_new(arr,
				      tools ? json_pack("{s:s,s:o}", "name", name, "tools", tools)
					    : json_pack("{s:s,s:s,s:i}", "name", name, "error",
							e.text, "status", e.status));
	}
	return json_pack("{s:o}", "result", arr);
}

/* Wait for the run in a thread of its own: this one watches the client. */
struct waiter {
	struct run *run;
	json_t *res;
	int status;
	struct err err;
	int done[2];
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->res = run_wait(w->run, &w->status, &w->err);
	if (write(w->done[1], "x", 1) < 0) {
		/* a fresh pipe: cannot fill */
	}
	return NULL;
}

static json_t *c_exec(struct conn *cn, json_t *p)
{
	struct serve_engine *e = cn->c->e;
	struct search_source search = search_hub_source(e->search);
	const char *lang = json_string_value(json_object_get(p, "language")) ?: "python";
	json_t *code = json_object_get(p, "code");
	struct run_opts ro = {
	    .root = e->o.root,
	    .cfg = e->o.cfg,
	    .hub = e->o.hub,
	    .policy = e->o.policy,
	    .customer = json_string_value(json_object_get(p, "customer")),
	    .session = json_string_value(json_object_get(p, "session")),
	    .description = json_string_value(json_object_get(p, "description")),
	    .record = json_is_true(json_object_get(p, "record")),
	    .lang = strcmp(lang, "typescript") ? RUN_LANG_PYTHON : RUN_LANG_TYPESCRIPT,
	    .code = json_string_value(code),
	    .code_len = json_string_length(code),
	    .timeout_s = json_number_value(json_object_get(p, "timeout_s")),
	    .memory_mb = (unsigned)json_integer_value(json_object_get(p, "memory_mb")),
	    .capture = true,
	    .stdin_fd = -1,
	    .cgroup_parent = e->o.cgroup_parent,
	    .search = &search,
	    .output_filter =
		e->o.pii && pii_engine_active(e->o.pii,
					      json_string_value(json_object_get(p, "customer")))
		    ? pii_engine_filter_output
		    : NULL,
	    .output_ctx = e->o.pii,
	};
	struct waiter w = {.done = {-1, -1}};
	struct pollfd pf[2];
	const char *customer = ro.customer ? ro.customer : "default";
	struct err err = {0};
	pthread_t th;
	json_t *out;
	int rc;

	if (!json_is_string(code) || !id_valid(customer, "customer", &err) ||
	    (ro.session && !id_valid(ro.session, "session", &err))) {
		if (!err.text[0])
			err_set(&err, EXIT_USAGE, "exec wants code");
		return fail(&err);
	}
	rc = sched_acquire(e->sched, customer, NULL);
	if (rc < 0) {
		err_set(&err, EXIT_FAILED, "%s",
			rc == -EBUSY ? "the daemon's run queue is full; try again shortly"
				     : "the daemon is shutting down");
		return fail(&err);
	}
	w.run = run_new(&ro, &w.err);
	if (!w.run || run_start(w.run, &w.err) < 0 || pipe2(w.done, O_CLOEXEC) < 0 ||
	    pthread_create(&th, NULL, wait_thread, &w)) {
		if (!w.err.text[0])
			err_set(&w.err, EXIT_FAILED, "exec: %s", strerror(errno));
		out = fail(&w.err);
		goto out;
	}
	pf[0] = (struct pollfd){.fd = w.done[0], .events = POLLIN};
	pf[1] = (struct pollfd){.fd = cn->fd, .events = POLLRDHUP};
	/* The client going away (Ctrl-C of mcpfs exec) stops its run. */
	while (poll(pf, 2, -1) < 0 || !pf[0].revents) {
		if (pf[1].revents) {
			run_cancel(w.run);
			pf[1].fd = -1;
		}
	}
	pthread_join(th, NULL);
	out = w.res ? json_pack("{s:{s:o,s:i}}", "result", "result", w.res, "status", w.status)
		    : fail(&w.err);
out:
	run_free(w.run);
	sched_release(e->sched, customer);
	if (w.done[0] >= 0)
		close(w.done[0]);
	if (w.done[1] >= 0)
		close(w.done[1]);
	return out;
}

/* A customer's workspace is about to grow (`mcpfs workspace create
 * --quota-bytes`): no parked jail may hold its mount. */
static json_t *c_retire(struct conn *cn, json_t *p)
{
	const char *customer = json_string_value(json_object_get(p, "customer"));
	struct err e = {0};

	if (!customer || !id_valid(customer, "customer", &e)) {
		if (!e.text[0])
			err_set(&e, EXIT_USAGE, "retire: customer missing");
		return fail(&e);
	}
	if (cn->c->e->pool)
		run_pool_retire_customer(cn->c->e->pool, customer);
	return json_pack("{s:{}}", "result");
}

static const struct method {
	const char *name;
	json_t *(*fn)(struct conn *cn, json_t *params);
} methods[] = {
    {"call", c_call},	    {"exec", c_exec},	{"retire", c_retire},
    {"servers", c_servers}, {"tools", c_tools},
};

static void handle(struct conn *cn, const char *line, size_t len)
{
	json_t *msg = json_loadb(line, len, 0, NULL), *res = NULL, *id;
	const char *method = json_string_value(json_object_get(msg, "method"));
	struct err e = {0};
	size_t i;

	for (i = 0; method && i < sizeof(methods) / sizeof(methods[0]); i++)
		if (!strcmp(method, methods[i].name))
			res = methods[i].fn(cn, json_object_get(msg, "params"));
	if (!res) {
		err_set(&e, EXIT_USAGE, "%s", msg ? "unknown method" : "not JSON");
		res = fail(&e);
	}
	id = json_object_get(msg, "id");
	json_object_set_new(res, "jsonrpc", json_string("2.0"));
	json_object_set(res, "id", id ? id : json_null());
	write_msg(cn->fd, res);
	json_decref(res);
	json_decref(msg);
}

static void *conn_thread(void *arg)
{
	struct conn *cn = arg;
	struct control *c = cn->c;
	char chunk[65536], *nl;
	struct buf b;
	ssize_t r;

	buf_init(&b, LINE_MAX_BYTES);
	while ((r = read(cn->fd, chunk, sizeof(chunk))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || buf_append(&b, chunk, (size_t)r) < 0)
			break;
		while ((nl = memchr(b.data, '\n', b.len))) {
			size_t len = (size_t)(nl - b.data);

			handle(cn, b.data, len);
			memmove(b.data, nl + 1, b.len - len - 1);
			b.len -= len + 1;
		}
	}
	buf_free(&b);
	pthread_mutex_lock(&c->lock);
	for (struct conn **pp = &c->conns; *pp; pp = &(*pp)->next)
		if (*pp == cn) {
			*pp = cn->next;
			break;
		}
	c->nconns--;
	pthread_cond_broadcast(&c->idle);
	pthread_mutex_unlock(&c->lock);
	close(cn->fd);
	free(cn);
	return NULL;
}

static void *accepter(void *arg)
{
	struct control *c = arg;
	struct pollfd pf[2] = {{.fd = c->fd, .events = POLLIN},
			       {.fd = c->stop[0], .events = POLLIN}};
	pthread_attr_t attr;
	struct conn *cn;
	pthread_t th;
	int fd;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		if (poll(pf, 2, -1) < 0)
			continue;
		if (pf[1].revents)
			break;
		fd = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		cn = calloc(1, sizeof(*cn));
		if (!cn) {
			close(fd);
			continue;
		}
		cn->c = c;
		cn->fd = fd;
		pthread_mutex_lock(&c->lock);
		cn->next = c->conns;
		c->conns = cn;
		c->nconns++;
		if (pthread_create(&th, &attr, conn_thread, cn)) {
			c->conns = cn->next;
			c->nconns--;
			close(fd);
			free(cn);
		}
		pthread_mutex_unlock(&c->lock);
	}
	pthread_attr_destroy(&attr);
	return NULL;
}

/* Is a daemon answering on @path? */
static bool live(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool yes;

	if (fd < 0)
		return false;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	yes = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return yes;
}

struct control *control_start(struct serve_engine *e, bool *taken, struct err *err)
{
	struct control *c = calloc(1, sizeof(*c));
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[4200];

	*taken = false;
	if (!c) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	c->e = e;
	c->fd = c->stop[0] = c->stop[1] = -1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->idle, NULL);
	snprintf(dir, sizeof(dir), "%s/run", e->o.root);
	snprintf(c->path, sizeof(c->path), "%s/" CONTROL_SOCKET, e->o.root);
	if (strlen(c->path) >= sizeof(sa.sun_path)) {
		err_set(err, EXIT_FAILED, "control socket path too long: %s", c->path);
		goto out_free;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		err_set(err, EXIT_FAILED, "mkdir %s: %s", dir, strerror(errno));
		goto out_free;
	}
	if (live(c->path)) {
		*taken = true;
		goto out_free;
	}
	/* A socket no daemon answers on is a dead daemon's (kill -9). */
	unlink(c->path);
	memcpy(sa.sun_path, c->path, strlen(c->path) + 1);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || fchmod(c->fd, 0600) < 0 ||
	    bind(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(c->path, 0600) < 0 ||
	    listen(c->fd, 64) < 0 || pipe2(c->stop, O_CLOEXEC) < 0) {
		err_set(err, EXIT_FAILED, "control socket %s: %s", c->path, strerror(errno));
		goto out_free;
	}
	if (pthread_create(&c->accepter, NULL, accepter, c)) {
		err_set(err, EXIT_FAILED, "pthread_create: %s", strerror(errno));
		goto out_free;
	}
	return c;
out_free:
	if (c->fd >= 0) {
		close(c->fd);
		unlink(c->path);
	}
	if (c->stop[0] >= 0) {
		close(c->stop[0]);
		close(c->stop[1]);
	}
	pthread_cond_destroy(&c->idle);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return NULL;
}

void control_stop(struct control *c)
{
	if (!c)
		return;
	if (write(c->stop[1], "x", 1) < 0) {
		/* a fresh pipe: cannot fill */
	}
	pthread_join(c->accepter, NULL);
	close(c->fd);
	unlink(c->path);
	/* Every connection ends now: its read sees the end, and an exec in
	 * flight sees the hang-up and is cancelled. */
	pthread_mutex_lock(&c->lock);
	for (struct conn *cn = c->conns; cn; cn = cn->next)
		shutdown(cn->fd, SHUT_RDWR);
	while (c->nconns)
		pthread_cond_wait(&c->idle, &c->lock);
	pthread_mutex_unlock(&c->lock);
	close(c->stop[0]);
	close(c->stop[1]);
	pthread_cond_destroy(&c->idle);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
