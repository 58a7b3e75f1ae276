/* The few primitives OAuth needs, from OpenSSL's libcrypto (crypto_lib.h:
 * loaded on first use): random bytes, SHA-256, base64 and base64url, and JWT
 * signing for private_key_jwt client authentication (RFC 7523). Functions
 * returning a string give NULL when libcrypto cannot be loaded, too: OAuth's
 * entry points load it first and report that. */
#ifndef MCPFS_SERVERS_OAUTH_CRYPTO_H
#define MCPFS_SERVERS_OAUTH_CRYPTO_H

#include <stddef.h>

#include "../common/err.h"

/* A new NUL-terminated base64url text (no padding) of @len bytes, or NULL. */
char *oauth_b64url(const void *data, size_t len);
/* A new NUL-terminated standard base64 text (padded), or NULL. */
char *oauth_b64(const void *data, size_t len);

/* @n bytes of random, base64url-encoded, into a new string (PKCE verifiers,
 * state, JWT ids). NULL when the random source fails. */
char *oauth_random_text(size_t n);

/* The PKCE S256 challenge of @verifier: base64url(SHA-256(verifier)), new. */
char *oauth_pkce_challenge(const char *verifier);

/* A new compact JWS over the JSON text @claims, signed with the PEM private
 * key in @pem by @alg ("ES256", "ES384", "RS256", "RS384", "RS512", "PS256").
 * NULL with @err (EXIT_USAGE: a key or algorithm the config got wrong). */
char *oauth_jwt_sign(const char *claims, const char *pem, const char *alg, struct err *err);

#endif
