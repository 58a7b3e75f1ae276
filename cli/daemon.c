/* The CLI's side of a running daemon's control socket (serve/control.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../common/buf.h"
#include "../common/fsx.h"
#include "../serve/control.h"
#include "cli.h"

#define REPLY_MAX (64u << 20)

int cli_daemon_connect(struct cli *cli)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *root, *off = getenv("MCPFS_NO_DAEMON");
	int fd, n;

	if (off && *off && strcmp(off, "0"))
		return -1;
	/* Quietly: without a data root the command reports it itself. */
	if (cli->root[0])
		root = cli->root;
	else if (!(root = cli_root(cli)))
		return -1;
	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/" CONTROL_SOCKET, root);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

json_t *cli_daemon_request(int fd, const char *method, json_t *params, struct err *err)
{
	json_t *msg = json_pack("{s:s,s:i,s:s,s:o}", "jsonrpc", "2.0", "id", 1, "method", method,
				"params", params);
	char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL, chunk[65536];
	json_t *reply, *res = NULL, *e;
	struct buf b;
	ssize_t r;
	size_t len;

	json_decref(msg);
	if (!text) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	len = strlen(text);
	text[len] = '\n';
	r = fsx_write_all(fd, text, len + 1);
	free(text);
	if (r < 0) {
		err_set(err, EXIT_FAILED, "daemon: write: %s", strerror((int)-r));
		return NULL;
	}
	buf_init(&b, REPLY_MAX);
	while (!(b.data && memchr(b.data, '\n', b.len))) {
		r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || buf_append(&b, chunk, (size_t)r) < 0) {
			buf_free(&b);
			err_set(err, EXIT_FAILED, "the daemon went away before it answered");
			return NULL;
		}
	}
	reply = json_loadb(b.data, b.len, 0, NULL);
	buf_free(&b);
	e = json_object_get(reply, "error");
	if (e)
		err_set(
		    err,
		    (int)json_integer_value(json_object_get(json_object_get(e, "data"), "status"))
			?: EXIT_FAILED,
		    "%s", json_string_value(json_object_get(e, "message")) ?: "failed");
	else if (!(res = json_incref(json_object_get(reply, "result"))))
		err_set(err, EXIT_FAILED, "the daemon's answer is not JSON-RPC");
	json_decref(reply);
	return res;
}
