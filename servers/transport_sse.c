/* Legacy HTTP+SSE (protocol 2024-11-05): a GET opens an event stream whose
 * first event, `endpoint`, names the URL to POST messages to; POSTs answer
 * 202 and every reply arrives as an `event: message` on the GET stream. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../common/buf.h"
#include "server_log.h"
#include "sse.h"
#include "transport.h"
#include "transport_curl_i.h"

#define SSE_WHY_MAX ERR_TEXT_MAX
/* A POST answer is only a status; its body matters for error text only. */
#define SSE_POST_BODY_MAX 1024

struct transport {
	const struct server_config *sc; /* borrowed for the transport's life */
	struct transport_sink sink;
	struct server_log *log; /* owned, may be NULL */
	struct tcurl_cancel cancel;
	struct curl_slist *get_headers; /* owned; used by the GET thread only */
	pthread_t thread;
	struct sse_parser parser; /* GET thread only */
	CURL *get;		  /* GET thread only */
	long status;		  /* GET thread only */
	bool checked;		  /* GET thread only: status and type looked at */
	/* protected by cancel.lock; changes signal cancel.cond */
	char *endpoint;	       /* owned: where POSTs go, once known */
	bool ended;	       /* the GET stream is over */
	char why[SSE_WHY_MAX]; /* why it ended */
};

static void set_ended(struct transport *t, const char *why)
{
	pthread_mutex_lock(&t->cancel.lock);
	if (!t->ended) {
		t->ended = true;
		snprintf(t->why, sizeof(t->why), "%s", why);
	}
	pthread_cond_broadcast(&t->cancel.cond);
	pthread_mutex_unlock(&t->cancel.lock);
}

/* The endpoint resolved against the server URL; it must stay on the same
 * origin, so a server cannot point our POSTs (and their headers) elsewhere. */
static char *resolve_endpoint(const char *base, const char *rel, char *why, size_t whylen)
{
	char *bhost = NULL, *bport = NULL, *host = NULL, *port = NULL, *out = NULL;
	CURLU *u = curl_lib->url(), *b = curl_lib->url();

	if (!u || !b)
		goto out_free;
	if (curl_lib->url_set(b, CURLUPART_URL, base, 0) ||
	    curl_lib->url_set(u, CURLUPART_URL, base, 0) ||
	    curl_lib->url_set(u, CURLUPART_URL, rel, 0)) {
		snprintf(why, whylen, "endpoint event: bad URL '%.100s'", rel);
		goto out_free;
	}
	if (curl_lib->url_get(b, CURLUPART_HOST, &bhost, 0) ||
	    curl_lib->url_get(b, CURLUPART_PORT, &bport, CURLU_DEFAULT_PORT) ||
	    curl_lib->url_get(u, CURLUPART_HOST, &host, 0) ||
	    curl_lib->url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) ||
	    strcasecmp(bhost, host) || strcmp(bport, port)) {
		snprintf(why, whylen, "endpoint event: '%.100s' is not on the server's origin",
			 rel);
		goto out_free;
	}
	if (curl_lib->url_get(u, CURLUPART_URL, &out, 0))
		out = NULL;
out_free:
	curl_lib->free(bhost);
	curl_lib->free(bport);
	curl_lib->free(host);
	curl_lib->free(port);
	curl_lib->url_cleanup(u);
	curl_lib->url_cleanup(b);
	return out;
}

static int on_event(void *ctx, const struct sse_event *ev)
{
	struct transport *t = ctx;
	char why[SSE_WHY_MAX];
	struct err e = {0};
	char *url, *copy;

	if (!strcmp(ev->type, "endpoint")) {
		url = resolve_endpoint(t->sc->url, ev->data, why, sizeof(why));
		if (!url) {
			set_ended(t, why);
			return -EPROTO;
		}
		copy = strdup(url);
		curl_lib->free(url);
		if (!copy) {
			set_ended(t, "endpoint event: out of memory");
			return -ENOMEM;
		}
		pthread_mutex_lock(&t->cancel.lock);
		free(t->endpoint);
		t->endpoint = copy;
		pthread_cond_broadcast(&t->cancel.cond);
		pthread_mutex_unlock(&t->cancel.lock);
		return 0;
	}
	if (strcmp(ev->type, "message") || !ev->data_len)
		return 0;
	if (tcurl_deliver(&t->sink, ev->data, ev->data_len, NULL, NULL, &e)) {
		snprintf(why, sizeof(why), "SSE stream: %.400s", e.text);
		set_ended(t, why);
		return -EPROTO;
	}
	return 0;
}

