/* A customer's server holds that customer's workspace (workspaces/idle.h)
 * from before it starts until it is freed. It then starts on the mounted
 * image, never on the empty folder under it, where what it wrote would
 * vanish beneath the next mount; and the idle sweep leaves that mount
 * while the server, which binds it, lives. */
#ifndef MCPFS_EXECUTOR_SERVER_HOLD_H
#define MCPFS_EXECUTOR_SERVER_HOLD_H

#include "../common/err.h"
#include "../servers/launcher.h"

/* Hold and mount the workspace of @sc->customer under data root @root,
 * if it was made (ws_made): a server started to list a catalog, for a
 * customer that never ran anything, makes no workspace (no image). Returns
 * 0 with *@hold the hold's descriptor (-1: none made), or -1 with @err
 * (EXIT_UNREACHABLE). */
int server_hold_workspace(const char *root, const struct server_config *sc, int *hold,
			  struct err *err);

/* @p, owning @hold from now on: released when @p is freed. When @p is NULL
 * (its start failed) or no wrapper can be had, @p is freed, @hold released
 * and NULL returned (with @err). */
struct server_proc *server_hold_wrap(struct server_proc *p, int hold, const char *name,
				     struct err *err);

#endif
