#define _GNU_SOURCE
#include "oauth_loopback.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../common/fsx.h"

#define REQUEST_MAX 8192
#define REQUEST_READ_S 10.0

int oauth_loopback_open(int *port, struct err *err)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd, e;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 8) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		e = errno;
		if (fd >= 0)
			close(fd);
		return err_set(err, EXIT_FAILED, "listen on 127.0.0.1: %s", strerror(e));
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/* Read the request head (up to the blank line) within REQUEST_READ_S. */
static int read_head(int c, char *buf, size_t n)
{
	double until = clock_now_s() + REQUEST_READ_S;
	struct pollfd p = {.fd = c, .events = POLLIN};
	size_t got = 0;
	ssize_t r;

	while (got < n - 1 && !strstr(buf, "\r\n\r\n")) {
		if (poll(&p, 1, 200) < 0 && errno != EINTR)
			return -1;
		if (clock_now_s() > until)
			return -1;
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		r = read(c, buf + got, n - 1 - got);
		if (r <= 0)
			return r == 0 && got ? 0 : -1;
		got += (size_t)r;
		buf[got] = '\0';
	}
	return 0;
}

static void reply(int c, int status, const char *text)
{
	char out[1024];
	int n;

	n = snprintf(
	    out, sizeof(out),
	    "HTTP/1.1 %d %s\r\nContent-Type: text/html; charset=utf-8\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n%s",
	    status,
	    status == 200   ? "OK"
	    : status == 404 ? "Not Found"
			    : "Bad Request",
	    strlen(text), text);
	if (n > 0)
		fsx_write_all(c, out, (size_t)n < sizeof(out) ? (size_t)n : sizeof(out) - 1);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The decoded value of @name in the query @q (ends at space), new, or NULL. */
static char *param(const char *q, const char *name)
{
	size_t nl = strlen(name), i, o;
	const char *p = q, *v;
	char *out;

	while (*p && *p != ' ') {
		if (!strncmp(p, name, nl) && p[nl] == '=') {
			v = p + nl + 1;
			out = malloc(strcspn(v, "& ") + 1);
			if (!out)
				return NULL;
			for (i = 0, o = 0; v[i] && v[i] != '&' && v[i] != ' '; i++) {
				if (v[i] == '%' && hexval(v[i + 1]) >= 0 && hexval(v[i + 2]) >= 0) {
					out[o++] = (char)(hexval(v[i + 1]) * 16 + hexval(v[i + 2]));
					i += 2;
				} else {
					out[o++] = v[i] == '+' ? ' ' : v[i];
				}
			}
			out[o] = '\0';
			return out;
		}
		p += strcspn(p, "& ");
		if (*p == '&')
			p++;
	}
	return NULL;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* One connection: 1 handled (code or error in @err), 0 not the callback. */
static int handle(int c, const struct oauth_redirect_want *want, char **code, struct err *err)
{
	char req[REQUEST_MAX] = "", *got_state = NULL, *got_code = NULL, *error = NULL, *iss = NULL,
	     *desc = NULL;
	const char *q;
	int rc = 1;

	if (read_head(c, req, sizeof(req)) || strncmp(req, "GET /callback", 13) ||
	    (req[13] != '?' && req[13] != ' ')) {
		reply(c, 404, "Not found.");
		return 0;
	}
	q = req + 14;
	got_state = param(q, "state");
	got_code = param(q, "code");
	error = param(q, "error");
	desc = param(q, "error_description");
	iss = param(q, "iss");
	if (!got_state || strcmp(got_state, want->state)) {
		reply(c, 400, "This login did not come from this mcpfs login (state mismatch).");
		err_set(err, EXIT_FAILED,
			"the redirect's state does not match this login: "
			"refused (start the login again)");
	} else if (iss ? strcmp(iss, want->issuer) != 0 : want->iss_required) {
		reply(c, 400, "The redirect came from another authorization server.");
		err_set(err, EXIT_FAILED,
			"the redirect names issuer %.150s, not %.150s: refused (start the login "
			"again)",
			iss && printable(iss) ? iss : "(none)", want->issuer);
	} else if (error) {
		reply(c, 400, "The authorization server refused the login.");
		err_set(err, EXIT_FAILED, "the authorization server refused: %.60s%s%.200s",
			printable(error) ? error : "?", desc && printable(desc) ? ": " : "",
			desc && printable(desc) ? desc : "");
	} else if (!got_code || !*got_code) {
		reply(c, 400, "No authorization code.");
		err_set(err, EXIT_FAILED, "the redirect carries no authorization code");
	} else {
		reply(c, 200, "Logged in: you may close this window and return to mcpfs.");
		*code = got_code;
		got_code = NULL;
	}
	free(got_state);
	free(got_code);
	free(iss);
	free(error);
	free(desc);
	return rc;
}

int oauth_loopback_wait(int fd, const struct oauth_redirect_want *want, double timeout_s,
			char **code, struct err *err)
{
	double until = clock_now_s() + timeout_s;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int c, rc;

	*code = NULL;
	for (;;) {
		if (clock_now_s() > until)
			return err_set(err, EXIT_FAILED,
				       "no redirect from the browser within %.0f s", timeout_s);
		if (poll(&p, 1, 500) <= 0 || !(p.revents & POLLIN))
			continue;
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		rc = handle(c, want, code, err);
		close(c);
		if (rc)
			return *code ? 0 : -1;
	}
}
