/* The bridge server: one listening unix socket and a pool of workers. A
 * connection has one read side, held by one worker at a time. The worker
 * that reads a request serves it itself, so a call never waits for a thread
 * to wake; while it does, the connection is parked with the watcher (the
 * accept thread, on epoll), which hands the read side to another worker if
 * a further request arrives meanwhile. Many requests of one connection are
 * so in flight at once, answered by id, and the common case of one request
 * at a time costs no thread hand-off: each wake-up of another thread costs
 * ~30 us here (a cross-CPU interrupt on this VM). Requests that arrive
 * together are queued for the pool. A tools/call result goes back to the
 * code from the thread that reads it from the server (pass_result), before
 * the serving worker wakes; that worker then reads on, polling a little
 * while first when the code calls in a loop (spin_for_request). */
#define _GNU_SOURCE
#include "bridge.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../common/cancel.h"
#include "../common/clock.h"
#include "../servers/hub.h"
#include "../workspaces/session.h"

/* Ceilings: connections at once, workers (one reading per connection plus
 * those making calls), requests waiting per connection, calls listed one by
 * one for the session log, tools summed one by one (jailed code picks the
 * names: past this, the rest are summed together). */
#define BRIDGE_MAX_CONNS 256
#define BRIDGE_MAX_WORKERS (BRIDGE_MAX_CONNS + 64)
#define BRIDGE_MAX_PENDING_PER_CONN 1024
#define BRIDGE_MAX_RECORDS 100000
#define BRIDGE_MAX_TOOLS 1000
#define BRIDGE_READ_CHUNK 65536
/* The largest reply sent on from a server connection's reader thread. */
#define BRIDGE_PASS_MAX 16384
/* How long a reader polls for a request before it sleeps (spin_for_request). */
#define BRIDGE_SPIN_MS 0.15
/* The watcher's epoll data: these two, else a connection's id. */
#define WATCH_LISTEN 0
#define WATCH_STOP 1
/* A connection's epoll events while it is not parked. epoll reports a
 * hang-up whatever the mask: one-shot, it wakes the watcher once, not on
 * every epoll_wait while a worker still holds the connection (the code died
 * with a call in flight). */
#define WATCH_DISARMED EPOLLONESHOT

enum {
	RPC_PARSE = -32700,
	RPC_INVALID = -32600,
	RPC_NO_METHOD = -32601,
	RPC_PARAMS = -32602,
	RPC_FAILED = -32000,
	RPC_TOO_LARGE = -32001,
	RPC_BUSY = -32002
};

struct conn {
	struct bridge *b;
	int fd;
	uint64_t id;	       /* names it to the watcher's epoll; never reused */
	pthread_mutex_t wlock; /* serializes replies on fd */
	/* The read side, used only by the worker holding it (handed from
	 * worker to worker, never shared). */
	char *in;
	size_t cap, len;
	double served_ms; /* when its last request was served, else 0 */
	bool spin;	  /* the next request is expected soon: poll for it */
	bool authed;
	uint64_t tickets;  /* parks so far; protected by b->lock */
	uint64_t parked;   /* the park's ticket while its reader serves, else 0; b->lock */
	unsigned refs;	   /* the read side + call jobs; protected by b->lock */
	unsigned pending;  /* call jobs queued or running; protected by b->lock */
	struct conn *next; /* b->conns; protected by b->lock */
};

struct job {
	struct conn *c; /* holds a reference */
	json_t *req;	/* new; NULL: read requests from the connection */
	struct job *next;
};

struct bridge {
	struct hub *hub;
	char *path, *token, *customer, *workspace, *session;
	const struct ws *ws;
	double call_timeout_s, deadline_s;
	struct cancel cancel; /* fired by bridge_stop: calls in flight give up */
	size_t max_result;
	int lfd;
	int epfd; /* the watcher's: the listening socket, stop_pipe, parked connections */
	int stop_pipe[2];
	pthread_t acceptor;
	bool stopped;	      /* bridge_stop ran; only the owner's thread touches it */
	atomic_bool spinning; /* a reader is polling (spin_for_request) */

	pthread_mutex_t lock; /* everything below */
	pthread_cond_t work;  /* a job was queued, or stopping */
	pthread_cond_t idle;  /* a job finished or a connection ended */
	struct job *head, *tail;
	unsigned nworkers, nidle, nqueued, njobs_running;
	pthread_t workers[BRIDGE_MAX_WORKERS];
	struct conn *conns;
	unsigned nconns;
	uint64_t next_id;
	bool stopping;
	json_t *records; /* new array: the first max_records calls */
	size_t max_records;
	json_t *by_tool; /* new array: every call, summed per (server, tool) */
	json_t *by_name; /* new object: server -> tool -> its by_tool entry */
	size_t ncalls;
};

