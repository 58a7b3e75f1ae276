#include "transport_curl_i.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "json_salvage.h"

/* One running transfer, linked into its transport's cancel list for as long
 * as it runs, so close() can wake its multi handle. */
struct tcurl_xfer {
	CURLM *multi;
	struct tcurl_xfer *next;
};

void tcurl_cancel_init(struct tcurl_cancel *c)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	c->closing = false;
	c->xfers = NULL;
}

void tcurl_cancel_destroy(struct tcurl_cancel *c)
{
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
}

void tcurl_cancel_fire(struct tcurl_cancel *c)
{
	struct tcurl_xfer *x;

	pthread_mutex_lock(&c->lock);
	c->closing = true;
	for (x = c->xfers; x; x = x->next)
		curl_lib->multi_wakeup(x->multi);
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

bool tcurl_cancelled(struct tcurl_cancel *c)
{
	bool closing;

	pthread_mutex_lock(&c->lock);
	closing = c->closing;
	pthread_mutex_unlock(&c->lock);
	return closing;
}

void tcurl_deadline(struct timespec *ts, double s)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)s;
	ts->tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

bool tcurl_sleep(struct tcurl_cancel *c, long ms)
{
	struct timespec until;
	bool closing;

	tcurl_deadline(&until, (double)ms / 1000.0);
	pthread_mutex_lock(&c->lock);
	while (!c->closing && pthread_cond_timedwait(&c->cond, &c->lock, &until) != ETIMEDOUT)
		;
	closing = c->closing;
	pthread_mutex_unlock(&c->lock);
	return !closing;
}

static void xfer_unlink(struct tcurl_cancel *c, struct tcurl_xfer *me)
{
	struct tcurl_xfer **pp;

	pthread_mutex_lock(&c->lock);
	for (pp = &c->xfers; *pp; pp = &(*pp)->next) {
		if (*pp == me) {
			*pp = me->next;
			break;
		}
	}
	pthread_mutex_unlock(&c->lock);
}

CURLcode tcurl_perform(struct tcurl_cancel *c, CURL *e)
{
	struct tcurl_xfer me;
	CURLcode rc = CURLE_OK;
	CURLMsg *m;
	int running = 1, left;

	me.multi = curl_lib->multi_init();
	if (!me.multi)
		return CURLE_OUT_OF_MEMORY;
	if (curl_lib->multi_add_handle(me.multi, e) != CURLM_OK) {
		curl_lib->multi_cleanup(me.multi);
		return CURLE_OUT_OF_MEMORY;
	}
	pthread_mutex_lock(&c->lock);
	me.next = c->xfers;
	c->xfers = &me;
	pthread_mutex_unlock(&c->lock);
	while (running) {
		if (tcurl_cancelled(c)) {
			rc = CURLE_ABORTED_BY_CALLBACK;
			goto out_unlink;
		}
		if (curl_lib->multi_perform(me.multi, &running) != CURLM_OK) {
			rc = CURLE_OUT_OF_MEMORY;
			goto out_unlink;
		}
		if (running && curl_lib->multi_poll(me.multi, NULL, 0, 1000, NULL) != CURLM_OK) {
			rc = CURLE_OUT_OF_MEMORY;
			goto out_unlink;
		}
	}
	while ((m = curl_lib->multi_info_read(me.multi, &left)))
		if (m->msg == CURLMSG_DONE && m->easy_handle == e)
			rc = m->data.result;
out_unlink:
	xfer_unlink(c, &me);
	curl_lib->multi_remove_handle(me.multi, e);
	curl_lib->multi_cleanup(me.multi);
	return rc;
}

CURL *tcurl_easy_new(const struct server_config *sc, const char *url)
{
	double connect_s =
	    sc->connect_timeout_s > 0 ? sc->connect_timeout_s : TCURL_CONNECT_TIMEOUT_S;
	CURL *e = curl_lib->easy_init();

	if (!e)
		return NULL;
	if (curl_lib->easy_setopt(e, CURLOPT_URL, url) != CURLE_OK) {
		curl_lib->easy_cleanup(e);
		return NULL;
	}
	curl_lib->easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_lib->easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)(connect_s * 1000));
	curl_lib->easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_lib->easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_lib->easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	return e;
}

struct curl_slist *tcurl_header(struct curl_slist *l, const char *name, const char *value)
{
	struct curl_slist *n;
	char line[1024];

	if ((size_t)snprintf(line, sizeof(line), "%s: %s", name, value) >= sizeof(line)) {
		curl_lib->slist_free_all(l);
		return NULL;
	}
	n = curl_lib->slist_append(l, line);
	if (!n)
		curl_lib->slist_free_all(l);
	return n;
}

struct curl_slist *tcurl_config_headers(const struct server_config *sc, bool *oom)
{
	struct curl_slist *l = NULL, *n;
	size_t i;

	*oom = false;
	for (i = 0; i < sc->nheaders; i++) {
		n = curl_lib->slist_append(l, sc->headers[i]);
		if (!n) {
			curl_lib->slist_free_all(l);
			*oom = true;
			return NULL;
		}
		l = n;
	}
	return l;
}

bool tcurl_is_response_to(const json_t *msg, const json_t *want_id)
{
	const json_t *id;

	if (!want_id || !json_is_object(msg) || json_object_get(msg, "method"))
		return false;
	id = json_object_get(msg, "id");
	return id && json_equal(id, want_id);
}

static int check_message(const json_t *m, struct err *err)
{
	const json_t *v = json_is_object(m) ? json_object_get(m, "jsonrpc") : NULL;

	if (json_is_string(v) && !strcmp(json_string_value(v), "2.0"))
		return 0;
	err_set(err, EXIT_UNREACHABLE, "not a JSON-RPC 2.0 message");
	return -EPROTO;
}

int tcurl_deliver(const struct transport_sink *sink, const char *text, size_t len,
		  const json_t *want_id, bool *got, struct err *err)
{
	json_error_t je;
	json_t *root, *m; /* new */
	size_t i;

	root = json_salvage_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je, NULL);
	if (!root) {
		err_set(err, EXIT_UNREACHABLE, "malformed JSON at line %d column %d: %s", je.line,
			je.column, je.text);
		return -EPROTO;
	}
	if (json_is_array(root)) {
		for (i = 0; i < json_array_size(root); i++)
			if (check_message(json_array_get(root, i), err)) {
				json_decref(root);
				return -EPROTO;
			}
		for (i = 0; i < json_array_size(root); i++) {
			m = json_incref(json_array_get(root, i));
			if (got && tcurl_is_response_to(m, want_id))
				*got = true;
			sink->on_message(sink->ctx, m, want_id);
		}
		json_decref(root);
		return 0;
	}
	if (check_message(root, err)) {
		json_decref(root);
		return -EPROTO;
	}
	if (got && tcurl_is_response_to(root, want_id))
		*got = true;
	sink->on_message(sink->ctx, root, want_id);
	return 0;
}