static size_t on_get_data(char *p, size_t size, size_t n, void *ctx)
{
	struct transport *t = ctx;
	char why[SSE_WHY_MAX];
	char *type = NULL;
	int rc;

	/* Look at the answer once, before parsing anything of it. */
	if (!t->checked) {
		t->checked = true;
		curl_lib->easy_getinfo(t->get, CURLINFO_RESPONSE_CODE, &t->status);
		curl_lib->easy_getinfo(t->get, CURLINFO_CONTENT_TYPE, &type);
		if (t->status != 200 || !type || strncasecmp(type, "text/event-stream", 17))
			return 0;
	}
	rc = sse_parser_feed(&t->parser, p, size * n, on_event, t);
	if (rc == -E2BIG || rc == -ENOMEM) {
		snprintf(why, sizeof(why), "SSE stream: an event is larger than %u bytes",
			 TRANSPORT_MAX_MESSAGE);
		set_ended(t, why);
	}
	return rc ? 0 : size * n;
}

static void *get_thread(void *arg)
{
	struct transport *t = arg;
	char why[SSE_WHY_MAX];
	char *type = NULL;
	bool opened;
	CURLcode rc;

	curl_lib->easy_setopt(t->get, CURLOPT_HTTPHEADER, t->get_headers);
	curl_lib->easy_setopt(t->get, CURLOPT_WRITEFUNCTION, on_get_data);
	curl_lib->easy_setopt(t->get, CURLOPT_WRITEDATA, t);
	rc = tcurl_perform(&t->cancel, t->get);
	/* An answer without a body never reached on_get_data. */
	if (!t->checked)
		curl_lib->easy_getinfo(t->get, CURLINFO_RESPONSE_CODE, &t->status);
	curl_lib->easy_getinfo(t->get, CURLINFO_CONTENT_TYPE, &type);
	if (t->status && t->status != 200)
		snprintf(why, sizeof(why), "GET %s: HTTP %ld", t->sc->url, t->status);
	else if (t->status && (!type || strncasecmp(type, "text/event-stream", 17)))
		snprintf(why, sizeof(why), "GET %s: not an event stream (%s)", t->sc->url,
			 type ? type : "no Content-Type");
	else if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR)
		snprintf(why, sizeof(why), "GET %s: %s", t->sc->url, curl_lib->easy_strerror(rc));
	else
		snprintf(why, sizeof(why), "GET %s: the server ended the SSE stream", t->sc->url);
	set_ended(t, why);
	pthread_mutex_lock(&t->cancel.lock);
	opened = t->endpoint && !t->cancel.closing;
	snprintf(why, sizeof(why), "%s", t->why);
	pthread_mutex_unlock(&t->cancel.lock);
	/* Before the endpoint arrives, open() reports the failure itself. */
	if (opened) {
		server_log_printf(t->log, "%s", why);
		t->sink.on_closed(t->sink.ctx, why);
	}
	return NULL;
}

static void sse_free(struct transport *t)
{
	curl_lib->easy_cleanup(t->get);
	curl_lib->slist_free_all(t->get_headers);
	sse_parser_free(&t->parser);
	tcurl_cancel_destroy(&t->cancel);
	free(t->endpoint);
	server_log_close(t->log);
	free(t);
}

/* Wait for the endpoint event or the end of the stream, at most @s seconds. */
static int wait_endpoint(struct transport *t, double s, struct err *err)
{
	struct timespec until;
	int rc = 0;

	tcurl_deadline(&until, s);
	pthread_mutex_lock(&t->cancel.lock);
	while (!t->endpoint && !t->ended && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&t->cancel.cond, &t->cancel.lock, &until);
	if (t->endpoint)
		rc = 0;
	else if (t->ended)
		rc = err_set(err, EXIT_UNREACHABLE, "%s", t->why);
	else
		rc = err_set(err, EXIT_UNREACHABLE, "GET %s: no endpoint event within %.0f s",
			     t->sc->url, s);
	pthread_mutex_unlock(&t->cancel.lock);
	return rc;
}

