/* Discovery (MCP authorization 2025-11-25, "Authorization Server
 * Discovery"): from a server URL and its 401 challenge to the protected
 * resource metadata (RFC 9728: the challenge's resource_metadata, else the
 * path-based then the root well-known URI), then the authorization server's
 * metadata (RFC 8414 and OpenID Connect Discovery, path-aware order). A
 * server with no resource metadata is treated as the 2025-03-26 spec says:
 * its origin is the authorization server, with /authorize, /token and
 * /register when even that has no metadata. */
#ifndef MCPFS_SERVERS_OAUTH_DISCOVER_H
#define MCPFS_SERVERS_OAUTH_DISCOVER_H

#include <jansson.h>
#include <stdbool.h>

#include "../common/err.h"
#include "oauth_challenge.h"

struct oauth_meta {
	char *resource; /* the RFC 8707 resource indicator to send */
	char *issuer;	/* the authorization server */
	char *authorization_endpoint;
	char *token_endpoint;
	char *registration_endpoint; /* NULL: no dynamic registration */
	char *scope;		     /* to request (the spec's selection order); NULL: omit */
	bool cimd_supported;	     /* client_id_metadata_document_supported */
	bool iss_parameter;	     /* authorization_response_iss_parameter_supported */
	bool pkce_s256;		     /* S256 offered (assumed without metadata, as 2025-03-26) */
	json_t *auth_methods;	     /* token_endpoint_auth_methods_supported, or NULL */
};

/* Discover for @server_url given @ch (the challenge; fields may be NULL).
 * @extra_scope (may be NULL) is added to the selected scope: what the last
 * token held, so a step-up asks for the union. Returns 0, or -1 with @err:
 * one line naming the document and what is wrong with it (not JSON, an
 * issuer that does not match, a resource for another server). */
int oauth_discover(const char *server_url, const struct oauth_challenge *ch,
		   const char *extra_scope, double timeout_s, struct oauth_meta *out,
		   struct err *err);
void oauth_meta_free(struct oauth_meta *m); /* accepts a zeroed one */

/* @scope (space-separated) with every word of @more not yet in it; new. */
char *oauth_scope_union(const char *scope, const char *more);

#endif
