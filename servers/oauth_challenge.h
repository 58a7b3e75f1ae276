/* The Bearer challenge of a WWW-Authenticate header (RFC 6750 section 3,
 * RFC 9728 section 5.1): what a 401 or 403 from an MCP server asks for. */
#ifndef MCPFS_SERVERS_OAUTH_CHALLENGE_H
#define MCPFS_SERVERS_OAUTH_CHALLENGE_H

#include <stdbool.h>

struct oauth_challenge {
	bool bearer;		 /* a Bearer challenge was found */
	char *resource_metadata; /* owned, or NULL */
	char *scope;		 /* owned, or NULL */
	char *error;		 /* owned, or NULL: "invalid_token", "insufficient_scope" */
};

/* Parse @header (NULL or any text: a malformed one gives bearer = false).
 * Returns 0, or -ENOMEM. */
int oauth_challenge_parse(const char *header, struct oauth_challenge *out);
void oauth_challenge_free(struct oauth_challenge *c);

#endif
