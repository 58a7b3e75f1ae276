/* Streamable HTTP (protocol 2025-03-26 and later). Each message is POSTed on
 * a worker thread of its own; send() waits only for the answer's status, so
 * a slow tool call does not hold the caller, and the worker delivers the
 * body (one JSON message, or an SSE stream that may carry server requests
 * before the response). A stream that ends before its response is resumed
 * with GET + Last-Event-ID after the server's `retry:` delay. ready() opens
 * the GET stream for server notifications. A server that refuses the first
 * POST but answers GET with an `endpoint` event is legacy HTTP+SSE: the
 * transport then delegates to transport_sse_ops for the rest of its life.
 * A 401 or 403 never means legacy: it goes to OAuth (oauth.h), which may
 * renew the token for one more try, or says how to log in. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/buf.h"
#include "oauth.h"
#include "server_log.h"
#include "sse.h"
#include "transport.h"
#include "transport_curl_i.h"

#define HTTP_WHY_MAX ERR_TEXT_MAX
#define HTTP_ID_MAX 256		 /* session and event ids we keep */
#define HTTP_ERROR_BODY_MAX 1024 /* of a non-2xx answer, for the message */
#define HTTP_CHALLENGE_MAX 2048	 /* a WWW-Authenticate header we keep */
#define HTTP_RETRY_DEFAULT_MS 1000L
#define HTTP_RETRY_MAX_MS 60000L
/* How long ready() waits for the GET stream to be answered. */
#define HTTP_GET_SETTLE_S 5.0
/* Consecutive failed reconnections before a resumed response counts as lost. */
#define HTTP_RECONNECT_TRIES 3
/* The GET stream's server counts as gone after this long unreachable (s),
 * long enough for a restart on the same port; reconnections back off to
 * HTTP_BACKOFF_MAX_MS meanwhile. */
#define HTTP_GONE_S 10
#define HTTP_BACKOFF_MAX_MS 2000L

struct transport {
	const struct server_config *sc; /* borrowed for the transport's life */
	struct transport_sink sink;
	struct transport_sink init_sink; /* for initialize answers: notes the version first */
	char *log_path;			 /* owned, may be NULL: for the legacy fallback */
	struct server_log *log;		 /* owned, may be NULL */
	struct tcurl_cancel cancel;	 /* its lock also guards the fields below */
	char session[HTTP_ID_MAX];	 /* Mcp-Session-Id, "" if none */
	unsigned epoch;			 /* bumps on initialize and ready(): a new session */
	char version[32];		 /* negotiated version, "" until initialize answers */
	bool ever_ok;			 /* a POST was answered 2xx: no legacy fallback */
	bool dead;			 /* on_closed was called; later sends fail */
	char why[HTTP_WHY_MAX];		 /* for dead */
	int workers;			 /* POST workers and GET threads running */
	bool get_running;		 /* the notification stream thread exists */
	bool get_settled;		 /* its first GET was answered or failed */
	struct transport *legacy;	 /* set once by the fallback; then every op delegates */
};

/* One HTTP exchange whose body is parsed as it arrives. */
struct stream {
	struct transport *t;
	CURL *e;
	const struct transport_sink *sink; /* borrowed: where messages go */
	const json_t *want_id; /* borrowed: the request whose response ends the stream */
	bool got;	       /* that response was delivered */
	struct sse_parser sse;
	struct buf body; /* a JSON body, or the start of an error body */
	long status;	 /* final status once headers_done */
	bool headers_done;
	bool is_sse;
	bool fault;		/* a malformed message or one over the cap */
	char why[HTTP_WHY_MAX]; /* for fault */
	char session[HTTP_ID_MAX];
	char last_id[HTTP_ID_MAX];
	char www_auth[HTTP_CHALLENGE_MAX]; /* WWW-Authenticate of a 401/403 */
	long retry_ms;
	unsigned epoch; /* a GET stream's session (transport.epoch); ends with it */
	/* Called once the final status is known (the POST worker wakes send()). */
	void (*on_headers)(struct stream *s);
	void *job;
};

/* A POST and its waiting sender. Two owners (sender, worker): the last frees it. */
struct job {
	struct stream s;
	char *text;	 /* owned: the serialized message */
	char *auth;	 /* owned: the Authorization value sent, or NULL */
	json_t *want_id; /* new reference, NULL for notifications and responses */
	bool initialize;
	bool had_session;
	char method[64];
	/* protected by t->cancel.lock; changes signal t->cancel.cond */
	int phase; /* 0 running, 1 status known, 2 finished */
	CURLcode rc;
	int refs;
};

