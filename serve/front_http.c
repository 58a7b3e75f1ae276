#define _GNU_SOURCE
#include "front_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "../common/buf.h"
#include "../common/clock.h"
#include "../workspaces/workspace.h"
#include "engine.h"
#include "mcp.h"
#include "metrics.h"
#include "mhd_lib.h"
#include "sched.h"
#include "tokens.h"

#define BODY_MAX (16u << 20)
#define KEEPALIVE_S 15
#define SSE_CHUNK 65536
#define DEFAULT_IDLE_S 3600.0
#define CONNECTIONS_MAX 1024

struct session;

/* One response stream: a POST's (awaiting its request's answer) or the
 * session's GET stream. Shared by the session (routing) and libmicrohttpd
 * (the reader callback) until both let go. */
struct stream {
	pthread_mutex_t lock; /* everything below */
	pthread_cond_t cond;
	json_t *queue; /* messages not yet formatted */
	json_t *id;    /* the request answered on this stream; NULL for GET */
	bool done;     /* the answer is queued: end after the queue */
	bool closed;   /* the client or the session went away */
	unsigned refs;
	struct buf out; /* formatted bytes not yet handed over */
	size_t off;
	unsigned long long seq;
	struct stream *next;   /* in session.streams, protected by session.lock */
	struct session *owner; /* a reference while a POST stream is attached */
};

struct session {
	struct front_http *h;
	struct mcp_conn *conn; /* a reference; closed when the session ends */
	char id[ID_MAX + 1];
	char customer[ID_MAX + 1];
	pthread_mutex_t lock;	/* streams, get */
	struct stream *streams; /* POST streams */
	struct stream *get;	/* the GET stream, or NULL */
	unsigned refs;		/* protected by front_http.lock */
	bool gone;		/* protected by front_http.lock */
	double used_s;		/* protected by front_http.lock */
	struct session *next;	/* protected by front_http.lock */
};

struct front_http {
	struct serve_engine *e;
	struct front_http_opts o;
	struct MHD_Daemon *d;
	bool loopback;
	pthread_mutex_t lock; /* sessions */
	struct session *sessions;
};

/* A request being received: its body. */
struct req {
	struct buf body;
	bool started;
};

/* --- streams --- */

static struct stream *stream_new(const json_t *id)
{
	struct stream *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->queue = json_array();
	st->id = id ? json_deep_copy(id) : NULL;
	if (!st->queue || (id && !st->id)) {
		json_decref(st->queue);
		json_decref(st->id);
		free(st);
		return NULL;
	}
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->cond, NULL);
	buf_init(&st->out, BODY_MAX);
	st->refs = 1;
	return st;
}