static struct transport *sse_open(const struct server_config *sc, const struct transport_sink *sink,
				  const char *log_path, struct err *err)
{
	double connect_s =
	    sc->connect_timeout_s > 0 ? sc->connect_timeout_s : TCURL_CONNECT_TIMEOUT_S;
	struct transport *t;
	bool oom;

	if (!sc->url) {
		err_set(err, EXIT_USAGE, "server '%s': no url", sc->name);
		return NULL;
	}
	if (!curl_lib_load(err))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
		return NULL;
	}
	t->sc = sc;
	t->sink = *sink;
	tcurl_cancel_init(&t->cancel);
	sse_parser_init(&t->parser, TRANSPORT_MAX_MESSAGE);
	t->log = log_path ? server_log_open(log_path) : NULL;
	t->get_headers = tcurl_config_headers(sc, &oom);
	if (!oom)
		t->get_headers = tcurl_header(t->get_headers, "Accept", "text/event-stream");
	t->get = tcurl_easy_new(sc, sc->url);
	if (!t->get_headers || !t->get) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
		goto out_free;
	}
	if (pthread_create(&t->thread, NULL, get_thread, t)) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': pthread_create failed", sc->name);
		goto out_free;
	}
	if (wait_endpoint(t, connect_s, err)) {
		tcurl_cancel_fire(&t->cancel);
		pthread_join(t->thread, NULL);
		goto out_free;
	}
	return t;
out_free:
	sse_free(t);
	return NULL;
}

static size_t on_post_data(char *p, size_t size, size_t n, void *ctx)
{
	struct buf *body = ctx;

	/* Only the start of an error body is kept, for the message. */
	buf_append(body, p, size * n);
	return size * n;
}

static int sse_send(struct transport *t, json_t *msg, struct err *err)
{
	double call_s = t->sc->timeout_s > 0 ? t->sc->timeout_s : TCURL_CALL_TIMEOUT_S;
	struct curl_slist *headers;
	char *text = NULL, *url = NULL;
	struct buf body;
	long status = 0;
	int ret = -EIO;
	CURLcode rc;
	CURL *e = NULL;
	bool oom;

	buf_init(&body, SSE_POST_BODY_MAX);
	pthread_mutex_lock(&t->cancel.lock);
	if (t->ended)
		err_set(err, EXIT_UNREACHABLE, "%s", t->why);
	else if (!(url = strdup(t->endpoint)))
		err_set(err, EXIT_UNREACHABLE, "out of memory");
	pthread_mutex_unlock(&t->cancel.lock);
	if (!url)
		return t->ended ? -EPIPE : -ENOMEM;
	headers = tcurl_config_headers(t->sc, &oom);
	if (!oom)
		headers = tcurl_header(headers, "Content-Type", "application/json");
	if (headers)
		headers = tcurl_header(headers, "Expect", "");
	text = json_dumps(msg, JSON_COMPACT);
	e = tcurl_easy_new(t->sc, url);
	if (!headers || !text || !e) {
		err_set(err, EXIT_UNREACHABLE, "POST %s: out of memory", url);
		ret = -ENOMEM;
		goto out_free;
	}
	curl_lib->easy_setopt(e, CURLOPT_HTTPHEADER, headers);
	curl_lib->easy_setopt(e, CURLOPT_POSTFIELDS, text);
	curl_lib->easy_setopt(e, CURLOPT_WRITEFUNCTION, on_post_data);
	curl_lib->easy_setopt(e, CURLOPT_WRITEDATA, &body);
	curl_lib->easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(call_s * 1000));
	rc = tcurl_perform(&t->cancel, e);
	curl_lib->easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK) {
		err_set(err, EXIT_UNREACHABLE, "POST %s: %s", url, curl_lib->easy_strerror(rc));
		goto out_free;
	}
	if (status < 200 || status > 299) {
		err_set(err, EXIT_UNREACHABLE, "POST %s: HTTP %ld: %.200s", url, status,
			body.data ? body.data : "");
		goto out_free;
	}
	ret = 0;
out_free:
	curl_lib->easy_cleanup(e);
	curl_lib->slist_free_all(headers);
	free(text);
	free(url);
	buf_free(&body);
	return ret;
}

static void sse_ready(struct transport *t, const char *protocol_version)
{
	/* Legacy servers speak one version and take no header for it. */
	(void)t;
	(void)protocol_version;
}

static void sse_close(struct transport *t)
{
	if (!t)
		return;
	tcurl_cancel_fire(&t->cancel);
	pthread_join(t->thread, NULL);
	sse_free(t);
}

const struct transport_ops transport_sse_ops = {
    .name = "sse",
    .open = sse_open,
    .send = sse_send,
    .ready = sse_ready,
    .close = sse_close,
};