static bool is_2xx(long status)
{
	return status >= 200 && status <= 299;
}

/* The initialize answer names the version: every later request carries it
 * (the spec: "all subsequent requests"), the initialized notification too,
 * which goes out before ready(). */
static void init_sink_message(void *ctx, json_t *msg, const json_t *rel)
{
	struct transport *t = ctx;
	const char *v =
	    json_string_value(json_object_get(json_object_get(msg, "result"), "protocolVersion"));

	if (v && !json_object_get(msg, "method")) {
		pthread_mutex_lock(&t->cancel.lock);
		snprintf(t->version, sizeof(t->version), "%s", v);
		pthread_mutex_unlock(&t->cancel.lock);
	}
	t->sink.on_message(t->sink.ctx, msg, rel);
}

static void init_sink_closed(void *ctx, const char *why)
{
	struct transport *t = ctx;

	t->sink.on_closed(t->sink.ctx, why);
}

/* Mark the transport dead and tell the sink, once. */
static void report_closed(struct transport *t, const char *why)
{
	bool first;

	pthread_mutex_lock(&t->cancel.lock);
	first = !t->dead && !t->cancel.closing;
	if (first) {
		t->dead = true;
		snprintf(t->why, sizeof(t->why), "%s", why);
	}
	pthread_mutex_unlock(&t->cancel.lock);
	if (first) {
		server_log_printf(t->log, "%s", why);
		t->sink.on_closed(t->sink.ctx, why);
	}
}

static void worker_done(struct transport *t)
{
	pthread_mutex_lock(&t->cancel.lock);
	t->workers--;
	pthread_cond_broadcast(&t->cancel.cond);
	pthread_mutex_unlock(&t->cancel.lock);
}

static void stream_init(struct stream *s, struct transport *t, CURL *e, const json_t *want_id)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->e = e;
	s->sink = &t->sink;
	s->want_id = want_id;
	s->retry_ms = -1;
	sse_parser_init(&s->sse, TRANSPORT_MAX_MESSAGE);
	buf_init(&s->body, TRANSPORT_MAX_MESSAGE);
}

static void stream_free(struct stream *s)
{
	sse_parser_free(&s->sse);
	buf_free(&s->body);
}

static void copy_trimmed(char *dst, size_t n, const char *src, size_t len)
{
	while (len && (*src == ' ' || *src == '\t')) {
		src++;
		len--;
	}
	while (len && (src[len - 1] == '\r' || src[len - 1] == '\n' || src[len - 1] == ' '))
		len--;
	if (len >= n)
		len = n - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
	struct stream *s = ctx;
	char *type = NULL;
	size_t len = size * n;

	if (len >= 5 && !strncmp(p, "HTTP/", 5)) {
		s->session[0] = '\0';
		s->www_auth[0] = '\0';
		return len;
	}
	if (len >= 17 && !strncasecmp(p, "www-authenticate:", 17) && !s->www_auth[0]) {
		copy_trimmed(s->www_auth, sizeof(s->www_auth), p + 17, len - 17);
		return len;
	}
	if (len >= 15 && !strncasecmp(p, "mcp-session-id:", 15)) {
		copy_trimmed(s->session, sizeof(s->session), p + 15, len - 15);
		return len;
	}
	if ((len == 2 && p[0] == '\r') || (len == 1 && p[0] == '\n')) {
		curl_lib->easy_getinfo(s->e, CURLINFO_RESPONSE_CODE, &s->status);
		if (s->status < 200)
			return len;
		curl_lib->easy_getinfo(s->e, CURLINFO_CONTENT_TYPE, &type);
		s->is_sse = type && !strncasecmp(type, "text/event-stream", 17);
		if (is_2xx(s->status) && !s->is_sse) {
			buf_free(&s->body);
			buf_init(&s->body, TRANSPORT_MAX_MESSAGE);
		} else if (!is_2xx(s->status)) {
			buf_free(&s->body);
			buf_init(&s->body, HTTP_ERROR_BODY_MAX);
		}
		s->headers_done = true;
		if (s->on_headers)
			s->on_headers(s);
	}
	return len;
}

static void fault(struct stream *s, const char *what, const char *detail)
{
	s->fault = true;
	snprintf(s->why, sizeof(s->why), "%s %s: %.300s", what, s->t->sc->url, detail);
}

