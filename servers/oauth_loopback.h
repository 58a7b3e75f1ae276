/* The loopback redirect of a native app (RFC 8252 section 7.3): a listener
 * on 127.0.0.1 on a free port that takes the browser's one redirect to
 * /callback and answers it with a short page. */
#ifndef MCPFS_SERVERS_OAUTH_LOOPBACK_H
#define MCPFS_SERVERS_OAUTH_LOOPBACK_H

#include <stdbool.h>

#include "../common/err.h"

/* Listen on 127.0.0.1, port chosen by the kernel. Returns the socket (*@port
 * set), or -1 with @err. */
int oauth_loopback_open(int *port, struct err *err);

struct oauth_redirect_want {
	const char *state;  /* the state the authorization request carried */
	const char *issuer; /* the authorization server: an "iss" must be it (RFC 9207) */
	bool iss_required;  /* it said it sends "iss" */
};

/* Wait up to @timeout_s for GET /callback. Other paths get 404 and the wait
 * goes on. A redirect that is not what @want says (another state, another
 * issuer), or that carries an OAuth error, fails with @err. Returns 0 with
 * *@code new, or -1. Closes nothing. */
int oauth_loopback_wait(int fd, const struct oauth_redirect_want *want, double timeout_s,
			char **code, struct err *err);

#endif
