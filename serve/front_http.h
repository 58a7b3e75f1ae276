/* The Streamable HTTP front on libmicrohttpd (a thread per connection, so a
 * response stream may wait for its messages): POST/GET/DELETE /mcp with
 * Mcp-Session-Id sessions, JSON or SSE answers, the GET stream for messages
 * of no request (list_changed), MCP-Protocol-Version checked; GET /healthz;
 * GET /metrics (Prometheus text). Every /mcp request carries a bearer token
 * that decides the customer (serve/tokens.h); only a loopback bind with no
 * token configured serves without one, as the --customer given. */
#ifndef MCPFS_SERVE_FRONT_HTTP_H
#define MCPFS_SERVE_FRONT_HTTP_H

#include <stdbool.h>

#include "../common/err.h"

struct serve_engine;
struct front_http;

struct front_http_opts {
	const char *listen;    /* HOST:PORT; [::1]:PORT for IPv6; PORT 0 picks one */
	const char *root;      /* the data root (tokens); borrowed */
	const char *customer;  /* without tokens, on loopback: whose everything */
	double session_idle_s; /* a session unused this long is ended; 0: 3600 */
};

/* Bind and serve in threads of libmicrohttpd's. The URL served (with the
 * port chosen) goes to @url (at least 128 bytes). Refuses a bind to anything
 * but loopback when no token exists. NULL with @err. */
struct front_http *front_http_start(struct serve_engine *e, const struct front_http_opts *o,
				    char *url, struct err *err);

/* Drain: stop accepting connections, let calls in flight run up to
 * @drain_s, cancel the rest, end every session and stop. Accepts NULL. */
void front_http_stop(struct front_http *h, double drain_s);

#endif
