/* Where a server's OAuth state lives and how it is read and written: one
 * JSON file per server (per customer for customer-scoped servers) under the
 * data root, mode 0600 in a 0700 folder, replaced atomically, with a lock
 * file beside it that serializes refreshes across processes (flock, which
 * also holds across NFS clients).
 *
 *   <root>/oauth/<server>.json                       shared servers
 *   <root>/workspaces/<customer>/oauth/<server>.json customer-scoped ones
 *
 * The file: {"url": the server URL the state belongs to, "challenge": the
 * last 401/403's resource_metadata and scope, "client": the registration
 * (client_id, client_secret, token_endpoint_auth_method, issuer), "token":
 * access_token, refresh_token, expires_at (Unix seconds, absolute), scope,
 * token_endpoint, issuer, resource}. */
#ifndef MCPFS_SERVERS_OAUTH_STORE_H
#define MCPFS_SERVERS_OAUTH_STORE_H

#include <jansson.h>
#include <stddef.h>

#include "../common/err.h"

/* The store file of @server (for @customer; NULL: shared) under @root into
 * @out. Returns 0, or -1 with @err when it does not fit. */
int oauth_store_path(const char *root, const char *server, const char *customer, char *out,
		     size_t n, struct err *err);

/* Take the lock of the store @path (blocking; creates its folder). Returns
 * the lock's fd, or -1 with @err. */
int oauth_store_lock(const char *path, struct err *err);
void oauth_store_unlock(int fd); /* accepts -1 */

/* The state in @path (new object). A missing file, or one written for
 * another URL than @url (the server moved: its tokens must not follow),
 * gives {"url": @url}. NULL with @err when the file is unreadable or not
 * JSON. */
json_t *oauth_store_load(const char *path, const char *url, struct err *err);

/* Write @state (borrowed) to @path atomically, mode 0600. 0 or -1 with @err. */
int oauth_store_save(const char *path, const json_t *state, struct err *err);

/* Remove the state. 0 (also when there was none) or -1 with @err. */
int oauth_store_remove(const char *path, struct err *err);

#endif
