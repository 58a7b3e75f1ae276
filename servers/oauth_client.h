/* Who we are to an authorization server, and the requests made as that
 * client. Registration follows the spec's order (2025-11-25, "Client
 * Registration Approaches"): a client pre-registered in the config; a client
 * ID metadata document where the server supports one and the config names
 * it; a client registered earlier with this issuer; dynamic registration
 * (RFC 7591); else a message saying what to configure. */
#ifndef MCPFS_SERVERS_OAUTH_CLIENT_H
#define MCPFS_SERVERS_OAUTH_CLIENT_H

#include <jansson.h>

#include "../common/err.h"
#include "config.h"
#include "oauth_discover.h"

struct oauth_client {
	char *client_id;
	char *client_secret;   /* NULL for public clients */
	char *auth_method;     /* none, client_secret_basic, client_secret_post, private_key_jwt */
	char *private_key_pem; /* private_key_jwt: the key (from the config's file) */
	char *signing_alg;     /* private_key_jwt: ES256 unless configured */
	const char *source;    /* static: "config", "metadata document", "registered" */
};

/* The value of @key in @sc's "oauth" config object, or NULL. Borrowed. */
const char *oauth_config_get(const struct server_config *sc, const char *key);

/* The client for @m's authorization server. @stored (borrowed, may be NULL)
 * is the store's "client" object: reused when it was registered with the
 * same issuer. @redirect_uri is what a dynamic registration names (NULL for
 * client_credentials). *@registered becomes a new object to store when a
 * registration happened now (else NULL). Returns 0 or -1 with @err. */
int oauth_client_get(const struct server_config *sc, const struct oauth_meta *m,
		     const json_t *stored, const char *redirect_uri, double timeout_s,
		     struct oauth_client *out, json_t **registered, struct err *err);
void oauth_client_free(struct oauth_client *c); /* accepts a zeroed one */

/* The client the store's "client" object @stored (borrowed) names, with the
 * config's secret and key when the config names the client: for a refresh.
 * Returns 0 or -1 with @err. */
int oauth_client_stored(const struct server_config *sc, const json_t *stored,
			struct oauth_client *out, struct err *err);

/* The store's "client" object for @c registered with @issuer; new. A
 * secret is kept only for a registered client (the config holds its own). */
json_t *oauth_client_to_json(const struct oauth_client *c, const char *issuer);

/* POST @form (grant_type and its parameters, form-encoded) to
 * @token_endpoint, authenticated as @c (for private_key_jwt the assertion's
 * audience is @issuer). Returns the token as the store keeps it (new:
 * access_token, refresh_token, expires_at, scope; @scope when the answer
 * names none), or NULL with @err. @error_code (64 bytes, may be NULL)
 * receives the OAuth error code of a refusal ("invalid_grant"), else "". */
json_t *oauth_token_request(const char *token_endpoint, const char *issuer,
			    const struct oauth_client *c, const char *form, const char *scope,
			    double timeout_s, char *error_code, struct err *err);

/* RFC 8693 token exchange at @token_endpoint (of another party: the
 * enterprise identity provider) as @c: @form holds the exchange's
 * parameters. Returns the issued token of @want_type (new), or NULL with
 * @err. */
char *oauth_token_exchange(const char *token_endpoint, const struct oauth_client *c,
			   const char *form, const char *want_type, double timeout_s,
			   struct err *err);

#endif