static void stream_unref(struct stream *st)
{
	bool last;

	if (!st)
		return;
	pthread_mutex_lock(&st->lock);
	last = --st->refs == 0;
	pthread_mutex_unlock(&st->lock);
	if (!last)
		return;
	json_decref(st->queue);
	json_decref(st->id);
	buf_free(&st->out);
	pthread_cond_destroy(&st->cond);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

static void stream_close(struct stream *st)
{
	pthread_mutex_lock(&st->lock);
	st->closed = true;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
}

static bool is_answer(const json_t *msg, const json_t *id)
{
	return id && json_equal(json_object_get(msg, "id"), (json_t *)id) &&
	       (json_object_get(msg, "result") || json_object_get(msg, "error"));
}

static void stream_push(struct stream *st, json_t *msg)
{
	pthread_mutex_lock(&st->lock);
	if (!st->closed && !st->done) {
		json_array_append(st->queue, msg);
		if (is_answer(msg, st->id))
			st->done = true;
		pthread_cond_broadcast(&st->cond);
	}
	pthread_mutex_unlock(&st->lock);
}

/* Format the next queued message as an SSE event. Under st->lock. */
static void stream_format(struct stream *st)
{
	json_t *msg = json_array_get(st->queue, 0);
	char *text = json_dumps(msg, JSON_COMPACT);

	buf_reset(&st->out);
	st->off = 0;
	if (text)
		buf_printf(&st->out, "id: %llu\nevent: message\ndata: %s\n\n", ++st->seq, text);
	free(text);
	json_array_remove(st->queue, 0);
}

/* libmicrohttpd's reader: in thread-per-connection mode it may block. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *st = cls;
	struct timespec ts;
	size_t n;

	(void)pos;
	pthread_mutex_lock(&st->lock);
	while (st->off == st->out.len) {
		if (json_array_size(st->queue)) {
			stream_format(st);
			break;
		}
		if (st->done || st->closed) {
			pthread_mutex_unlock(&st->lock);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += KEEPALIVE_S;
		if (pthread_cond_timedwait(&st->cond, &st->lock, &ts) == ETIMEDOUT &&
		    st->off == st->out.len && !json_array_size(st->queue)) {
			/* A comment: the client sees life, we see a gone client. */
			buf_reset(&st->out);
			st->off = 0;
			buf_puts(&st->out, ": keepalive\n\n");
			break;
		}
	}
	n = st->out.len - st->off;
	if (n > max)
		n = max;
	memcpy(buf, st->out.data + st->off, n);
	st->off += n;
	pthread_mutex_unlock(&st->lock);
	return (ssize_t)n;
}

/* --- sessions --- */

