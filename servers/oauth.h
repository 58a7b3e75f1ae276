/* OAuth for remote MCP servers, client side (MCP authorization 2025-11-25):
 * what the HTTP transport asks before each request and after a 401 or 403,
 * and the interactive login behind `mcpfs login`. State lives in the store
 * (oauth_store.h); nothing here keeps tokens in memory between calls, so
 * every process sharing a data root sees one current token, and a refresh
 * happens under the store's lock exactly once.
 *
 * Tokens never appear in an error text, a log line or anything printed. */
#ifndef MCPFS_SERVERS_OAUTH_H
#define MCPFS_SERVERS_OAUTH_H

#include <stdio.h>

#include "../common/err.h"
#include "config.h"

/* Give the instance config @sc of a remote server its store under @root
 * (for @customer; NULL: shared): sets sc->token_file and sc->customer.
 * Any but a Streamable HTTP server is left alone. 0 or -1 with @err. */
int oauth_instance_setup(struct server_config *sc, const char *root, const char *customer,
			 struct err *err);

/* The Authorization value for the next request to @sc ("Bearer ..."), new,
 * or NULL when there is no token (or @sc has no store). A token about to
 * expire is refreshed first (or, for client_credentials, fetched anew). */
char *oauth_authorization(const struct server_config *sc);

/* After @status (401 or 403) with @www_authenticate (may be NULL) to a
 * request that carried @sent (the Authorization value, or NULL). Returns 1
 * when a new token is in place and the request should go again (once);
 * 0 when it is not an OAuth matter (a 403 without insufficient_scope); -1
 * with @err one line saying what to do (`mcpfs login NAME`) or what failed. */
int oauth_challenged(const struct server_config *sc, long status, const char *www_authenticate,
		     const char *sent, struct err *err);

/* "server 'NAME' needs login: run `mcpfs login NAME [--customer C]`" into @err. */
int oauth_login_needed(const struct server_config *sc, const char *why, struct err *err);

struct oauth_login_opts {
	double timeout_s;    /* for the browser's redirect; OAuth requests use sc's timeout */
	const char *browser; /* command to open the URL with ($BROWSER); NULL: xdg-open when
				there is a display, else none */
	FILE *out;	     /* where the URL and the outcome are printed */
};

/* The authorization code flow with PKCE for @sc (which has a token_file):
 * discover, register, print the URL (and open a browser), take the redirect
 * on a loopback listener, exchange the code, store the tokens. For a server
 * configured with "grant": "client_credentials", fetch a token instead.
 * Nothing is stored unless it all succeeds. Returns 0 or -1 with @err. */
int oauth_login(const struct server_config *sc, const struct oauth_login_opts *o, struct err *err);

/* Forget @sc's tokens and registration. Returns 1 when there was a login,
 * 0 when there was none, -1 with @err. */
int oauth_logout(const struct server_config *sc, struct err *err);

#endif
