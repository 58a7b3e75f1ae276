/* JSON-RPC 2.0 as MCP uses it: building messages, telling them apart, and the
 * newline-delimited framing of the stdio transport. Pure: no I/O. */
#ifndef MCPFS_SERVERS_JSONRPC_H
#define MCPFS_SERVERS_JSONRPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/buf.h"
#include "../common/err.h"

/* Standard error codes. */
#define JSONRPC_PARSE_ERROR -32700
#define JSONRPC_INVALID_REQUEST -32600
#define JSONRPC_METHOD_NOT_FOUND -32601
#define JSONRPC_INVALID_PARAMS -32602
#define JSONRPC_INTERNAL_ERROR -32603

enum jsonrpc_kind {
	JSONRPC_INVALID,
	JSONRPC_REQUEST,      /* method and id */
	JSONRPC_NOTIFICATION, /* method, no id */
	JSONRPC_RESPONSE,     /* id and exactly one of result, error; no method */
};

/* What @msg is. Requests and responses share no id space: a message with a
 * method is never a response, whatever its id. */
enum jsonrpc_kind jsonrpc_classify(const json_t *msg);

/* New messages; @params and @result are stolen (may be NULL: omitted / {}),
 * @id is borrowed. NULL only on allocation failure. */
json_t *jsonrpc_request_new(json_int_t id, const char *method, json_t *params);
json_t *jsonrpc_notification_new(const char *method, json_t *params);
json_t *jsonrpc_result_new(json_t *id, json_t *result);
json_t *jsonrpc_error_new(json_t *id, int code, const char *message);

/* Append @msg as one compact line ending in "\n" to @out. Returns 0, -ENOMEM,
 * -E2BIG (the buffer's ceiling). */
int jsonrpc_encode_line(const json_t *msg, struct buf *out);

/* Parse one framed message (a line, without its newline). Returns a new
 * object, or a new non-empty array of objects (a batch), each classified as
 * something other than JSONRPC_INVALID; NULL with @err ("line:col: why"). */
json_t *jsonrpc_decode(const char *text, size_t len, struct err *err);

/* Splits a byte stream into lines of at most @max bytes each. */
struct jsonrpc_lines {
	struct buf line; /* the unfinished line */
};

void jsonrpc_lines_init(struct jsonrpc_lines *ls, size_t max);
/* Feed bytes; @on_line gets each complete line (newline and a trailing CR
 * removed, NUL-terminated, empty lines skipped) and returns 0 to go on.
 * Returns 0, -E2BIG when a line passes the ceiling, -ENOMEM, or the first
 * non-zero value @on_line returned. */
int jsonrpc_lines_feed(struct jsonrpc_lines *ls, const char *data, size_t n,
		       int (*on_line)(void *ctx, const char *line, size_t len), void *ctx);
void jsonrpc_lines_free(struct jsonrpc_lines *ls);

#endif