/* A request being served: where its reply goes. */
struct request {
	struct conn *c;
	json_t *id;	 /* borrowed; NULL for a notification */
	uint64_t ticket; /* the park of the read side its worker holds, else 0 */
	bool kept;	 /* pass_result gave that read side back to the worker */
	bool replied;	 /* the reply already went out (pass_result) */
};

struct method {
	const char *name;
	/* Returns a new result (json null allowed), or NULL with *code and @err. */
	json_t *(*run)(struct bridge *b, struct request *rq, json_t *params, int *code,
		       struct err *err);
};

/* A string member without an embedded NUL (which C would silently cut), or NULL. */
static const char *plain_string(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	const char *s = json_string_value(v);

	return s && strlen(s) == json_string_length(v) ? s : NULL;
}

static int conn_try_send(struct conn *c, json_t *msg);
static int reply_result(struct conn *c, json_t *id, json_t *res);
static uint64_t park(struct conn *c);
static bool unpark(struct conn *c, uint64_t ticket);

/* A tools/call result, sent on from the server connection's reader thread
 * the moment it arrives (client_call_hooks.result): the worker serving the
 * call is not woken first, which saves ~70 us a call here. When it cannot go
 * out at once, the worker sends it as usual. The read side is taken back
 * first: the code's next request, which can come before the worker is awake,
 * then waits for that worker instead of waking the watcher and another
 * worker (two wake-ups more). */
static void pass_result(void *ctx, json_t *result)
{
	struct request *rq = ctx;
	json_t *r = json_pack("{s:s,s:O,s:O}", "jsonrpc", "2.0", "id", rq->id, "result", result);
	bool mine = rq->ticket && unpark(rq->c, rq->ticket);

	if (r && conn_try_send(rq->c, r) == 0)
		rq->replied = true;
	json_decref(r);
	if (!mine)
		return;
	/* Not sent: the worker sends it, perhaps slowly, and requests that come
	 * meanwhile are read by another (parked again; kept if that fails). */
	rq->ticket = rq->replied ? 0 : park(rq->c);
	rq->kept = rq->ticket == 0;
}

/* The summary entry of @server/@tool, made on first use; past
 * BRIDGE_MAX_TOOLS, the one of "*" / "*". NULL when out of memory. Called
 * with b->lock held. */
static json_t *tool_entry(struct bridge *b, const char *server, const char *tool)
{
	json_t *tools = json_object_get(b->by_name, server), *t;

	t = json_object_get(tools, tool);
	if (t)
		return t;
	if (json_array_size(b->by_tool) >= BRIDGE_MAX_TOOLS &&
	    (strcmp(server, "*") || strcmp(tool, "*")))
		return tool_entry(b, "*", "*");
	if (!tools) {
		tools = json_object();
		if (json_object_set_new(b->by_name, server, tools) < 0)
			return NULL;
	}
	t = json_pack("{s:s,s:s,s:I,s:I,s:f}", "server", server, "tool", tool, "calls",
		      (json_int_t)0, "failed", (json_int_t)0, "duration_ms", 0.0);
	if (json_array_append_new(b->by_tool, t) < 0 || json_object_set(tools, tool, t) < 0)
		return NULL;
	return t;
}

/* Count one call in the per-tool summary. Called with b->lock held. */
static void sum_call(struct bridge *b, const char *server, const char *tool, bool ok, double ms)
{
	json_t *t = tool_entry(b, server, tool), *v;

	if (!t)
		return;
	v = json_object_get(t, "calls");
	json_integer_set(v, json_integer_value(v) + 1);
	v = json_object_get(t, "failed");
	json_integer_set(v, json_integer_value(v) + !ok);
	v = json_object_get(t, "duration_ms");
	json_real_set(v, json_real_value(v) + ms);
}

static json_t *m_tools_call(struct bridge *b, struct request *rq, json_t *params, int *code,
			    struct err *err)
{
	const char *server = plain_string(params, "server");
	const char *tool = plain_string(params, "name");
	json_t *args = json_object_get(params, "arguments");
	struct hub_call_opts o = {0};
	json_t *res, *rec;
	double t0, ms;
	int sent;
	bool ok;