static int on_event(void *ctx, const struct sse_event *ev)
{
	struct stream *s = ctx;
	struct err e = {0};

	copy_trimmed(s->last_id, sizeof(s->last_id), ev->id, strlen(ev->id));
	/* A priming event carries an id and no message. */
	if (!ev->data_len || strcmp(ev->type, "message"))
		return 0;
	if (tcurl_deliver(s->sink, ev->data, ev->data_len, s->want_id, &s->got, &e)) {
		fault(s, "SSE stream of", e.text);
		return -EPROTO;
	}
	/* Our response is in: the stream has nothing more for us. */
	return s->want_id && s->got ? 1 : 0;
}

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	struct stream *s = ctx;
	size_t len = size * n;
	char why[64];
	int rc;

	if (!s->headers_done || !is_2xx(s->status)) {
		buf_append(&s->body, p, len);
		return len;
	}
	if (!s->is_sse) {
		if (buf_append(&s->body, p, len)) {
			snprintf(why, sizeof(why), "a message is larger than %u bytes",
				 TRANSPORT_MAX_MESSAGE);
			fault(s, "answer of", why);
			return 0;
		}
		return len;
	}
	rc = sse_parser_feed(&s->sse, p, len, on_event, s);
	if (sse_parser_retry_ms(&s->sse) >= 0)
		s->retry_ms = sse_parser_retry_ms(&s->sse);
	copy_trimmed(s->last_id, sizeof(s->last_id), sse_parser_last_id(&s->sse),
		     strlen(sse_parser_last_id(&s->sse)));
	if (rc == -E2BIG || rc == -ENOMEM) {
		snprintf(why, sizeof(why), "an event is larger than %u bytes",
			 TRANSPORT_MAX_MESSAGE);
		fault(s, "SSE stream of", why);
	}
	return rc ? 0 : len;
}

static bool configured_authorization(const struct server_config *sc)
{
	size_t i;

	for (i = 0; i < sc->nheaders; i++)
		if (!strncasecmp(sc->headers[i], "authorization:", 14))
			return true;
	return false;
}

/* The OAuth token, unless the config sets its own Authorization header.
 * *@sent (may be NULL) receives a new copy of what was added. */
static struct curl_slist *auth_header(struct transport *t, struct curl_slist *l, char **sent)
{
	struct curl_slist *n;
	char *v, *line;

	if (!l || configured_authorization(t->sc) || !(v = oauth_authorization(t->sc)))
		return l;
	if (asprintf(&line, "Authorization: %s", v) < 0)
		line = NULL;
	n = line ? curl_lib->slist_append(l, line) : NULL;
	if (line) {
		explicit_bzero(line, strlen(line));
		free(line);
	}
	if (!n)
		curl_lib->slist_free_all(l);
	if (n && sent)
		*sent = v;
	else
		free(v);
	return n;
}

/* Headers every request carries: the config's, the token, the session, the
 * version. */
static struct curl_slist *base_headers(struct transport *t, bool with_session, bool *had_session,
				       char **auth_sent)
{
	char session[HTTP_ID_MAX], version[32];
	struct curl_slist *l;
	bool oom;

	pthread_mutex_lock(&t->cancel.lock);
	snprintf(session, sizeof(session), "%s", with_session ? t->session : "");
	snprintf(version, sizeof(version), "%s", with_session ? t->version : "");
	pthread_mutex_unlock(&t->cancel.lock);
	if (had_session)
		*had_session = session[0] != '\0';
	l = tcurl_config_headers(t->sc, &oom);
	if (oom)
		return NULL;
	/* An empty "Expect:" keeps curl from waiting for 100-continue on big bodies. */
	l = tcurl_header(l, "Expect", "");
	l = auth_header(t, l, auth_sent);
	if (l && session[0])
		l = tcurl_header(l, "Mcp-Session-Id", session);
	if (l && version[0])
		l = tcurl_header(l, "MCP-Protocol-Version", version);
	return l;
}

static CURL *stream_easy(struct stream *s, const char *url, struct curl_slist *headers)
{
	CURL *e = tcurl_easy_new(s->t->sc, url);

	if (!e)
		return NULL;
	s->e = e;
	curl_lib->easy_setopt(e, CURLOPT_HTTPHEADER, headers);
	curl_lib->easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_lib->easy_setopt(e, CURLOPT_HEADERDATA, s);
	curl_lib->easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
	curl_lib->easy_setopt(e, CURLOPT_WRITEDATA, s);
	return e;
}

/* A GET stream of a session that was replaced: end it, as the server
 * would keep it open for nobody. Checked by curl at least once a second
 * (tcurl_perform's poll). */
