/* Bearer tokens for `serve --http`: the token decides the customer. Stored
 * hashed (SHA-256), one file per token, <root>/tokens/<hex of the hash>,
 * mode 0600 in a 0700 folder, holding {customer, id, created_at}: a lookup
 * is one open by name, creation an O_EXCL create, revocation an unlink, so
 * several servers on one data root (shared storage) agree without a lock.
 * The token itself is printed once and never stored. */
#ifndef MCPFS_SERVE_TOKENS_H
#define MCPFS_SERVE_TOKENS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"

#define TOKEN_LEN 70	/* "mcpfs_" and 64 hex digits */
#define TOKEN_ID_LEN 12 /* the first hex digits of the hash: what list and revoke name */

/* A new token for @customer into @out (TOKEN_LEN + 1) and its id into @id
 * (TOKEN_ID_LEN + 1). Returns 0 or -1 with @err. */
int token_create(const char *root, const char *customer, char *out, char *id, struct err *err);

/* The customer's tokens: a new array of {id, created_at}, or NULL with @err. */
json_t *token_list(const char *root, const char *customer, struct err *err);

/* Revoke the customer's token @id, or all of them when @id is NULL; the
 * number revoked goes to @n. Returns 0 or -1 with @err (EXIT_USAGE when @id
 * is not one of the customer's). */
int token_revoke(const char *root, const char *customer, const char *id, size_t *n,
		 struct err *err);

/* The customer @token belongs to, into @customer (at least ID_MAX + 1).
 * Returns 0, -ENOENT for a token that is unknown, revoked or malformed, or
 * -errno. */
int token_lookup(const char *root, const char *token, char *customer, size_t n);

/* True when at least one token exists. */
bool token_any(const char *root);

#endif
