#include "front_stdio.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/buf.h"
#include "../common/clock.h"
#include "../common/fsx.h"
#include "engine.h"
#include "mcp.h"
#include "sched.h"

/* The longest message: 1 MiB of code, escaped, with room to spare. */
#define LINE_MAX_BYTES (16u << 20)

struct out {
	int fd;
	bool broken; /* the client stopped reading: nothing more is written */
};

static void send_line(void *ctx, json_t *msg, const json_t *rel)
{
	struct out *o = ctx;
	char *text;
	size_t len;

	(void)rel;
	if (o->broken)
		return;
	text = json_dumps(msg, JSON_COMPACT);
	if (!text)
		return;
	len = strlen(text);
	text[len] = '\n'; /* the terminator becomes the line's end */
	if (fsx_write_all(o->fd, text, len + 1) < 0)
		o->broken = true;
	free(text);
}

/* Hand each complete line in @b to the connection; keep the rest. */
static void lines(struct mcp_conn *c, struct buf *b, bool *skipping)
{
	char *start = b->data, *nl;
	size_t left = b->len;

	while ((nl = memchr(start, '\n', left))) {
		size_t len = (size_t)(nl - start);

		if (!*skipping && len && !(len == 1 && start[0] == '\r'))
			mcp_conn_handle_text(c, start, len);
		*skipping = false;
		left -= len + 1;
		start = nl + 1;
	}
	memmove(b->data, start, left);
	b->len = left;
	b->data[left] = '\0';
}

/* Wait until no call is in flight, at most @drain_s. */
static void drain(struct mcp_conn *c, double drain_s)
{
	double until = clock_now_s() + drain_s;

	while (mcp_conn_busy(c) && clock_now_s() < until)
		poll(NULL, 0, 20);
}

int serve_stdio(struct serve_engine *e, const char *customer, int in_fd, int out_fd, int stop_fd,
		double drain_s, struct err *err)
{
	struct out o = {.fd = out_fd};
	struct mcp_conn_ops ops = {.send = send_line, .ctx = &o};
	struct mcp_conn *c = mcp_conn_new(e, customer, NULL, &ops, err);
	struct pollfd p[2] = {{.fd = in_fd, .events = POLLIN}, {.fd = stop_fd, .events = POLLIN}};
	char chunk[65536];
	bool skipping = false, stopped = false;
	struct buf b;
	ssize_t r;

	if (!c)
		return -1;
	buf_init(&b, LINE_MAX_BYTES);
	for (;;) {
		if (poll(p, stop_fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (stop_fd >= 0 && p[1].revents) {
			stopped = true;
			break;
		}
		if (!p[0].revents)
			continue;
		r = read(in_fd, chunk, sizeof(chunk));
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			break;
		if (buf_append(&b, chunk, (size_t)r) < 0) {
			/* One message past the ceiling: answer it and skip to its end. */
			json_t *msg =
			    json_pack("{s:s,s:n,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", "error",
				      "code", -32700, "message", "message longer than 16 MiB");

			send_line(&o, msg, NULL);
			json_decref(msg);
			buf_reset(&b);
			skipping = true;
			continue;
		}
		lines(c, &b, &skipping);
	}
	/* The input ended (the host closed it) or a stop: let what runs end. */
	if (stopped)
		sched_close(e->sched);
	drain(c, stopped ? drain_s : 0);
	mcp_conn_free(c);
	buf_free(&b);
	return 0;
}