static int stale_stream(void *p, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
			curl_off_t ulnow)
{
	struct stream *s = p;
	unsigned now;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	pthread_mutex_lock(&s->t->cancel.lock);
	now = s->t->epoch;
	pthread_mutex_unlock(&s->t->cancel.lock);
	return now != s->epoch;
}

/* One GET of the event stream, resuming after @last_id when it is not "",
 * for at most @timeout_ms (0: as long as the stream lasts). Fills @s;
 * returns the transfer's result. */
static CURLcode get_once(struct transport *t, struct stream *s, const char *last_id,
			 long timeout_ms)
{
	struct curl_slist *h = base_headers(t, true, NULL, NULL);
	CURLcode rc = CURLE_OUT_OF_MEMORY;
	CURL *e;

	if (h)
		h = tcurl_header(h, "Accept", "text/event-stream");
	if (h && last_id[0])
		h = tcurl_header(h, "Last-Event-ID", last_id);
	e = h ? stream_easy(s, t->sc->url, h) : NULL;
	if (e) {
		curl_lib->easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
		if (s->epoch) {
			curl_lib->easy_setopt(e, CURLOPT_XFERINFOFUNCTION, stale_stream);
			curl_lib->easy_setopt(e, CURLOPT_XFERINFODATA, s);
			curl_lib->easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
		}
		rc = tcurl_perform(&t->cancel, e);
		curl_lib->easy_cleanup(e);
	}
	s->e = NULL;
	curl_lib->slist_free_all(h);
	return rc;
}

/* How long a request's answer may stream: twice the call timeout, since the
 * client may extend one call's timeout, plus the connect timeout. The client
 * gives up (and cancels) earlier on its own. */
static long request_timeout_ms(const struct transport *t)
{
	double call_s = t->sc->timeout_s > 0 ? t->sc->timeout_s : TCURL_CALL_TIMEOUT_S;
	double connect_s =
	    t->sc->connect_timeout_s > 0 ? t->sc->connect_timeout_s : TCURL_CONNECT_TIMEOUT_S;

	return (long)((2 * call_s + connect_s) * 1000);
}

static long retry_delay(long ms)
{
	if (ms < 0)
		return HTTP_RETRY_DEFAULT_MS;
	return ms > HTTP_RETRY_MAX_MS ? HTTP_RETRY_MAX_MS : ms;
}

static void job_release(struct transport *t, struct job *j)
{
	struct curl_slist *headers = NULL;
	bool last;

	pthread_mutex_lock(&t->cancel.lock);
	last = --j->refs == 0;
	pthread_mutex_unlock(&t->cancel.lock);
	if (!last)
		return;
	if (j->s.e) {
		curl_lib->easy_getinfo(j->s.e, CURLINFO_PRIVATE, &headers);
		curl_lib->slist_free_all(headers);
		curl_lib->easy_cleanup(j->s.e);
	}
	stream_free(&j->s);
	json_decref(j->want_id);
	free(j->text);
	free(j->auth);
	free(j);
}

/* The POST's status is known: keep the session an initialize answer names,
 * and wake the sender. Runs on the worker, inside curl. */
static void job_on_headers(struct stream *s)
{
	struct transport *t = s->t;
	struct job *j = s->job;

	pthread_mutex_lock(&t->cancel.lock);
	if (is_2xx(s->status)) {
		t->ever_ok = true;
		if (j->initialize && s->session[0])
			snprintf(t->session, sizeof(t->session), "%s", s->session);
	}
	j->phase = 1;
	pthread_cond_broadcast(&t->cancel.cond);
	pthread_mutex_unlock(&t->cancel.lock);
}

/* The POST's stream ended before the response: GET it again from the last
 * event id, after the server's retry delay, until the response arrives. */
