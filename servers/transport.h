/* Transports carry JSON-RPC messages between the client and one server.
 * Variants (stdio, Streamable HTTP, legacy SSE) sit behind one const table of
 * operations, chosen in one place (client.c), as curl's struct Curl_ssl. */
#ifndef MCPFS_SERVERS_TRANSPORT_H
#define MCPFS_SERVERS_TRANSPORT_H

#include <jansson.h>

#include "../common/err.h"
#include "config.h"

/* A message larger than this ends the connection with a clear error. */
#define TRANSPORT_MAX_MESSAGE (32u << 20)

struct transport;

/* Where a transport delivers what it receives. Calls may come from transport
 * threads or, for HTTP, from the caller's thread inside send(). */
struct transport_sink {
	void *ctx;
	/* One parsed JSON-RPC message: request, notification or response.
	 * The reference is stolen. @rel (borrowed, may be NULL) is the id of
	 * our request whose response stream carried it (a Streamable HTTP
	 * POST): a server request or notification there belongs to that
	 * request. NULL where the transport cannot tell (stdio, GET streams). */
	void (*on_message)(void *ctx, json_t *msg, const json_t *rel);
	/* The connection is gone for good (EOF, crash, protocol fault): one line. */
	void (*on_closed)(void *ctx, const char *why);
};

struct transport_ops {
	const char *name;
	/* Start (spawn the process, or just prepare the HTTP handles). @sc is
	 * borrowed for the transport's life; @log_path (may be NULL) receives the
	 * server's stderr and faults. NULL with @err (EXIT_UNREACHABLE). */
	struct transport *(*open)(const struct server_config *sc, const struct transport_sink *sink,
				  const char *log_path, struct err *err);
	/* Send one message (borrowed). Returns 0; -ESTALE when an HTTP server
	 * lost our session (the client initializes again and resends); other
	 * negative values with @err. */
	int (*send)(struct transport *t, json_t *msg, struct err *err);
	/* After initialize/initialized: the negotiated version (HTTP sends it as
	 * MCP-Protocol-Version) and the moment to open a server-to-client stream. */
	void (*ready)(struct transport *t, const char *protocol_version);
	/* Shut down (stdio: close stdin, SIGTERM, SIGKILL; HTTP: DELETE the
	 * session), join threads, free. No sink call happens after it returns. */
	void (*close)(struct transport *t);
};

extern const struct transport_ops transport_stdio_ops;
extern const struct transport_ops transport_http_ops; /* falls back to legacy SSE */
extern const struct transport_ops transport_sse_ops;

#endif
