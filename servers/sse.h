/* An incremental parser for text/event-stream (the WHATWG "server-sent
 * events" format): bytes in, events out. Pure: no I/O, no threads. Input may
 * be split anywhere, even inside a CRLF. Every buffer is capped; input past
 * the cap ends the parse with -E2BIG. */
#ifndef MCPFS_SERVERS_SSE_H
#define MCPFS_SERVERS_SSE_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/buf.h"

/* One dispatched event. Every pointer is borrowed and valid only during the
 * callback. */
struct sse_event {
	const char *type; /* the "event:" field, "message" when absent */
	const char *data; /* the "data:" lines joined by LF, no trailing LF */
	size_t data_len;
	const char *id; /* the last event id seen on the stream so far, "" if none */
};

/* Return 0 to go on, anything else to stop: sse_parser_feed returns it. */
typedef int (*sse_event_fn)(void *ctx, const struct sse_event *ev);

struct sse_parser {
	struct buf line; /* the line being read; owned */
	struct buf data; /* data lines of the event being read; owned */
	struct buf type; /* event type of the event being read; owned */
	struct buf id;	 /* last event id: survives dispatch, as the format says; owned */
	long retry_ms;	 /* the last valid "retry:" value, -1 until one arrives */
	bool has_data;	 /* at least one data line since the last dispatch */
	bool after_cr;	 /* the previous byte ended a line with CR: skip one LF */
	bool started;	 /* past a leading byte order mark, if any */
	bool failed;	 /* a cap was hit; every later feed fails */
};

/* @max caps one line and one event's data (bytes). */
void sse_parser_init(struct sse_parser *p, size_t max);
void sse_parser_free(struct sse_parser *p);

/* Parse @n bytes, calling @fn once per complete event that carried data.
 * Returns 0; -E2BIG past the cap; -ENOMEM; or the first nonzero value @fn
 * returned (the parse stops at that event). */
int sse_parser_feed(struct sse_parser *p, const char *bytes, size_t n, sse_event_fn fn, void *ctx);

/* The last event id seen ("" if none), borrowed; and the last retry (-1). */
const char *sse_parser_last_id(const struct sse_parser *p);
long sse_parser_retry_ms(const struct sse_parser *p);

#endif