static void session_unref(struct session *s)
{
	struct front_http *h = s->h;
	bool last;

	pthread_mutex_lock(&h->lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(&h->lock);
	if (!last)
		return;
	mcp_conn_free(s->conn);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* Route a message of the connection to the stream it belongs to. */
static void session_send(void *ctx, json_t *msg, const json_t *rel)
{
	struct session *s = ctx;
	struct stream *st, *to = NULL;

	pthread_mutex_lock(&s->lock);
	if (rel) {
		for (st = s->streams; st; st = st->next)
			if (json_equal(st->id, (json_t *)rel))
				to = st;
	} else {
		to = s->get;
	}
	if (to)
		stream_push(to, msg);
	pthread_mutex_unlock(&s->lock);
}

static void session_attach(struct session *s, struct stream *st)
{
	pthread_mutex_lock(&s->lock);
	st->next = s->streams;
	s->streams = st;
	st->refs++;
	pthread_mutex_unlock(&s->lock);
}

static void session_detach(struct session *s, struct stream *st)
{
	struct stream **pp;
	bool found = false;

	pthread_mutex_lock(&s->lock);
	if (s->get == st) {
		s->get = NULL;
		found = true;
	}
	for (pp = &s->streams; *pp; pp = &(*pp)->next)
		if (*pp == st) {
			*pp = st->next;
			found = true;
			break;
		}
	pthread_mutex_unlock(&s->lock);
	if (found)
		stream_unref(st);
}

/* End a session: no new request finds it, its calls are cancelled, its
 * streams end. The caller holds a reference, dropped by the caller. */
static void session_end(struct session *s)
{
	struct front_http *h = s->h;
	struct session **pp;
	struct stream *st;
	bool was_gone;

	pthread_mutex_lock(&h->lock);
	was_gone = s->gone;
	s->gone = true;
	for (pp = &h->sessions; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	pthread_mutex_unlock(&h->lock);
	if (was_gone)
		return;
	mcp_conn_close(s->conn);
	pthread_mutex_lock(&s->lock);
	for (st = s->streams; st; st = st->next)
		stream_close(st);
	if (s->get)
		stream_close(s->get);
	pthread_mutex_unlock(&s->lock);
	session_unref(s); /* the table's */
}

/* The live session @id of @customer, with a reference; NULL if none. */
static struct session *session_find(struct front_http *h, const char *id, const char *customer)
{
	struct session *s;

	pthread_mutex_lock(&h->lock);
	for (s = h->sessions; s; s = s->next)
		if (!strcmp(s->id, id) && !strcmp(s->customer, customer) && !s->gone)
			break;
	if (s) {
		s->refs++;
		s->used_s = clock_now_s();
	}
	pthread_mutex_unlock(&h->lock);
	return s;
}

/* End sessions nobody used for session_idle_s and that run nothing. */
static void sessions_reap(struct front_http *h)
{
	double now = clock_now_s();
	struct session *s, *idle;

	do {
		idle = NULL;
		pthread_mutex_lock(&h->lock);
		for (s = h->sessions; s && !idle; s = s->next)
			if (now - s->used_s > h->o.session_idle_s && !mcp_conn_busy(s->conn)) {
				idle = s;
				idle->refs++;
			}
		pthread_mutex_unlock(&h->lock);
		if (idle) {
			session_end(idle);
			session_unref(idle);
		}
	} while (idle);
}

static struct session *session_new(struct front_http *h, const char *customer, struct err *err)
{
	struct session *s = calloc(1, sizeof(*s));
	struct mcp_conn_ops ops = {.send = session_send};

	if (!s) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	s->h = h;
	pthread_mutex_init(&s->lock, NULL);
	snprintf(s->customer, sizeof(s->customer), "%s", customer);
	ops.ctx = s;
	s->conn = mcp_conn_new(h->e, customer, NULL, &ops, err);
	if (!s->conn) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	snprintf(s->id, sizeof(s->id), "%s", mcp_conn_session(s->conn));
	s->refs = 2; /* the table's and the caller's */
	s->used_s = clock_now_s();
	pthread_mutex_lock(&h->lock);
	s->next = h->sessions;
	h->sessions = s;
	pthread_mutex_unlock(&h->lock);
	return s;
}

/* --- responses --- */

static enum MHD_Result respond_text(struct MHD_Connection *c, unsigned status, const char *type,
				    const char *text, const char *session)
{
	struct MHD_Response *r =
	    mhd_lib->create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	mhd_lib->add_response_header(r, "Content-Type", type);
	if (session)
		mhd_lib->add_response_header(r, "Mcp-Session-Id", session);
	if (status == MHD_HTTP_UNAUTHORIZED)
		mhd_lib->add_response_header(r, "WWW-Authenticate", "Bearer realm=\"mcpfs\"");
	rc = mhd_lib->queue_response(c, status, r);
	mhd_lib->destroy_response(r);
	return rc;
}

/* An HTTP-level refusal, with a JSON-RPC error body clients can show. */
static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, int code, const char *text)
{
	json_t *j = json_pack("{s:s,s:n,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", "error", "code",
			      code, "message", text);
	char *body = j ? json_dumps(j, JSON_COMPACT) : NULL;
	enum MHD_Result rc = respond_text(c, status, "application/json", body ? body : "{}", NULL);

	free(body);
	json_decref(j);
	return rc;
}

static enum MHD_Result respond_json(struct MHD_Connection *c, json_t *msg, const char *session)
{
	char *body = json_dumps(msg, JSON_COMPACT);
	enum MHD_Result rc;

	if (!body)
		return MHD_NO;
	rc = respond_text(c, MHD_HTTP_OK, "application/json", body, session);
	free(body);
	return rc;
}

/* The client has all of the stream, or went away. */
static void stream_done_cb(void *cls)
{
	struct stream *st = cls;
	struct session *owner;

	stream_close(st);
	pthread_mutex_lock(&st->lock);
	owner = st->owner;
	st->owner = NULL;
	pthread_mutex_unlock(&st->lock);
	if (owner) {
		session_detach(owner, st);
		session_unref(owner);
	}
	stream_unref(st);
}

/* Answer with the stream as SSE; the response takes a reference. */
static enum MHD_Result respond_sse(struct MHD_Connection *c, struct stream *st, const char *session)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	pthread_mutex_lock(&st->lock);
	st->refs++;
	pthread_mutex_unlock(&st->lock);
	r = mhd_lib->create_response_from_callback(MHD_SIZE_UNKNOWN, SSE_CHUNK, stream_read, st,
						   stream_done_cb);
	if (!r) {
		stream_done_cb(st);
		return MHD_NO;
	}
	mhd_lib->add_response_header(r, "Content-Type", "text/event-stream");
	mhd_lib->add_response_header(r, "Cache-Control", "no-cache");
	if (session)
		mhd_lib->add_response_header(r, "Mcp-Session-Id", session);
	rc = mhd_lib->queue_response(c, MHD_HTTP_OK, r);
	mhd_lib->destroy_response(r);
	return rc;
}

/* --- checks --- */

static bool accepts(struct MHD_Connection *c, const char *type)
{
	const char *a = mhd_lib->lookup_connection_value(c, MHD_HEADER_KIND, "Accept");

	return a && (strstr(a, type) || strstr(a, "*/*"));
}

/* The customer of the request, or the HTTP status that refuses it. */
static unsigned auth(struct front_http *h, struct MHD_Connection *c, char *customer, size_t n,
		     const char **why)
{
	const char *a = mhd_lib->lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	int rc;

	if (!a) {
		if (h->loopback && !token_any(h->o.root)) {
			snprintf(customer, n, "%s", h->o.customer);
			return 0;
		}
		*why = "a bearer token is required (Authorization: Bearer <token>; see 'mcpfs "
		       "token create')";
		return MHD_HTTP_UNAUTHORIZED;
	}
	if (strncasecmp(a, "Bearer ", 7)) {
		*why = "the Authorization header must be 'Bearer <token>'";
		return MHD_HTTP_UNAUTHORIZED;
	}
	rc = token_lookup(h->o.root, a + 7, customer, n);
	if (rc == -ENOENT) {
		*why = "the token is not valid (unknown or revoked)";
		return MHD_HTTP_UNAUTHORIZED;
	}
	if (rc < 0) {
		*why = "the token store cannot be read";
		return MHD_HTTP_INTERNAL_SERVER_ERROR;
	}
	return 0;
}

static bool loopback_host(const char *host, size_t len)
{
	return (len == 9 && !strncmp(host, "localhost", 9)) ||
	       (len >= 4 && !strncmp(host, "127.", 4)) || (len == 5 && !strncmp(host, "[::1]", 5));
}

/* A browser page of another origin must not reach a local server (DNS
 * rebinding): an Origin header, when sent, must be loopback or our Host. */
static bool origin_ok(struct MHD_Connection *c)
{
	const char *o = mhd_lib->lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
	const char *host = mhd_lib->lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	const char *p, *end;
	size_t len;

	if (!o || !strcmp(o, "null"))
		return !o;
	p = strstr(o, "://");
	if (!p)
		return false;
	p += 3;
	end = p[0] == '[' ? strchr(p, ']') : NULL;
	end = end ? end + 1 : p + strcspn(p, ":/");
	len = (size_t)(end - p);
	if (loopback_host(p, len))
		return true;
	return host && !strncmp(host, p, len) && (host[len] == '\0' || host[len] == ':');
}

static bool version_ok(struct MHD_Connection *c)
{
	const char *v =
	    mhd_lib->lookup_connection_value(c, MHD_HEADER_KIND, "MCP-Protocol-Version");
	size_t i;

	if (!v)
		return true;
	for (i = 0; mcp_protocol_versions[i]; i++)
		if (!strcmp(v, mcp_protocol_versions[i]))
			return true;
	return false;
}

/* --- /mcp --- */

static enum MHD_Result mcp_post(struct front_http *h, struct MHD_Connection *c,
				const char *customer, struct req *rq)
{
	const char *sid = mhd_lib->lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Session-Id");
	json_error_t je;
	json_t *msg = json_loadb(rq->body.data ? rq->body.data : "", rq->body.len,
				 JSON_REJECT_DUPLICATES, &je);
	struct session *s = NULL;
	struct stream *st = NULL;
	struct err err = {0};
	const char *method = json_string_value(json_object_get(msg, "method"));
	bool init = method && !strcmp(method, "initialize");
	enum MHD_Result rc;
	char why[ERR_TEXT_MAX];

	if (!msg) {
		snprintf(why, sizeof(why), "parse error: %s", je.text);
		return refuse(c, MHD_HTTP_BAD_REQUEST, -32700, why);
	}
	if (!json_is_object(msg)) {
		json_decref(msg);
		return refuse(c, MHD_HTTP_BAD_REQUEST, -32600,
			      "a message must be one JSON object (batches are not supported)");
	}
	if (init && mcp_is_request(msg)) {
		sessions_reap(h);
		s = session_new(h, customer, &err);
		if (!s) {
			json_decref(msg);
			return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, -32603, err.text);
		}
	} else if (!sid) {
		json_decref(msg);
		return refuse(c, MHD_HTTP_BAD_REQUEST, -32600,
			      "Mcp-Session-Id header is required (initialize first)");
	} else if (!(s = session_find(h, sid, customer))) {
		json_decref(msg);
		return refuse(c, MHD_HTTP_NOT_FOUND, -32001,
			      "no such session (ended, expired, or another customer's): "
			      "initialize again");
	}
	if (!mcp_is_request(msg)) {
		mcp_conn_handle(s->conn, msg);
		json_decref(msg);
		session_unref(s);
		return respond_text(c, MHD_HTTP_ACCEPTED, "application/json", "", NULL);
	}
	st = stream_new(json_object_get(msg, "id"));
	if (!st) {
		json_decref(msg);
		session_unref(s);
		return MHD_NO;
	}
	session_attach(s, st);
	mcp_conn_handle(s->conn, msg);
	json_decref(msg);
	pthread_mutex_lock(&st->lock);
	/* A client that takes no SSE waits here for the one answer. */
	while (!accepts(c, "text/event-stream") && !st->done && !st->closed)
		pthread_cond_wait(&st->cond, &st->lock);
	/* The answer ends the queue: alone, or for a client without SSE, it
	 * goes as plain JSON. */
	if (st->done && (json_array_size(st->queue) == 1 || !accepts(c, "text/event-stream"))) {
		json_t *answer =
		    json_incref(json_array_get(st->queue, json_array_size(st->queue) - 1));

		pthread_mutex_unlock(&st->lock);
		rc = respond_json(c, answer, init ? s->id : NULL);
		json_decref(answer);
	} else if (!st->done && !accepts(c, "text/event-stream")) {
		pthread_mutex_unlock(&st->lock);
		rc = refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, -32603, "the session ended");
	} else {
		/* The stream stays routed until the client has it all. */
		st->owner = s;
		pthread_mutex_unlock(&st->lock);
		rc = respond_sse(c, st, init ? s->id : NULL);
		stream_unref(st);
		return rc;
	}
	session_detach(s, st);
	stream_unref(st);
	session_unref(s);
	return rc;
}

