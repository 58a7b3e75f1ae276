/* The loopback redirect of a native app (RFC 8252 section 7.3): a listener
 * on 127.0.0.1 on a free port that takes the browser's one redirect to
 * /callback and answers it with a short page. */
#ifndef MCPFS_SERVERS_OAUTH_LOOPBACK_H
#define MCPFS_SERVERS_OAUTH_LOOPBACK_H

#include "../common/err.h"

/* Listen on 127.0.0.1, port chosen by the kernel. Returns the socket (*@port
 * set), or -1 with @err. */
int oauth_loopback_open(int *port, struct err *err);

/* Wait up to @timeout_s for GET /callback. Other paths get 404 and the wait
 * goes on. A redirect whose state is not @state, or that carries an OAuth
 * error, fails with @err. Returns 0 with *@code new, or -1. Closes nothing. */
int oauth_loopback_wait(int fd, const char *state, double timeout_s, char **code, struct err *err);

#endif