static void resume(struct transport *t, struct job *j)
{
	char last_id[HTTP_ID_MAX], why[HTTP_WHY_MAX];
	long retry = j->s.retry_ms;
	struct stream r;
	int tries = 0;
	CURLcode rc = CURLE_OK;
	bool got = false;

	snprintf(last_id, sizeof(last_id), "%s", j->s.last_id);
	snprintf(why, sizeof(why), "%s (%s): the server ended the stream", t->sc->url, j->method);
	while (!got && tries < HTTP_RECONNECT_TRIES) {
		if (!tcurl_sleep(&t->cancel, retry_delay(retry)))
			return;
		stream_init(&r, t, NULL, j->want_id);
		rc = get_once(t, &r, last_id, request_timeout_ms(t));
		got = r.got;
		if (r.fault) {
			report_closed(t, r.why);
			stream_free(&r);
			return;
		}
		if (r.headers_done && !is_2xx(r.status)) {
			snprintf(why, sizeof(why), "GET %s (resuming %s after event %s): HTTP %ld",
				 t->sc->url, j->method, last_id, r.status);
			stream_free(&r);
			break;
		}
		/* Only a stream that moved on resets the count of tries. */
		if (r.last_id[0] && strcmp(r.last_id, last_id))
			tries = 0;
		else
			tries++;
		if (r.last_id[0])
			snprintf(last_id, sizeof(last_id), "%s", r.last_id);
		if (r.retry_ms >= 0)
			retry = r.retry_ms;
		if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR)
			snprintf(why, sizeof(why), "GET %s (resuming %s): %s", t->sc->url,
				 j->method, curl_lib->easy_strerror(rc));
		stream_free(&r);
	}
	if (!got && !tcurl_cancelled(&t->cancel))
		report_closed(t, why);
}

static void *post_worker(void *arg)
{
	struct job *j = arg;
	struct transport *t = j->s.t;
	struct err e = {0};
	char why[HTTP_WHY_MAX];
	CURLcode rc;
	bool ok;

	rc = tcurl_perform(&t->cancel, j->s.e);
	pthread_mutex_lock(&t->cancel.lock);
	j->rc = rc;
	j->phase = 2;
	pthread_cond_broadcast(&t->cancel.cond);
	pthread_mutex_unlock(&t->cancel.lock);
	ok = j->s.headers_done && is_2xx(j->s.status) && !tcurl_cancelled(&t->cancel);
	if (ok && !j->s.is_sse && j->s.body.len && !j->s.fault &&
	    tcurl_deliver(j->s.sink, j->s.body.data, j->s.body.len, j->want_id, &j->s.got, &e))
		fault(&j->s, "answer of", e.text);
	if (ok && j->s.fault) {
		report_closed(t, j->s.why);
	} else if (ok && j->want_id && !j->s.got) {
		if (j->s.is_sse && j->s.last_id[0]) {
			resume(t, j);
		} else {
			snprintf(why, sizeof(why),
				 "POST %s (%s): the answer ended without a response%s%s",
				 t->sc->url, j->method, rc != CURLE_OK ? ": " : "",
				 rc != CURLE_OK ? curl_lib->easy_strerror(rc) : "");
			report_closed(t, why);
		}
	}
	job_release(t, j);
	worker_done(t);
	return NULL;
}

static struct job *job_new(struct transport *t, json_t *msg, struct err *err)
{
	double connect_s =
	    t->sc->connect_timeout_s > 0 ? t->sc->connect_timeout_s : TCURL_CONNECT_TIMEOUT_S;
	const char *method = json_string_value(json_object_get(msg, "method"));
	json_t *id = json_object_get(msg, "id"); /* borrowed */
	struct curl_slist *h;
	struct job *j;

	j = calloc(1, sizeof(*j));
	if (!j)
		goto out_oom;
	stream_init(&j->s, t, NULL, NULL);
	j->refs = 2;
	j->initialize = method && !strcmp(method, "initialize");
	snprintf(j->method, sizeof(j->method), "%s", method ? method : "response");
	if (method && id)
		j->want_id = json_incref(id);
	j->s.want_id = j->want_id;
	if (j->initialize)
		j->s.sink = &t->init_sink;
	j->s.on_headers = job_on_headers;
	j->s.job = j;
	j->text = json_dumps(msg, JSON_COMPACT);
	h = base_headers(t, !j->initialize, &j->had_session, &j->auth);
	if (h)
		h = tcurl_header(h, "Content-Type", "application/json");
	if (h)
		h = tcurl_header(h, "Accept", "application/json, text/event-stream");
	if (!j->text || !h || !stream_easy(&j->s, t->sc->url, h)) {
		curl_lib->slist_free_all(h);
		goto out_free;
	}
	/* The list must outlive the transfer: curl keeps a pointer to it. */
	curl_lib->easy_setopt(j->s.e, CURLOPT_PRIVATE, h);
	curl_lib->easy_setopt(j->s.e, CURLOPT_POSTFIELDS, j->text);
	/* Anything but a request is answered at once. */
	curl_lib->easy_setopt(j->s.e, CURLOPT_TIMEOUT_MS,
			      j->want_id ? request_timeout_ms(t) : (long)(connect_s * 1000));
	return j;
out_free:
	j->refs = 1;
	job_release(t, j);
out_oom:
	err_set(err, EXIT_UNREACHABLE, "POST %s: out of memory", t->sc->url);
	return NULL;
}