static enum MHD_Result mcp_get(struct front_http *h, struct MHD_Connection *c, const char *customer)
{
	const char *sid = mhd_lib->lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Session-Id");
	struct session *s;
	struct stream *st;
	enum MHD_Result rc;
	bool busy;

	if (!accepts(c, "text/event-stream"))
		return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, -32600,
			      "GET /mcp is an SSE stream: send Accept: text/event-stream");
	if (!sid)
		return refuse(c, MHD_HTTP_BAD_REQUEST, -32600, "Mcp-Session-Id header is required");
	s = session_find(h, sid, customer);
	if (!s)
		return refuse(c, MHD_HTTP_NOT_FOUND, -32001, "no such session: initialize again");
	st = stream_new(NULL);
	if (!st) {
		session_unref(s);
		return MHD_NO;
	}
	pthread_mutex_lock(&s->lock);
	busy = s->get != NULL;
	if (!busy) {
		s->get = st;
		st->refs++;
		st->owner = s; /* the session's reference moves to the stream */
	}
	pthread_mutex_unlock(&s->lock);
	if (busy) {
		stream_unref(st);
		session_unref(s);
		return refuse(c, MHD_HTTP_CONFLICT, -32600,
			      "this session already has a GET stream");
	}
	rc = respond_sse(c, st, NULL);
	stream_unref(st);
	return rc;
}

