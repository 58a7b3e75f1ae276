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

/* True when @sc is configured for the client_credentials grant. */
bool oauth_is_client_credentials(const struct server_config *sc);

/* Complete @tok (a token from oauth_token_request) with what a refresh
 * needs later: @m's token endpoint, issuer and resource. 0 or -ENOMEM. */
int oauth_token_finish(json_t *tok, const struct oauth_meta *m);

/* The challenge recorded in @state (borrowed) into @out (owned copies). */
int oauth_challenge_from_state(const json_t *state, struct oauth_challenge *out);

/* The client_credentials grant (RFC 6749 section 4.4) for @sc, with @ch the
 * server's challenge: discover, authenticate with the configured secret or
 * key, put "token" and "client" into @state (borrowed). 0 or -1 with @err. */
int oauth_client_credentials(const struct server_config *sc, json_t *state,
			     const struct oauth_challenge *ch, struct err *err);

#endif