/* Legacy fallback (the spec's backwards compatibility section): the first
 * POST was refused with 4xx; a GET that answers an `endpoint` event means an
 * HTTP+SSE server. @post_err holds the POST's failure for the message. */
static int fall_back(struct transport *t, json_t *msg, struct err *post_err, struct err *err)
{
	struct err le = {0};
	struct transport *legacy;

	legacy = transport_sse_ops.open(t->sc, &t->sink, t->log_path, &le);
	if (!legacy) {
		err_set(err, EXIT_UNREACHABLE, "%.200s; as legacy SSE: %.250s", post_err->text,
			le.text);
		return -EIO;
	}
	server_log_printf(t->log, "%s: the server speaks legacy HTTP+SSE", t->sc->url);
	pthread_mutex_lock(&t->cancel.lock);
	t->legacy = legacy;
	pthread_mutex_unlock(&t->cancel.lock);
	return transport_sse_ops.send(legacy, msg, err);
}

/* A 401 or 403 to @j: 1 to send again with a renewed token (once), else
 * -EACCES with @err saying what to do. Never the legacy fallback. */
static int http_auth_failed(struct transport *t, struct job *j, long status, bool retried,
			    struct err *err)
{
	int rc = 0;

	/* A token of the config's own is the user's business: no OAuth. */
	if (!retried && !configured_authorization(t->sc))
		rc = oauth_challenged(t->sc, status, j->s.www_auth[0] ? j->s.www_auth : NULL,
				      j->auth, err);
	else if (t->sc->token_file && status == 401)
		rc = oauth_login_needed(t->sc, "refused a renewed token", err);
	if (rc == 1)
		return 1;
	if (rc == 0)
		err_set(err, EXIT_UNREACHABLE, "POST %s (%s): HTTP %ld%s%.200s", t->sc->url,
			j->method, status, j->s.body.len ? ": " : "",
			j->s.body.data ? j->s.body.data : "");
	return -EACCES;
}

static struct transport *legacy_of(struct transport *t)
{
	struct transport *l;

	pthread_mutex_lock(&t->cancel.lock);
	l = t->legacy;
	pthread_mutex_unlock(&t->cancel.lock);
	return l;
}

static int http_send(struct transport *t, json_t *msg, struct err *err)
{
	struct transport *legacy = legacy_of(t);
	struct err pe = {0};
	pthread_attr_t attr;
	pthread_t tid;
	struct job *j;
	bool ever_ok, retried = false;
	long status;
	int ret;

	if (legacy)
		return transport_sse_ops.send(legacy, msg, err);
	pthread_mutex_lock(&t->cancel.lock);
	if (t->dead || t->cancel.closing) {
		err_set(err, EXIT_UNREACHABLE, "%s", t->dead ? t->why : "transport closed");
		pthread_mutex_unlock(&t->cancel.lock);
		return -EPIPE;
	}
	pthread_mutex_unlock(&t->cancel.lock);
again:
	j = job_new(t, msg, err);
	if (!j)
		return -ENOMEM;
	if (j->initialize) {
		/* A new initialize starts a new session: forget the old one. */
		pthread_mutex_lock(&t->cancel.lock);
		t->session[0] = '\0';
		t->version[0] = '\0';
		t->epoch++;
		pthread_mutex_unlock(&t->cancel.lock);
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&t->cancel.lock);
	t->workers++;
	pthread_mutex_unlock(&t->cancel.lock);
	if (pthread_create(&tid, &attr, post_worker, j)) {
		pthread_attr_destroy(&attr);
		worker_done(t);
		j->refs = 1;
		job_release(t, j);
		err_set(err, EXIT_UNREACHABLE, "POST %s: pthread_create failed", t->sc->url);
		return -EAGAIN;
	}
	pthread_attr_destroy(&attr);

	/* Wait for the status; a failure also needs the body, for the message. */
	pthread_mutex_lock(&t->cancel.lock);
	while (!t->cancel.closing && (j->phase == 0 || (j->phase == 1 && !is_2xx(j->s.status))))
		pthread_cond_wait(&t->cancel.cond, &t->cancel.lock);
	status = j->s.headers_done ? j->s.status : 0;
	ever_ok = t->ever_ok;
	pthread_mutex_unlock(&t->cancel.lock);

	ret = 0;
	if (tcurl_cancelled(&t->cancel)) {
		err_set(err, EXIT_UNREACHABLE, "POST %s (%s): transport closed", t->sc->url,
			j->method);
		ret = -ECANCELED;
	} else if (!status) {
		err_set(err, EXIT_UNREACHABLE, "POST %s (%s): %s", t->sc->url, j->method,
			curl_lib->easy_strerror(j->rc));
		ret = -ECONNREFUSED;
	} else if (status == 401 || status == 403) {
		ret = http_auth_failed(t, j, status, retried, err);
		if (ret == 1) {
			retried = true;
			job_release(t, j);
			goto again;
		}
	} else if (!is_2xx(status)) {
		err_set(&pe, EXIT_UNREACHABLE, "POST %s (%s): HTTP %ld%s%.200s", t->sc->url,
			j->method, status, j->s.body.len ? ": " : "",
			j->s.body.data ? j->s.body.data : "");
		if ((status == 404 || status == 400) && j->had_session)
			ret = -ESTALE;
		else
			ret = -EPROTO;
		*err = pe;
		if (ret == -EPROTO && status >= 400 && status <= 499 && j->initialize && !ever_ok)
			ret = fall_back(t, msg, &pe, err);
	}
	job_release(t, j);
	return ret;
}

