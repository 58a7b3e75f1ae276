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
#include "../common/fsx.h"
#include "bridge_i.h"

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

static int conn_try_send(struct conn *c, json_t *msg);
static uint64_t park(struct conn *c);
static bool unpark(struct conn *c, uint64_t ticket);

/* A tools/call result, sent on from the server connection's reader thread
 * the moment it arrives (client_call_hooks.result): the worker serving the
 * call is not woken first, which saves ~70 us a call here. When it cannot go
 * out at once, the worker sends it as usual. The read side is taken back
 * first: the code's next request, which can come before the worker is awake,
 * then waits for that worker instead of waking the watcher and another
 * worker (two wake-ups more). */
void bridge_pass_result(void *ctx, json_t *result)
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

bool bridge_charge(struct bridge *b, size_t n)
{
	bool ok;

	pthread_mutex_lock(&b->lock);
	ok = n <= b->budget - b->used;
	if (ok)
		b->used += n;
	pthread_mutex_unlock(&b->lock);
	return ok;
}

void bridge_uncharge(struct bridge *b, size_t n)
{
	pthread_mutex_lock(&b->lock);
	b->used -= n;
	pthread_mutex_unlock(&b->lock);
}

/* Write one reply line (@msg borrowed); replies past the cap become an error
 * for the same id. Returns 0, -E2BIG when that error went out instead, or
 * -errno. */
static int conn_send(struct conn *c, json_t *msg)
{
	char *s = json_dumps(msg, JSON_COMPACT | JSON_ENSURE_ASCII);
	size_t len, charged = 0;
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
	if (!bridge_charge(c->b, len + 1)) {
		char text[160];
		json_t *e;

		snprintf(text, sizeof(text),
			 "reply of %zu bytes does not fit in what the run's bridge budget of %zu "
			 "bytes has left",
			 len, c->b->budget);
		free(s);
		e = json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id",
			      json_object_get(msg, "id"), "error", "code", RPC_BUSY, "message",
			      text);
		s = e ? json_dumps(e, JSON_COMPACT) : NULL;
		json_decref(e);
		if (!s)
			return -ENOMEM;
		len = strlen(s); /* small: sent uncharged */
		capped = true;
	} else {
		charged = len + 1;
	}
	s[len] = '\n'; /* the terminator becomes the line end; never read as a string again */
	pthread_mutex_lock(&c->wlock);
	rc = fsx_send_all(c->fd, s, len + 1);
	pthread_mutex_unlock(&c->wlock);
	free(s);
	if (charged)
		bridge_uncharge(c->b, charged);
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

int bridge_try_send(struct conn *c, json_t *msg)
{
	return conn_try_send(c, msg);
}

/* Send @res (borrowed) as the result for @id. Returns as conn_send. */
int bridge_reply_result(struct conn *c, json_t *id, json_t *res)
{
	json_t *r = json_pack("{s:s,s:O,s:O}", "jsonrpc", "2.0", "id", id, "result", res);
	int rc = r ? conn_send(c, r) : -ENOMEM;

	json_decref(r);
	return rc;
}

static json_t *error_new(json_t *id, int code, const char *message)
{
	return json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(),
			 "error", "code", code, "message", message);
}

static void reply_error(struct conn *c, json_t *id, int code, const char *message)
{
	json_t *r = error_new(id, code, message);

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
	const struct bridge_method *m = bridge_method_find(name);
	struct err e = {0};
	json_t *res = NULL;
	int code = RPC_NO_METHOD;

	if (!m)
		err_set(&e, EXIT_USAGE, "unknown method '%s'", name ? name : "(none)");
	else
		res = m->run(c->b, &rq, params ? params : json_null(), &code, &e);
	if (!id || rq.replied)
		goto out; /* a notification: nobody waits for an answer; or answered */
	if (!res) {
		reply_error(c, id, code, e.text[0] ? e.text : "failed");
		goto out;
	}
	if (bridge_reply_result(c, id, res) == -ENOMEM)
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
	b->nunauthed -= !atomic_load(&c->authed);
	b->used -= c->charged;
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
			bridge_uncharge(b, j->cost);
		} else if (j->reply) {
			conn_send(j->c, j->reply);
			json_decref(j->reply);
		} else {
			read_conn(j->c);
		}
		pthread_mutex_lock(&b->lock);
		b->njobs_running--;
		if (j->req || j->reply)
			j->c->pending--;
		conn_put_locked(j->c);
		free(j);
		pthread_cond_broadcast(&b->idle);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

static bool answer_error(struct conn *c, json_t *id, int code, const char *message);