	if (!server || !tool || (args && !json_is_object(args) && !json_is_null(args))) {
		*code = RPC_PARAMS;
		err_set(err, EXIT_USAGE,
			"tools/call needs string server and name, object arguments");
		return NULL;
	}
	o.timeout_s = b->call_timeout_s;
	o.deadline_s = b->deadline_s;
	o.hooks.cancel = &b->cancel;
	o.customer = b->customer;
	o.workspace = b->workspace;
	o.session = b->session;
	o.origin = "bridge";
	if (rq->id) {
		o.hooks.result = pass_result;
		o.hooks.result_ctx = rq;
	}
	t0 = clock_now_ms();
	res = hub_call(b->hub, server, tool, json_is_object(args) ? args : NULL, &o, err);
	ms = clock_now_ms() - t0;
	ok = res && !json_is_true(json_object_get(res, "isError"));
	/* Not passed on by pass_result: reply here, so that a result over the
	 * cap, which the code gets as an error, is recorded as one. */
	if (res && rq->id && !rq->replied) {
		sent = reply_result(rq->c, rq->id, res);
		rq->replied = sent != -ENOMEM;
		ok = ok && sent != -E2BIG;
	}
	*code = RPC_FAILED;
	rec = json_pack("{s:s,s:s,s:f,s:b}", "server", server, "tool", tool, "duration_ms", ms,
			"ok", ok);
	pthread_mutex_lock(&b->lock);
	b->ncalls++;
	if (rec && json_array_size(b->records) < b->max_records)
		json_array_append(b->records, rec);
	sum_call(b, server, tool, ok, ms);
	pthread_mutex_unlock(&b->lock);
	json_decref(rec);
	return res;
}

static json_t *m_checkpoint_set(struct bridge *b, struct request *rq, json_t *params, int *code,
				struct err *err)
{
	(void)rq;
	*code = RPC_FAILED;
	if (!b->ws || !b->session) {
		err_set(err, EXIT_USAGE, "checkpoints need a customer workspace and a session");
		return NULL;
	}
	if (!json_is_object(params)) {
		*code = RPC_PARAMS;
		err_set(err, EXIT_USAGE, "checkpoint/set needs an object");
		return NULL;
	}
	if (session_checkpoint_set(b->ws, b->session, params, err) < 0)
		return NULL;
	return json_object();
}

static json_t *m_checkpoint_get(struct bridge *b, struct request *rq, json_t *params, int *code,
				struct err *err)
{
	(void)rq;
	(void)params;
	*code = RPC_FAILED;
	if (!b->ws || !b->session) {
		err_set(err, EXIT_USAGE, "checkpoints need a customer workspace and a session");
		return NULL;
	}
	return session_checkpoint_get(b->ws, b->session, err);
}

static const struct method methods[] = {
    {"tools/call", m_tools_call},
    {"checkpoint/set", m_checkpoint_set},
    {"checkpoint/get", m_checkpoint_get},
};

/* Write one reply line (@msg borrowed); replies past the cap become an error
 * for the same id. Returns 0, -E2BIG when that error went out instead, or
 * -errno. */
static int conn_send(struct conn *c, json_t *msg)
{
	char *s = json_dumps(msg, JSON_COMPACT | JSON_ENSURE_ASCII);
	size_t len, off = 0;
	ssize_t w;
	int rc = 0;
	bool capped = false;

	if (!s)
		return -ENOMEM;
	len = strlen(s);
	if (len > c->b->max_result) {
		char text[160];
		json_t *e;

		snprintf(text, sizeof(text),
			 "result of %zu bytes exceeds the bridge cap of %zu bytes", len,
			 c->b->max_result);
		free(s);
		e = json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id",
			      json_object_get(msg, "id"), "error", "code", RPC_TOO_LARGE, "message",
			      text);
		s = e ? json_dumps(e, JSON_COMPACT) : NULL;
		json_decref(e);
		if (!s)
			return -ENOMEM;
		len = strlen(s);
		capped = true;
	}
	s[len] = '\n'; /* the terminator becomes the line end; never read as a string again */
	pthread_mutex_lock(&c->wlock);
	while (off < len + 1) {
		w = send(c->fd, s + off, len + 1 - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			rc = -errno;
			break;
		}
		off += (size_t)w;
	}
	pthread_mutex_unlock(&c->wlock);
	free(s);
	return rc ? rc : capped ? -E2BIG : 0;
}

/* Send one reply line (@msg borrowed) only if it goes out at once: small,
 * the connection's writer lock free, room in the socket. 0 when sent (or the
 * connection ended), -EAGAIN when the caller must use conn_send. */