static void get_settle(struct transport *t)
{
	pthread_mutex_lock(&t->cancel.lock);
	t->get_settled = true;
	pthread_cond_broadcast(&t->cancel.cond);
	pthread_mutex_unlock(&t->cancel.lock);
}

static void get_on_headers(struct stream *s)
{
	get_settle(s->t);
}

/* The server-to-client stream: notifications and requests not tied to a
 * POST. Reconnects after `retry:` with Last-Event-ID; a server without one
 * (405) or a lost session (400/404: the next POST says so) ends it quietly. */
/* Whether the GET loop may end now: not when ready() asked for a stream of a
 * newer session meanwhile. Decided under the lock that ready() takes, so a
 * request for a stream is never lost between the two. */
static bool get_loop_may_end(struct transport *t, unsigned epoch)
{
	bool end;

	pthread_mutex_lock(&t->cancel.lock);
	end = epoch == t->epoch || t->cancel.closing || t->dead;
	if (end)
		t->get_running = false;
	pthread_mutex_unlock(&t->cancel.lock);
	return end;
}

static void *get_loop(void *arg)
{
	struct transport *t = arg;
	char last_id[HTTP_ID_MAX] = "", why[HTTP_WHY_MAX];
	struct timespec first_fail = {0}, now;
	struct stream s;
	long retry = -1, delay;
	int fails = 0, i;
	unsigned epoch = 0;
	bool renewed;
	CURLcode rc;

	for (;;) {
		/* A new session starts a new stream from scratch. */
		pthread_mutex_lock(&t->cancel.lock);
		renewed = epoch != t->epoch;
		epoch = t->epoch;
		pthread_mutex_unlock(&t->cancel.lock);
		if (renewed) {
			last_id[0] = '\0';
			retry = -1;
			fails = 0;
		}
		stream_init(&s, t, NULL, NULL);
		s.on_headers = get_on_headers;
		s.epoch = epoch;
		rc = get_once(t, &s, last_id, 0);
		get_settle(t);
		if (tcurl_cancelled(&t->cancel)) {
			stream_free(&s);
			break;
		}
		if (s.fault) {
			report_closed(t, s.why);
			stream_free(&s);
			break;
		}
		if (s.headers_done && (!is_2xx(s.status) || !s.is_sse)) {
			server_log_printf(t->log, "GET %s: HTTP %ld%s: no server-to-client stream",
					  t->sc->url, s.status,
					  s.is_sse ? "" : " (not an event stream)");
			stream_free(&s);
			if (get_loop_may_end(t, epoch))
				goto out_ended;
			continue;
		}
		if (s.last_id[0])
			snprintf(last_id, sizeof(last_id), "%s", s.last_id);
		if (s.retry_ms >= 0)
			retry = s.retry_ms;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (s.headers_done) {
			fails = 0;
		} else if (!fails++) {
			first_fail = now;
		} else if (now.tv_sec - first_fail.tv_sec >= HTTP_GONE_S) {
			/* A restart takes a moment; this long unreachable is gone. */
			snprintf(why, sizeof(why), "GET %s: %s for %d s", t->sc->url,
				 curl_lib->easy_strerror(rc), HTTP_GONE_S);
			report_closed(t, why);
			stream_free(&s);
			break;
		}
		stream_free(&s);
		/* The server's retry, doubled per failed reconnection up to a cap. */
		delay = retry_delay(retry);
		for (i = 1; i < fails && delay < HTTP_BACKOFF_MAX_MS; i++)
			delay = delay * 2 < HTTP_BACKOFF_MAX_MS ? delay * 2 : HTTP_BACKOFF_MAX_MS;
		if (!tcurl_sleep(&t->cancel, delay))
			break;
	}
	pthread_mutex_lock(&t->cancel.lock);
	t->get_running = false;
	pthread_mutex_unlock(&t->cancel.lock);
out_ended:
	worker_done(t);
	return NULL;
}