/* Queue a job for @c: @req (stolen) to serve, @reply (stolen) to send, or
 * neither to read. Each job queued has a worker to itself: an idle one that
 * no earlier job is waking already, else a new one. A job left to wait for a
 * busy worker could wait for good: a reader keeps its worker while its
 * connection is quiet. Past BRIDGE_MAX_WORKERS one waits: of so many, all but
 * BRIDGE_MAX_CONNS serve calls, which end. Returns 0 or -1 (then @req was
 * answered, and @reply dropped). */
static int enqueue(struct conn *c, json_t *req, json_t *reply, size_t cost)
{
	struct bridge *b = c->b;
	struct job *j = calloc(1, sizeof(*j));
	const char *why = "out of memory";
	int code = RPC_FAILED;

	if (!j)
		goto out_refuse;
	j->c = c;
	j->req = req;
	j->reply = reply;
	j->cost = cost;
	pthread_mutex_lock(&b->lock);
	if ((req || reply) && c->pending >= BRIDGE_MAX_PENDING_PER_CONN) {
		pthread_mutex_unlock(&b->lock);
		code = RPC_BUSY;
		why = "too many requests in flight";
		goto out_refuse;
	}
	if (b->nqueued >= b->nidle && b->nworkers < BRIDGE_MAX_WORKERS) {
		if (pthread_create(&b->workers[b->nworkers], NULL, worker_main, b)) {
			pthread_mutex_unlock(&b->lock);
			code = RPC_BUSY;
			why = "no thread to serve the request";
			goto out_refuse;
		}
		b->nworkers++;
	}
	c->refs++;
	if (req || reply)
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
out_refuse:
	if (req) {
		answer_error(c, json_object_get(req, "id"), code, why);
		bridge_uncharge(b, cost);
	}
	json_decref(req);
	json_decref(reply);
	free(j);
	return -1;
}

/* An error for the code, from its connection's reader, which must not wait
 * to write it: a client that sends without reading its replies (one is
 * being written, blocked) would wait in its send for a reader that waits
 * for it. The error goes out at once, else from a worker; a client with
 * BRIDGE_MAX_PENDING_PER_CONN answers unread is ended. Returns false when
 * the connection was ended. */
static bool answer_error(struct conn *c, json_t *id, int code, const char *message)
{
	json_t *r = error_new(id, code, message);

	if (r && conn_try_send(c, r) == 0) {
		json_decref(r);
		return true;
	}
	if (r && enqueue(c, NULL, r, 0) == 0)
		return true;
	shutdown(c->fd, SHUT_RDWR);
	return false;
}

/* End the read side with an error for the code. The read side shuts down
 * first: a client blocked sending to us (and not reading) fails at once, so
 * the error, which may wait for a reply being written, does not wait for it. */
static void end_with_error(struct conn *c, json_t *id, int code, const char *message)
{
	shutdown(c->fd, SHUT_RD);
	reply_error(c, id, code, message);
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
		const char *why = r ? "a request must be an object" : je.text;
		bool open = atomic_load(&c->authed);

		if (open)
			open = answer_error(c, NULL, r ? RPC_INVALID : RPC_PARSE, why);
		else
			end_with_error(c, NULL, r ? RPC_INVALID : RPC_PARSE, why);
		json_decref(r);
		return open;
	}
	if (atomic_load(&c->authed)) {
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
		atomic_store(&c->authed, true);
		pthread_mutex_lock(&c->b->lock);
		c->b->nunauthed--;
		pthread_mutex_unlock(&c->b->lock);
		return true;
	}
	end_with_error(c, json_object_get(r, "id"), RPC_INVALID,
		       "the first request must be auth with the run's token");
	json_decref(r);
	return false;
}

/* Make room for a full read chunk in @c's input, up to the line ceiling,
 * within the run's budget, and before authentication within a few KiB.
 * Returns 0, -E2BIG (over the ceiling), -ENOBUFS (over the budget), -EACCES
 * (too much said before authenticating) or -ENOMEM. */
static int grow(struct conn *c)
{
	size_t want = c->cap ? c->cap : BRIDGE_READ_CHUNK + 1;
	char *p;

	if (c->cap - c->len >= BRIDGE_READ_CHUNK + 1)
		return 0;
	while (want - c->len < BRIDGE_READ_CHUNK + 1)
		want *= 2;
	if (want > MCPFS_BRIDGE_MAX_LINE + 2 * BRIDGE_READ_CHUNK + 2)
		return -E2BIG;
	if (!atomic_load(&c->authed) && c->len > BRIDGE_UNAUTH_BYTES)
		return -EACCES;
	if (!bridge_charge(c->b, want - c->cap))
		return -ENOBUFS;
	p = realloc(c->in, want);
	if (!p) {
		bridge_uncharge(c->b, want - c->cap);
		return -ENOMEM;
	}
	c->in = p;
	c->charged += want - c->cap;
	c->cap = want;
	return 0;
}

