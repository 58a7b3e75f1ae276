/* libcurl plumbing shared by the Streamable HTTP and the legacy SSE
 * transports (internal to servers/): cancellable transfers, request headers
 * from the config, delivery of JSON-RPC text to a sink. */
#ifndef MCPFS_SERVERS_TRANSPORT_CURL_I_H
#define MCPFS_SERVERS_TRANSPORT_CURL_I_H

#include "curl_lib.h"
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "../common/err.h"
#include "config.h"
#include "transport.h"

/* Default bounds when the config leaves them at 0. */
#define TCURL_CALL_TIMEOUT_S 60.0
#define TCURL_CONNECT_TIMEOUT_S 30.0

struct tcurl_xfer;

/* What close() uses to stop every transfer and sleep of one transport at once. */
struct tcurl_cancel {
	pthread_mutex_t lock;
	pthread_cond_t cond;	  /* signalled when closing is set */
	bool closing;		  /* protected by lock */
	struct tcurl_xfer *xfers; /* transfers running now; protected by lock */
};

void tcurl_cancel_init(struct tcurl_cancel *c);
void tcurl_cancel_destroy(struct tcurl_cancel *c);
/* Set closing and wake every running transfer and sleeper. */
void tcurl_cancel_fire(struct tcurl_cancel *c);
bool tcurl_cancelled(struct tcurl_cancel *c);
/* @ts = now + @s on CLOCK_MONOTONIC, the clock of cond. */
void tcurl_deadline(struct timespec *ts, double s);
/* Sleep @ms unless cancelled first. Returns false when cancelled. */
bool tcurl_sleep(struct tcurl_cancel *c, long ms);

/* Run @e to the end, or until @c fires (CURLE_ABORTED_BY_CALLBACK). */
CURLcode tcurl_perform(struct tcurl_cancel *c, CURL *e);

/* A new easy handle for @url with the settings every request shares: no
 * signals, http(s) only, a connect timeout from @sc. NULL on allocation failure. */
CURL *tcurl_easy_new(const struct server_config *sc, const char *url);

/* A new list holding @sc's configured headers, or NULL with *@oom set on
 * allocation failure (an empty config also gives NULL). */
struct curl_slist *tcurl_config_headers(const struct server_config *sc, bool *oom);
/* Append "@name: @value"; returns the list or NULL (the old list is freed). */
struct curl_slist *tcurl_header(struct curl_slist *l, const char *name, const char *value);

/* Parse @text (one JSON-RPC message or a batch array of them) and hand each
 * to @sink, with @want_id as the request they came for. When @want_id
 * (borrowed, may be NULL) is the id of a response among them, *@got
 * becomes true. Returns 0, or -EPROTO with @err set. */
int tcurl_deliver(const struct transport_sink *sink, const char *text, size_t len,
		  const json_t *want_id, bool *got, struct err *err);

/* True when @msg is a response (no method) whose id equals @want_id. */
bool tcurl_is_response_to(const json_t *msg, const json_t *want_id);

#endif
