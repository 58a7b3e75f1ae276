/* A customer's server holds that customer's workspace (workspaces/idle.h)
 * from before it starts until it is freed, the workspace made first if it
 * was not (as a run would make it). It then starts on the mounted image,
 * never on the empty folder under it, where what it wrote would vanish
 * beneath the next mount; and the idle sweep leaves that mount while the
 * server, which binds it, lives. When it ends, the workspace stays mounted
 * as a run leaves it, for the idle sweep. */
#ifndef MCPFS_EXECUTOR_SERVER_HOLD_H
#define MCPFS_EXECUTOR_SERVER_HOLD_H

#include "../common/err.h"
#include "../servers/launcher.h"

struct server_hold;

/* Hold customer @customer's workspace under data root @root for server
 * @name, before it starts. NULL with @err (EXIT_UNREACHABLE). */
struct server_hold *server_hold_take(const char *root, const char *customer, const char *name,
				     struct err *err);

/* Server @p, which from now on owns @h: released when @p is freed. When @p
 * is NULL (its start failed), @h is released and NULL returned. */
struct server_proc *server_hold_wrap(struct server_hold *h, struct server_proc *p);

#endif