/* After a long line: give a large buffer back once it is mostly empty. */
static void shrink(struct conn *c)
{
	size_t want = 2 * BRIDGE_READ_CHUNK + 2;
	char *p;

	if (c->cap <= 4 * want || c->len >= want / 2)
		return;
	p = realloc(c->in, want);
	if (!p)
		return;
	bridge_uncharge(c->b, c->cap - want);
	c->charged -= c->cap - want;
	c->in = p;
	c->cap = want;
}

/* Why grow failed, for the code. */
static const char *grow_why(int rc)
{
	switch (rc) {
	case -E2BIG:
		return "request line too long";
	case -ENOBUFS:
		return "request does not fit in what the run's bridge budget has left";
	case -EACCES:
		return "the first request must be auth with the run's token";
	default:
		return "out of memory";
	}
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
	if (enqueue(c, NULL, NULL, 0) < 0)
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
static bool read_requests(struct conn *c, json_t **last, size_t *last_cost)
{
	json_t *req;
	bool open = true, eof = false;
	ssize_t r;
	char *nl;
	size_t used, n;
	int rc;

	*last = NULL;
	*last_cost = 0;
	while (open && !*last) {
		if ((rc = grow(c)) < 0) {
			end_with_error(c, NULL, rc == -ENOBUFS ? RPC_BUSY : RPC_TOO_LARGE,
				       grow_why(rc));
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
				end_with_error(c, NULL, RPC_TOO_LARGE, "request line too long");
				open = false;
			} else if (n && !on_line(c, c->in + used, n, &req)) {
				open = false;
			} else if (n && req && !bridge_charge(c->b, n)) {
				/* The run goes on: this request alone fails. */
				open = answer_error(c, json_object_get(req, "id"), RPC_BUSY,
						    "the run's bridge budget is used up by "
						    "requests in flight: try again when they are "
						    "answered");
				json_decref(req);
			} else if (n && req) {
				if (*last)
					enqueue(c, *last, NULL, *last_cost);
				*last = req;
				*last_cost = n;
			}
			used += n + 1;
		}
		if (open && c->len - used > MCPFS_BRIDGE_MAX_LINE) {
			end_with_error(c, NULL, RPC_TOO_LARGE, "request line too long");
			open = false;
		}
		memmove(c->in, c->in + used, c->len - used);
		c->len -= used;
		shrink(c);
	}
	if (open && !eof)
		return true;
	/* The client ended: replies in flight still go out. We ended it: the
	 * client sees the end at once. */
	shutdown(c->fd, eof && open ? SHUT_RD : SHUT_RDWR);
	free(c->in);
	bridge_uncharge(c->b, c->charged);
	c->in = NULL;
	c->cap = c->len = c->charged = 0;
	return false;
}

/* The read side: read a request, serve it here with the connection parked,
 * take the read side back and go on; until it ends, or the watcher handed
 * it to another worker while this one served. */
