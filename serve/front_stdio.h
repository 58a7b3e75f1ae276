/* The stdio front: one MCP connection on a pair of descriptors, one JSON
 * message per line, as MCP hosts start a local server. */
#ifndef MCPFS_SERVE_FRONT_STDIO_H
#define MCPFS_SERVE_FRONT_STDIO_H

#include "../common/err.h"

struct serve_engine;

/* Serve @customer on @in_fd/@out_fd until the input ends or @stop_fd becomes
 * readable (drain: no new message is read; calls in flight get up to
 * @drain_s to finish, then are cancelled). Returns 0, or -1 with @err when
 * the connection could not be set up. */
int serve_stdio(struct serve_engine *e, const char *customer, int in_fd, int out_fd, int stop_fd,
		double drain_s, struct err *err);

#endif
