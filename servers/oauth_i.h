/* Shared by oauth.c (tokens for requests) and oauth_login.c (the login
 * flow); internal to servers/. */
#ifndef MCPFS_SERVERS_OAUTH_I_H
#define MCPFS_SERVERS_OAUTH_I_H

#include <jansson.h>
#include <stdbool.h>

#include "../common/err.h"
#include "config.h"
#include "oauth_challenge.h"
#include "oauth_discover.h"

/* OAuth requests get the server's call timeout (30 s when unset). */
double oauth_timeout(const struct server_config *sc);

/* True when @sc is configured for a grant that needs no browser:
 * "client_credentials", or "id-jag" (enterprise-managed authorization). */
bool oauth_is_headless(const struct server_config *sc);

/* Complete @tok (a token from oauth_token_request) with what a refresh
 * needs later: @m's token endpoint, issuer and resource. 0 or -ENOMEM. */
int oauth_token_finish(json_t *tok, const struct oauth_meta *m);

/* The challenge recorded in @state (borrowed) into @out (owned copies). */
int oauth_challenge_from_state(const json_t *state, struct oauth_challenge *out);

/* A token without a browser for @sc, with @ch the server's challenge:
 * discover, then the client_credentials grant (RFC 6749 section 4.4) with
 * the configured secret or key, or for "id-jag" a token exchange at the
 * identity provider (RFC 8693) for an identity assertion that a JWT bearer
 * grant (RFC 7523) turns into the token. Puts "token" and "client" into
 * @state (borrowed). 0 or -1 with @err. */
int oauth_headless_token(const struct server_config *sc, json_t *state,
			 const struct oauth_challenge *ch, struct err *err);

#endif