static void http_ready(struct transport *t, const char *protocol_version)
{
	struct transport *legacy = legacy_of(t);
	struct timespec until;
	pthread_attr_t attr;
	pthread_t tid;
	bool start;

	if (legacy) {
		transport_sse_ops.ready(legacy, protocol_version);
		return;
	}
	pthread_mutex_lock(&t->cancel.lock);
	snprintf(t->version, sizeof(t->version), "%s", protocol_version ? protocol_version : "");
	if (t->dead || t->cancel.closing) {
		pthread_mutex_unlock(&t->cancel.lock);
		return;
	}
	/* A running loop sees the new epoch and starts over for this session. */
	t->epoch++;
	t->get_settled = false;
	start = !t->get_running;
	if (start) {
		t->get_running = true;
		t->workers++;
	}
	pthread_mutex_unlock(&t->cancel.lock);
	if (!start)
		goto out_wait;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&tid, &attr, get_loop, t)) {
		server_log_printf(t->log, "GET %s: pthread_create failed", t->sc->url);
		pthread_mutex_lock(&t->cancel.lock);
		t->get_running = false;
		pthread_mutex_unlock(&t->cancel.lock);
		worker_done(t);
		pthread_attr_destroy(&attr);
		return;
	}
	pthread_attr_destroy(&attr);
out_wait:
	/* Servers drop what they send while no GET stream is open (the SDK sends
	 * requests not tied to a POST there): wait until it is answered. */
	tcurl_deadline(&until, HTTP_GET_SETTLE_S);
	pthread_mutex_lock(&t->cancel.lock);
	while (!t->get_settled && !t->cancel.closing &&
	       pthread_cond_timedwait(&t->cancel.cond, &t->cancel.lock, &until) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&t->cancel.lock);
}

static struct transport *http_open(const struct server_config *sc,
				   const struct transport_sink *sink, const char *log_path,
				   struct err *err)
{
	struct transport *t;

	if (!sc->url) {
		err_set(err, EXIT_USAGE, "server '%s': no url", sc->name);
		return NULL;
	}
	if (!curl_lib_load(err))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t || (log_path && !(t->log_path = strdup(log_path)))) {
		free(t);
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
		return NULL;
	}
	t->sc = sc;
	t->sink = *sink;
	t->init_sink.ctx = t;
	t->init_sink.on_message = init_sink_message;
	t->init_sink.on_closed = init_sink_closed;
	t->log = log_path ? server_log_open(log_path) : NULL;
	tcurl_cancel_init(&t->cancel);
	return t;
}

/* End the session on the server; best effort, briefly. */
static void delete_session(struct transport *t)
{
	struct curl_slist *h = base_headers(t, true, NULL, NULL);
	CURL *e = h ? tcurl_easy_new(t->sc, t->sc->url) : NULL;

	if (e) {
		curl_lib->easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
		curl_lib->easy_setopt(e, CURLOPT_NOBODY, 1L);
		curl_lib->easy_setopt(e, CURLOPT_HTTPHEADER, h);
		curl_lib->easy_setopt(e, CURLOPT_TIMEOUT_MS, 2000L);
		curl_lib->easy_perform(e);
		curl_lib->easy_cleanup(e);
	}
	curl_lib->slist_free_all(h);
}

static void http_close(struct transport *t)
{
	struct transport *legacy;
	bool had_session;

	if (!t)
		return;
	legacy = legacy_of(t);
	tcurl_cancel_fire(&t->cancel);
	pthread_mutex_lock(&t->cancel.lock);
	while (t->workers)
		pthread_cond_wait(&t->cancel.cond, &t->cancel.lock);
	had_session = t->session[0] != '\0';
	pthread_mutex_unlock(&t->cancel.lock);
	if (legacy)
		transport_sse_ops.close(legacy);
	else if (had_session)
		delete_session(t);
	tcurl_cancel_destroy(&t->cancel);
	server_log_close(t->log);
	free(t->log_path);
	free(t);
}

const struct transport_ops transport_http_ops = {
    .name = "http",
    .open = http_open,
    .send = http_send,
    .ready = http_ready,
    .close = http_close,
};