static int conn_try_send(struct conn *c, json_t *msg)
{
	struct pollfd room = {.fd = c->fd, .events = POLLOUT};
	char *s = json_dumps(msg, JSON_COMPACT | JSON_ENSURE_ASCII);
	size_t len, off = 0;
	ssize_t w;
	int rc = -EAGAIN;

	if (!s)
		return -ENOMEM;
	len = strlen(s);
	if (len > BRIDGE_PASS_MAX || len > c->b->max_result || pthread_mutex_trylock(&c->wlock)) {
		free(s);
		return -EAGAIN;
	}
	s[len] = '\n';
	/* POLLOUT on a unix stream socket means three quarters of its send
	 * buffer are free, far more than BRIDGE_PASS_MAX: the line fits. */
	if (poll(&room, 1, 0) == 1 && (room.revents & POLLOUT)) {
		while (off < len + 1) {
			w = send(c->fd, s + off, len + 1 - off, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		if (off > 0)
			rc = 0;
		if (off > 0 && off < len + 1) /* half a line out: the stream is broken */
			shutdown(c->fd, SHUT_RDWR);
	}
	pthread_mutex_unlock(&c->wlock);
	free(s);
	return rc;
}

/* Send @res (borrowed) as the result for @id. Returns as conn_send. */
static int reply_result(struct conn *c, json_t *id, json_t *res)
{
	json_t *r = json_pack("{s:s,s:O,s:O}", "jsonrpc", "2.0", "id", id, "result", res);
	int rc = r ? conn_send(c, r) : -ENOMEM;

	json_decref(r);
	return rc;
}

static void reply_error(struct conn *c, json_t *id, int code, const char *message)
{
	json_t *r = json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id",
			      id ? id : json_null(), "error", "code", code, "message", message);

	if (r)
		conn_send(c, r);
	json_decref(r);
}

/* Serve @req. *@ticket (@ticket NULL: none): the park of the read side
 * this worker holds; pass_result may park it anew. Returns true when the
 * read side came back to this worker meanwhile (no unpark needed). */
static bool handle(struct conn *c, json_t *req, uint64_t *ticket)
{
	const char *name = json_string_value(json_object_get(req, "method"));
	json_t *id = json_object_get(req, "id");
	json_t *params = json_object_get(req, "params");
	struct request rq = {.c = c, .id = id, .ticket = ticket ? *ticket : 0};
	struct err e = {0};
	json_t *res = NULL;
	int code = RPC_NO_METHOD;
	size_t i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (name && !strcmp(name, methods[i].name))
			break;
	if (i == sizeof(methods) / sizeof(methods[0]))
		err_set(&e, EXIT_USAGE, "unknown method '%s'", name ? name : "(none)");
	else
		res = methods[i].run(c->b, &rq, params ? params : json_null(), &code, &e);
	if (!id || rq.replied)
		goto out; /* a notification: nobody waits for an answer; or answered */
	if (!res) {
		reply_error(c, id, code, e.text[0] ? e.text : "failed");
		goto out;
	}
	if (reply_result(c, id, res) == -ENOMEM)
		reply_error(c, id, RPC_FAILED, "out of memory");
out:
	json_decref(res);
	if (ticket)
		*ticket = rq.ticket;
	return rq.kept;
}

/* Drop one reference; the last one closes the socket and frees. Called with
 * b->lock held. */
static void conn_put_locked(struct conn *c)
{
	struct bridge *b = c->b;
	struct conn **pp;

	if (--c->refs)
		return;
	for (pp = &b->conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	b->nconns--;
	close(c->fd);
	pthread_mutex_destroy(&c->wlock);
	free(c->in);
	free(c);
	pthread_cond_broadcast(&b->idle);
}

static void read_conn(struct conn *c);

static void *worker_main(void *arg)
{
	struct bridge *b = arg;
	struct job *j;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (!b->head && !b->stopping) {
			b->nidle++;
			pthread_cond_wait(&b->work, &b->lock);
			b->nidle--;
		}
		if (!b->head)
			break;
		j = b->head;
		b->head = j->next;
		if (!b->head)
			b->tail = NULL;
		b->nqueued--;
		b->njobs_running++;
		pthread_mutex_unlock(&b->lock);
		if (j->req) {
			handle(j->c, j->req, NULL);
			json_decref(j->req);
		} else {
			read_conn(j->c);
		}
		pthread_mutex_lock(&b->lock);
		b->njobs_running--;
		if (j->req)
			j->c->pending--;
		conn_put_locked(j->c);
		free(j);
		pthread_cond_broadcast(&b->idle);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* Queue a job for @c: @req (stolen) to serve, or NULL to read. Each job
 * queued has a worker to itself: an idle one that no earlier job is waking
 * already, else a new one. A job left to wait for a busy worker could wait
 * for good: a reader keeps its worker while its connection is quiet. Past
 * BRIDGE_MAX_WORKERS one waits: of so many, all but BRIDGE_MAX_CONNS serve
 * calls, which end. Returns 0 or -1 (then @req was answered). */
static int enqueue(struct conn *c, json_t *req)
{
	struct bridge *b = c->b;
	struct job *j = calloc(1, sizeof(*j));
	int rc;

	if (!j) {
		if (req)
			reply_error(c, json_object_get(req, "id"), RPC_FAILED, "out of memory");
		json_decref(req);
		return -1;
	}
	j->c = c;
	j->req = req;
	pthread_mutex_lock(&b->lock);
	if (req && c->pending >= BRIDGE_MAX_PENDING_PER_CONN) {
		pthread_mutex_unlock(&b->lock);
		reply_error(c, json_object_get(req, "id"), RPC_BUSY, "too many requests in flight");
		json_decref(req);
		free(j);
		return -1;
	}
	if (b->nqueued >= b->nidle && b->nworkers < BRIDGE_MAX_WORKERS) {
		rc = pthread_create(&b->workers[b->nworkers], NULL, worker_main, b);
		if (rc) {
			pthread_mutex_unlock(&b->lock);
			if (req)
				reply_error(c, json_object_get(req, "id"), RPC_BUSY,
					    "no thread to serve the request");
			json_decref(req);
			free(j);
			return -1;
		}
		b->nworkers++;
	}
	c->refs++;
	if (req)
		c->pending++;
	if (b->tail)
		b->tail->next = j;
	else
		b->head = j;
	b->tail = j;
	b->nqueued++;
	pthread_cond_signal(&b->work);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

static bool token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	for (i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/* One complete line: the first must authenticate. Returns false to close
 * the connection; a request to serve goes to *req (new), NULL if none. */
static bool on_line(struct conn *c, char *line, size_t len, json_t **req)
{
	json_error_t je;
	json_t *r = json_loadb(line, len, 0, &je), *ok;
	const char *method, *tok;

	*req = NULL;
	if (!r || !json_is_object(r)) {
		reply_error(c, NULL, r ? RPC_INVALID : RPC_PARSE,
			    r ? "a request must be an object" : je.text);
		json_decref(r);
		return c->authed;
	}
	if (c->authed) {
		*req = r;
		return true;
	}
	method = json_string_value(json_object_get(r, "method"));
	tok = json_string_value(json_object_get(json_object_get(r, "params"), "token"));
	if (method && !strcmp(method, "auth") && tok && token_equal(tok, c->b->token)) {
		ok = json_pack("{s:s,s:O,s:{}}", "jsonrpc", "2.0", "id", json_object_get(r, "id"),
			       "result");
		if (ok)
			conn_send(c, ok);
		json_decref(ok);
		json_decref(r);
		c->authed = true;
		return true;
	}
	reply_error(c, json_object_get(r, "id"), RPC_INVALID,
		    "the first request must be auth with the run's token");
	json_decref(r);
	return false;
}

/* Make room for a full read chunk in @in (@cap bytes now), up to the line
 * ceiling. Returns 0 or -E2BIG/-ENOMEM. */
static int grow(char **in, size_t *cap, size_t len)
{
	size_t want = *cap ? *cap : BRIDGE_READ_CHUNK + 1;
	char *p;

	if (*cap - len >= BRIDGE_READ_CHUNK + 1)
		return 0;
	while (want - len < BRIDGE_READ_CHUNK + 1)
		want *= 2;
	if (want > MCPFS_BRIDGE_MAX_LINE + 2 * BRIDGE_READ_CHUNK + 2)
		return -E2BIG;
	p = realloc(*in, want);
	if (!p)
		return -ENOMEM;
	*in = p;
	*cap = want;
	return 0;
}

/* Park @c with the watcher while its reader serves a request: data that
 * arrives meanwhile gets a reader of its own. Returns the park's ticket, or
 * 0 when it could not be parked. */
static uint64_t park(struct conn *c)
{
	struct bridge *b = c->b;
	struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT, .data.u64 = c->id};
	uint64_t ticket;

	pthread_mutex_lock(&b->lock);
	ticket = c->parked = ++c->tickets;
	pthread_mutex_unlock(&b->lock);
	if (epoll_ctl(b->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		return ticket;
	pthread_mutex_lock(&b->lock);
	c->parked = 0;
	pthread_mutex_unlock(&b->lock);
	return 0;
}

/* Take the read side back after serving. False when the watcher handed it
 * to another worker meanwhile (who may have parked it again: a ticket of
 * its own). */
static bool unpark(struct conn *c, uint64_t ticket)
{
	struct bridge *b = c->b;
	struct epoll_event none = {.events = WATCH_DISARMED, .data.u64 = c->id};
	bool mine;

	pthread_mutex_lock(&b->lock);
	mine = c->parked == ticket;
	if (mine)
		c->parked = 0;
	pthread_mutex_unlock(&b->lock);
	if (mine) /* disarm; an event already on its way finds it unparked */
		epoll_ctl(b->epfd, EPOLL_CTL_MOD, c->fd, &none);
	return mine;
}

/* The watcher saw data on connection @id: a read job for it if it is
 * parked (not if its reader took it back first, or it is gone). */
static void claim(struct bridge *b, uint64_t id)
{
	struct conn *c;

	pthread_mutex_lock(&b->lock);
	for (c = b->conns; c && c->id != id; c = c->next)
		;
	if (!c || !c->parked) {
		pthread_mutex_unlock(&b->lock);
		return;
	}
	c->parked = 0;
	c->refs++; /* held across enqueue, which takes its own */
	pthread_mutex_unlock(&b->lock);
	if (enqueue(c, NULL) < 0)
		shutdown(c->fd, SHUT_RD);
	pthread_mutex_lock(&b->lock);
	conn_put_locked(c);
	pthread_mutex_unlock(&b->lock);
}

/* A program calling tools in a loop sends its next request within tens of
 * microseconds of the reply; waking a sleeping thread costs ~40 us here (a
 * cross-CPU interrupt on this VM). So when the last request came that soon
 * after the one before was served, poll for the next one a little while
 * before sleeping. A program that pauses between calls (or a loaded machine,
 * which stretches the gaps) turns the polling off, until a request comes
 * soon again; and one reader of the bridge polls at a time, so threads and
 * Promise.all do not fill the CPUs with polling. */
static void spin_for_request(struct conn *c)
{
	double until;
	char byte;

	if (!c->spin || atomic_exchange(&c->b->spinning, true))
		return;
	until = clock_now_ms() + BRIDGE_SPIN_MS;
	while (recv(c->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) < 0 && errno == EAGAIN)
		if (clock_now_ms() > until) {
			c->spin = false;
			break;
		}
	atomic_store(&c->b->spinning, false);
}

/* Read until requests are in hand. Requests that came together go to the
 * pool but the last, returned in *last (NULL if none). Returns false when
 * the read side ends: EOF, or the connection is to be closed (bad token,
 * overlong line). */
static bool read_requests(struct conn *c, json_t **last)
{
	json_t *req;
	bool open = true, eof = false;
	ssize_t r;
	char *nl;
	size_t used, n;

	*last = NULL;
	while (open && !*last) {
		if (grow(&c->in, &c->cap, c->len) < 0) {
			reply_error(c, NULL, RPC_TOO_LARGE, "request line too long");
			open = false;
			break;
		}
		spin_for_request(c);
		r = recv(c->fd, c->in + c->len, c->cap - c->len - 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			eof = true;
			break;
		}
		if (c->served_ms > 0)
			c->spin = clock_now_ms() - c->served_ms < BRIDGE_SPIN_MS;
		c->len += (size_t)r;
		used = 0;
		while (open && (nl = memchr(c->in + used, '\n', c->len - used))) {
			n = (size_t)(nl - (c->in + used));
			if (n > MCPFS_BRIDGE_MAX_LINE) {
				reply_error(c, NULL, RPC_TOO_LARGE, "request line too long");
				open = false;
			} else if (n && !on_line(c, c->in + used, n, &req)) {
				open = false;
			} else if (n && req) {
				if (*last)
					enqueue(c, *last);
				*last = req;
			}
			used += n + 1;
		}
		if (c->len - used > MCPFS_BRIDGE_MAX_LINE) {
			reply_error(c, NULL, RPC_TOO_LARGE, "request line too long");
			open = false;
		}
		memmove(c->in, c->in + used, c->len - used);
		c->len -= used;
	}
	if (open && !eof)
		return true;
	/* The client ended: replies in flight still go out. We ended it: the
	 * client sees the end at once. */
	shutdown(c->fd, eof && open ? SHUT_RD : SHUT_RDWR);
	free(c->in);
	c->in = NULL;
	c->cap = c->len = 0;
	return false;
}

/* The read side: read a request, serve it here with the connection parked,
 * take the read side back and go on; until it ends, or the watcher handed
 * it to another worker while this one served. */
static void read_conn(struct conn *c)
{
	uint64_t ticket = 0;
	json_t *last;
	bool more, kept;

	for (;;) {
		more = read_requests(c, &last);
		if (!last)
			return;
		if (more && !(ticket = park(c))) {
			/* no watcher: another worker reads on */
			if (enqueue(c, NULL) < 0)
				shutdown(c->fd, SHUT_RD);
			more = false;
		}
		kept = handle(c, last, more ? &ticket : NULL);
		json_decref(last);
		if (!more || !(kept || unpark(c, ticket)))
			return;
		c->served_ms = clock_now_ms();
	}
}

/* A connection for @fd, known to the watcher's epoll but disarmed
 * (WATCH_DISARMED) until parked; when that fails it is never parked (park). */
static struct conn *conn_new(struct bridge *b, int fd)
{
	struct epoll_event none = {.events = WATCH_DISARMED};
	struct conn *c;

	pthread_mutex_lock(&b->lock);
	if (b->nconns >= BRIDGE_MAX_CONNS || !(c = calloc(1, sizeof(*c)))) {
		pthread_mutex_unlock(&b->lock);
		return NULL;
	}
	c->b = b;
	c->fd = fd;
	c->id = b->next_id++;
	none.data.u64 = c->id;
	epoll_ctl(b->epfd, EPOLL_CTL_ADD, fd, &none);
	c->refs = 1; /* held until the read job is queued */
	pthread_mutex_init(&c->wlock, NULL);
	c->next = b->conns;
	b->conns = c;
	b->nconns++;
	pthread_mutex_unlock(&b->lock);
	return c;
}

/* The watcher: new connections, and data on parked ones. */
static void *acceptor_main(void *arg)
{
	struct bridge *b = arg;
	struct epoll_event evs[16];
	struct conn *c;
	int n, i, fd;

	for (;;) {
		n = epoll_wait(b->epfd, evs, sizeof(evs) / sizeof(evs[0]), -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (i = 0; i < n; i++) {
			if (evs[i].data.u64 == WATCH_STOP)
				return NULL;
			if (evs[i].data.u64 != WATCH_LISTEN) {
				claim(b, evs[i].data.u64);
				continue;
			}
			fd = accept4(b->lfd, NULL, NULL, SOCK_CLOEXEC);
			if (fd < 0 && errno == EINVAL)
				return NULL; /* shut down by bridge_stop */
			if (fd < 0)
				continue;
			if (!(c = conn_new(b, fd))) {
				close(fd);
				continue;
			}
			enqueue(c, NULL);
			pthread_mutex_lock(&b->lock);
			conn_put_locked(c);
			pthread_mutex_unlock(&b->lock);
		}
	}
	return NULL;
}

int bridge_token_new(char *out, size_t n)
{
	unsigned char raw[16];
	size_t i;

	if (n < 2 * sizeof(raw) + 1)
		return -ENOSPC;
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return -errno ? -errno : -EIO;
	for (i = 0; i < sizeof(raw); i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

static char *dup_or_null(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = true;
	return d;
}

/* Bind @fd to @path. A path longer than sun_path goes through its folder's
 * descriptor (/proc/self/fd/N/name), which is short. */
static int bind_path(int fd, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[4096];
	const char *slash = strrchr(path, '/');
	int dfd, rc, saved;

	if (strlen(path) < sizeof(sa.sun_path)) {
		memcpy(sa.sun_path, path, strlen(path) + 1);
		return bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	}
	if (!slash || (size_t)(slash - path) >= sizeof(dir) ||
	    strlen(slash) > sizeof(sa.sun_path) - 32) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	dfd = open(dir[0] ? dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d%s", dfd, slash);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	saved = errno;
	close(dfd);
	errno = saved;
	return rc;
}

static int listen_on(const char *path, struct err *err)
{
	struct stat st;
	int fd, saved;

	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(err, EXIT_FAILED, "socket(AF_UNIX): %s", strerror(errno));
	if (bind_path(fd, path) < 0 || chmod(path, 0600) < 0 || listen(fd, 128) < 0) {
		saved = errno;
		close(fd);
		return err_set(err, EXIT_USAGE, "bind/listen(%s): %s", path, strerror(saved));
	}
	return fd;
}

static int watch_new(struct bridge *b)
{
	struct epoll_event l = {.events = EPOLLIN, .data.u64 = WATCH_LISTEN};
	struct epoll_event s = {.events = EPOLLIN, .data.u64 = WATCH_STOP};

	b->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (b->epfd < 0 || epoll_ctl(b->epfd, EPOLL_CTL_ADD, b->lfd, &l) < 0 ||
	    epoll_ctl(b->epfd, EPOLL_CTL_ADD, b->stop_pipe[0], &s) < 0)
		return -1;
	return 0;
}

struct bridge *bridge_new(const char *path, const struct bridge_opts *o, struct err *err)
{
	struct bridge *b = calloc(1, sizeof(*b));
	bool fail = false;

	if (!b) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	b->lfd = b->epfd = b->stop_pipe[0] = b->stop_pipe[1] = -1;
	b->next_id = WATCH_STOP + 1;
	b->hub = o->hub;
	b->ws = o->ws;
	b->call_timeout_s = o->call_timeout_s;
	b->deadline_s = o->deadline_s;
	cancel_init(&b->cancel);
	b->max_result = o->max_result ? o->max_result : MCPFS_BRIDGE_MAX_LINE;
	b->path = dup_or_null(path, &fail);
	b->token = dup_or_null(o->token ? o->token : "", &fail);
	b->customer = dup_or_null(o->customer, &fail);
	b->workspace = dup_or_null(o->workspace, &fail);
	b->session = dup_or_null(o->session, &fail);
	b->records = json_array();
	b->max_records = o->max_records ? o->max_records : BRIDGE_MAX_RECORDS;
	b->by_tool = json_array();
	b->by_name = json_object();
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->work, NULL);
	pthread_cond_init(&b->idle, NULL);
	if (fail || !b->records || !b->by_tool || !b->by_name) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out_free;
	}
	if (!b->token[0]) {
		err_set(err, EXIT_USAGE, "bridge: an empty token would let anybody in");
		goto out_free;
	}
	if (pipe2(b->stop_pipe, O_CLOEXEC) < 0) {
		err_set(err, EXIT_FAILED, "pipe2: %s", strerror(errno));
		goto out_free;
	}
	b->lfd = listen_on(path, err);
	if (b->lfd < 0)
		goto out_free;
	if (watch_new(b) < 0) {
		err_set(err, EXIT_FAILED, "epoll: %s", strerror(errno));
		unlink(path);
		goto out_free;
	}
	if (pthread_create(&b->acceptor, NULL, acceptor_main, b)) {
		err_set(err, EXIT_FAILED, "pthread_create(bridge acceptor) failed");
		unlink(path);
		goto out_free;
	}
	return b;
out_free:
	if (b->epfd >= 0)
		close(b->epfd);
	if (b->lfd >= 0)
		close(b->lfd);
	if (b->stop_pipe[0] >= 0) {
		close(b->stop_pipe[0]);
		close(b->stop_pipe[1]);
	}
	json_decref(b->records);
	json_decref(b->by_tool);
	json_decref(b->by_name);
	free(b->path);
	free(b->token);
	free(b->customer);
	free(b->workspace);
	free(b->session);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->work);
	pthread_cond_destroy(&b->idle);
	cancel_destroy(&b->cancel);
	free(b);
	return NULL;
}

size_t bridge_ncalls(struct bridge *b)
{
	size_t n;

	pthread_mutex_lock(&b->lock);
	n = b->ncalls;
	pthread_mutex_unlock(&b->lock);
	return n;
}

/* A copy of @a, one of the arrays b->lock guards. */
static json_t *copy_locked(struct bridge *b, json_t *a)
{
	json_t *copy;

	pthread_mutex_lock(&b->lock);
	copy = json_deep_copy(a);
	pthread_mutex_unlock(&b->lock);
	return copy;
}

json_t *bridge_calls(struct bridge *b)
{
	return copy_locked(b, b->records);
}

json_t *bridge_calls_by_tool(struct bridge *b)
{
	return copy_locked(b, b->by_tool);
}

void bridge_stop(struct bridge *b)
{
	unsigned i;

	if (b->stopped)
		return;
	b->stopped = true;
	if (write(b->stop_pipe[1], "x", 1) < 0) {
		/* the acceptor also ends when the listening socket shuts down */
		shutdown(b->lfd, SHUT_RDWR);
	}
	pthread_join(b->acceptor, NULL);
	close(b->lfd);
	unlink(b->path);
	cancel_fire(&b->cancel);
	pthread_mutex_lock(&b->lock);
	/* End every connection: blocked reads return, read jobs end, calls
	 * in flight return cancelled and drop their references. */
	while (b->conns) {
		struct conn *c;

		for (c = b->conns; c; c = c->next)
			shutdown(c->fd, SHUT_RDWR);
		pthread_cond_wait(&b->idle, &b->lock);
	}
	while (b->head || b->njobs_running)
		pthread_cond_wait(&b->idle, &b->lock);
	b->stopping = true;
	pthread_cond_broadcast(&b->work);
	pthread_mutex_unlock(&b->lock);
	for (i = 0; i < b->nworkers; i++)
		pthread_join(b->workers[i], NULL);
}

void bridge_free(struct bridge *b)
{
	if (!b)
		return;
	bridge_stop(b);
	close(b->epfd);
	close(b->stop_pipe[0]);
	close(b->stop_pipe[1]);
	json_decref(b->records);
	json_decref(b->by_tool);
	json_decref(b->by_name);
	free(b->path);
	free(b->token);
	free(b->customer);
	free(b->workspace);
	free(b->session);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->work);
	pthread_cond_destroy(&b->idle);
	cancel_destroy(&b->cancel);
	free(b);
}
