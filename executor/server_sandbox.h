/* Every stdio MCP server in a jail of its own: the server profile of the
 * executor's jail (README "Server sandboxes"). The hub's owner plugs it in
 * through hub_opts.launcher; servers/ knows nothing of it. */
#ifndef MCPFS_EXECUTOR_SERVER_SANDBOX_H
#define MCPFS_EXECUTOR_SERVER_SANDBOX_H

#include "../servers/launcher.h"

struct server_sandbox;

/* A launcher for the servers of data root @root (shared servers keep their
 * home under <root>/server-homes/); @cgroup_parent as jail_spec's (NULL: the
 * group mcpfs runs in). Both are copied. NULL when out of memory. */
struct server_sandbox *server_sandbox_new(const char *root, const char *cgroup_parent);
const struct server_launcher *server_sandbox_launcher(struct server_sandbox *sb);
/* Accepts NULL. The servers it started must be gone (hub_free first). */
void server_sandbox_free(struct server_sandbox *sb);

#endif