static void read_conn(struct conn *c)
{
	uint64_t ticket = 0;
	json_t *last;
	size_t cost;
	bool more, kept;

	for (;;) {
		more = read_requests(c, &last, &cost);
		if (!last)
			return;
		if (more && !(ticket = park(c))) {
			/* no watcher: another worker reads on */
			if (enqueue(c, NULL, NULL, 0) < 0)
				shutdown(c->fd, SHUT_RD);
			more = false;
		}
		kept = handle(c, last, more ? &ticket : NULL);
		json_decref(last);
		bridge_uncharge(c->b, cost);
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
	c->born_ms = clock_now_ms();
	b->nunauthed++;
	pthread_mutex_init(&c->wlock, NULL);
	c->next = b->conns;
	b->conns = c;
	b->nconns++;
	pthread_mutex_unlock(&b->lock);
	return c;
}

/* Close the connections that have not authenticated in time: their readers
 * wake and end them. Returns how long the watcher may sleep (ms, -1: for
 * good). */
static int expire_unauthed(struct bridge *b)
{
	double now = clock_now_ms();
	struct conn *c;
	int wait = -1;

	pthread_mutex_lock(&b->lock);
	for (c = b->nunauthed ? b->conns : NULL; c; c = c->next) {
		if (atomic_load(&c->authed) || c->expired)
			continue;
		if (now - c->born_ms >= BRIDGE_UNAUTH_MS) {
			c->expired = true;
			shutdown(c->fd, SHUT_RDWR);
		} else if (wait < 0 || BRIDGE_UNAUTH_MS - (now - c->born_ms) + 1 < wait) {
			wait = (int)(BRIDGE_UNAUTH_MS - (now - c->born_ms)) + 1;
		}
	}
	pthread_mutex_unlock(&b->lock);
	return wait;
}

/* The watcher: new connections, and data on parked ones. */
static void *acceptor_main(void *arg)
{
	struct bridge *b = arg;
	struct epoll_event evs[16];
	struct conn *c;
	int n, i, fd;

	for (;;) {
		n = epoll_wait(b->epfd, evs, sizeof(evs) / sizeof(evs[0]), expire_unauthed(b));
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
			enqueue(c, NULL, NULL, 0);
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

/* Serve on @lfd (owned from here on, closed on failure too), listening at
 * @path on the host (removed at the end) or NULL. */
static struct bridge *bridge_on(int lfd, const char *path, const struct bridge_opts *o,
				struct err *err)
{
	struct bridge *b = calloc(1, sizeof(*b));
	bool fail = false;

	if (!b) {
		close(lfd);
		if (path)
			unlink(path);
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	/* Everything bridge_free looks at is valid from here on, so that every
	 * failure below is one call to it. */
	b->lfd = lfd;
	b->epfd = b->stop_pipe[0] = b->stop_pipe[1] = -1;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->work, NULL);
	pthread_cond_init(&b->idle, NULL);
	cancel_init(&b->cancel);
	fail = bridge_account_init(&b->account, o->max_records) < 0;
	b->next_id = WATCH_STOP + 1;
	b->hub = o->hub;
	b->ws = o->ws;
	b->call_timeout_s = o->call_timeout_s;
	b->deadline_s = o->deadline_s;
	b->on_call = o->on_call;
	b->on_call_ctx = o->on_call_ctx;
	b->search = o->search;
	b->asker = o->asker;
	b->max_result = o->max_result ? o->max_result : MCPFS_BRIDGE_MAX_LINE;
	b->budget = o->budget ? o->budget : BRIDGE_DEFAULT_BUDGET;
	pthread_cond_init(&b->slot, NULL);
	b->path = dup_or_null(path, &fail);
	b->token = dup_or_null(o->token ? o->token : "", &fail);
	b->customer = dup_or_null(o->customer, &fail);
	b->workspace = dup_or_null(o->workspace, &fail);
	b->session = dup_or_null(o->session, &fail);
	if (fail) {
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
	if (watch_new(b) < 0) {
		err_set(err, EXIT_FAILED, "epoll: %s", strerror(errno));
		goto out_free;
	}
	if (pthread_create(&b->acceptor, NULL, acceptor_main, b)) {
		err_set(err, EXIT_FAILED, "pthread_create(bridge acceptor) failed");
		goto out_free;
	}
	b->acceptor_started = true;
	return b;
out_free:
	bridge_free(b);
	return NULL;
}

struct bridge *bridge_new(const char *path, const struct bridge_opts *o, struct err *err)
{
	int lfd;

	if (!o->token || !o->token[0]) {
		err_set(err, EXIT_USAGE, "bridge: an empty token would let anybody in");
		return NULL;
	}
	lfd = listen_on(path, err);
	return lfd < 0 ? NULL : bridge_on(lfd, path, o, err);
}

struct bridge *bridge_adopt(int lfd, const struct bridge_opts *o, struct err *err)
{
	return bridge_on(lfd, NULL, o, err);
}

size_t bridge_ncalls(struct bridge *b)
{
	return bridge_account_ncalls(&b->account);
}

json_t *bridge_calls(struct bridge *b)
{
	return bridge_account_calls(&b->account);
}

json_t *bridge_calls_by_tool(struct bridge *b)
{
	return bridge_account_by_tool(&b->account);
}

void bridge_stop(struct bridge *b)
{
	unsigned i;

	if (b->stopped)
		return;
	b->stopped = true;
	if (b->acceptor_started) {
		if (write(b->stop_pipe[1], "x", 1) < 0) {
			/* the acceptor also ends when the listening socket shuts down */
			shutdown(b->lfd, SHUT_RDWR);
		}
		pthread_join(b->acceptor, NULL);
	}
	if (b->lfd >= 0) {
		close(b->lfd);
		b->lfd = -1;
		if (b->path)
			unlink(b->path);
	}
	cancel_fire(&b->cancel);
	pthread_mutex_lock(&b->lock);
	pthread_cond_broadcast(&b->slot); /* calls waiting for a slot give up */
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

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

void bridge_free(struct bridge *b)
{
	if (!b)
		return;
	bridge_stop(b);
	close_fd(b->epfd);
	close_fd(b->stop_pipe[0]);
	close_fd(b->stop_pipe[1]);
	bridge_account_free(&b->account);
	free(b->path);
	free(b->token);
	free(b->customer);
	free(b->workspace);
	free(b->session);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->work);
	pthread_cond_destroy(&b->idle);
	pthread_cond_destroy(&b->slot);
	cancel_destroy(&b->cancel);
	free(b);
}