static enum MHD_Result mcp_delete(struct front_http *h, struct MHD_Connection *c,
				  const char *customer)
{
	const char *sid = mhd_lib->lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Session-Id");
	struct session *s = sid ? session_find(h, sid, customer) : NULL;

	if (!s)
		return refuse(c, MHD_HTTP_NOT_FOUND, -32001, "no such session");
	session_end(s);
	session_unref(s);
	return respond_text(c, MHD_HTTP_OK, "application/json", "", NULL);
}

static enum MHD_Result serve_metrics(struct front_http *h, struct MHD_Connection *c)
{
	struct buf b;
	enum MHD_Result rc;

	buf_init(&b, 4u << 20);
	metrics_render(h->e->metrics, h->e->sched, &b);
	rc = respond_text(c, MHD_HTTP_OK, "text/plain; version=0.0.4", b.data ? b.data : "", NULL);
	buf_free(&b);
	return rc;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, const char *version, const char *upload,
			       size_t *upload_size, void **con_cls)
{
	struct front_http *h = cls;
	struct req *rq = *con_cls;
	char customer[ID_MAX + 1];
	const char *why = NULL;
	unsigned status;

	(void)version;
	if (!rq) {
		rq = calloc(1, sizeof(*rq));
		if (!rq)
			return MHD_NO;
		buf_init(&rq->body, BODY_MAX);
		*con_cls = rq;
		return MHD_YES;
	}
	if (*upload_size) {
		if (buf_append(&rq->body, upload, *upload_size) < 0)
			rq->started = true; /* too big: refused below */
		*upload_size = 0;
		return MHD_YES;
	}
	if (!strcmp(url, "/healthz") && !strcmp(method, "GET"))
		return respond_text(c, MHD_HTTP_OK, "text/plain", "ok\n", NULL);
	if (!strcmp(url, "/metrics") && !strcmp(method, "GET"))
		return serve_metrics(h, c);
	if (strcmp(url, "/mcp"))
		return respond_text(c, MHD_HTTP_NOT_FOUND, "text/plain",
				    "not found: MCP is at /mcp\n", NULL);
	if (!origin_ok(c))
		return refuse(c, MHD_HTTP_FORBIDDEN, -32600, "Origin not allowed");
	if ((status = auth(h, c, customer, sizeof(customer), &why)))
		return refuse(c, status, -32001, why);
	if (!version_ok(c))
		return refuse(c, MHD_HTTP_BAD_REQUEST, -32600, "unsupported MCP-Protocol-Version");
	if (rq->started)
		return refuse(c, MHD_HTTP_CONTENT_TOO_LARGE, -32600, "message larger than 16 MiB");
	if (!strcmp(method, "POST"))
		return mcp_post(h, c, customer, rq);
	if (!strcmp(method, "GET"))
		return mcp_get(h, c, customer);
	if (!strcmp(method, "DELETE"))
		return mcp_delete(h, c, customer);
	return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, -32600, "/mcp takes POST, GET and DELETE");
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct req *rq = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (!rq)
		return;
	buf_free(&rq->body);
	free(rq);
	*con_cls = NULL;
}

/* --- start and stop --- */

static int resolve(const char *listen, struct sockaddr_storage *ss, bool *loopback, struct err *err)
{
	char host[256];
	const char *colon = strrchr(listen, ':'), *h = host;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICSERV | AI_PASSIVE};
	struct addrinfo *ai = NULL;
	size_t len;
	int rc;

	if (!colon || colon == listen || (size_t)(colon - listen) >= sizeof(host))
		return err_set(err, EXIT_USAGE, "serve: --http wants HOST:PORT, not '%s'", listen);
	len = (size_t)(colon - listen);
	memcpy(host, listen, len);
	host[len] = '\0';
	if (host[0] == '[' && host[len - 1] == ']') {
		host[len - 1] = '\0';
		h = host + 1;
	}
	rc = getaddrinfo(h, colon + 1, &hints, &ai);
	if (rc)
		return err_set(err, EXIT_USAGE, "serve: --http %s: %s", listen, gai_strerror(rc));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	if (ss->ss_family == AF_INET)
		*loopback = (ntohl(((struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	else
		*loopback = IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)ss)->sin6_addr);
	return 0;
}

struct front_http *front_http_start(struct serve_engine *e, const struct front_http_opts *o,
				    char *url, struct err *err)
{
	struct front_http *h = calloc(1, sizeof(*h));
	struct sockaddr_storage ss = {0};
	const union MHD_DaemonInfo *info;
	char addr[INET6_ADDRSTRLEN];
	unsigned flags =
	    MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC;

	if (!h) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	if (!mhd_lib_load(err)) {
		free(h);
		return NULL;
	}
	h->e = e;
	h->o = *o;
	if (!(h->o.session_idle_s > 0))
		h->o.session_idle_s = DEFAULT_IDLE_S;
	pthread_mutex_init(&h->lock, NULL);
	if (resolve(o->listen, &ss, &h->loopback, err) < 0)
		goto out_free;
	if (!h->loopback && !token_any(o->root)) {
		err_set(err, EXIT_USAGE,
			"serve: %s is not loopback and no token exists: anyone who can reach it "
			"would act as a customer; create tokens first ('mcpfs token create "
			"CUSTOMER')",
			o->listen);
		goto out_free;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->d = mhd_lib->start_daemon(flags, 0, NULL, NULL, handler, h, MHD_OPTION_SOCK_ADDR, &ss,
				     MHD_OPTION_NOTIFY_COMPLETED, completed, h,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTIONS_MAX,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)0, MHD_OPTION_END);
	if (!h->d) {
		err_set(err, EXIT_FAILED, "serve: cannot listen on %s: %s", o->listen,
			strerror(errno));
		goto out_free;
	}
	info = mhd_lib->get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof(addr));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof(addr));
	snprintf(url, 128, ss.ss_family == AF_INET6 ? "http://[%s]:%u/mcp" : "http://%s:%u/mcp",
		 addr, info ? info->port : 0);
	return h;
out_free:
	pthread_mutex_destroy(&h->lock);
	free(h);
	return NULL;
}

void front_http_stop(struct front_http *h, double drain_s)
{
	double until = clock_now_s() + drain_s;
	struct session *s, *first;
	bool busy;

	if (!h)
		return;
	mhd_lib->quiesce_daemon(h->d);
	sched_close(h->e->sched);
	do {
		busy = false;
		pthread_mutex_lock(&h->lock);
		for (s = h->sessions; s && !busy; s = s->next)
			busy = mcp_conn_busy(s->conn) > 0;
		pthread_mutex_unlock(&h->lock);
		if (busy)
			poll(NULL, 0, 20);
	} while (busy && clock_now_s() < until);
	for (;;) {
		pthread_mutex_lock(&h->lock);
		first = h->sessions;
		if (first)
			first->refs++;
		pthread_mutex_unlock(&h->lock);
		if (!first)
			break;
		session_end(first);
		session_unref(first);
	}
	mhd_lib->stop_daemon(h->d);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
