/* Idle workspaces unmounted: a customer's image (workspaces/quota.h) stays
 * loop-mounted, and its overlays (workspaces/overlay.h) mounted, only while
 * it is used, so mounts and loop devices follow the customers active
 * lately, not every customer that ever ran code. Whoever
 * uses workspace/ (a run, a file tool) holds <dir>/use.lock shared from
 * before it mounts until it is done, and stamps the file's mtime at both
 * ends. The sweep unmounts a workspace whose stamp is older than the idle
 * time, holding that lock exclusive: never while anyone holds it, and a run
 * that starts meanwhile waits for the sweep, then mounts again. */
#ifndef MCPFS_WORKSPACES_IDLE_H
#define MCPFS_WORKSPACES_IDLE_H

#include <jansson.h>

#include "../common/err.h"
#include "workspace.h"

#define WS_IDLE_DEFAULT_S 300.0
#define WS_IDLE_ENV "MCPFS_WORKSPACE_IDLE_S"

/* The idle time: $MCPFS_WORKSPACE_IDLE_S when set (0: never unmount), else
 * WS_IDLE_DEFAULT_S. -1 with @err (EXIT_USAGE) when it is not a number. */
double ws_idle_time(struct err *err);

/* Hold the customer's workspace (folders made) for a use: returns the
 * descriptor to give to ws_release, or -1 with @err. */
int ws_hold(const struct ws *ws, struct err *err);
/* End a use: stamps and closes @fd. Accepts -1. */
void ws_release(int fd);

/* ws_open, with the workspace held (ws_hold) before it is mounted, and the
 * skills overlay mounted (workspaces/overlay.h): *@hold is the
 * descriptor for ws_release (-1 on failure). */
int ws_open_held(const char *root, const char *customer, struct ws *out, int *hold,
		 struct err *err);

/* Unmount every workspace under @root mounted in this mount namespace that
 * nobody holds and nobody used for @idle_s seconds (0: none); a workspace still busy
 * (a shell inside it) stays. Appends the customers unmounted to @gone
 * (may be NULL). Returns how many, or -1 with @err. */
int ws_idle_sweep(const char *root, double idle_s, json_t *gone, struct err *err);

/* Unmount the customer's image and overlays now unless a use holds the
 * customer (a held overlay must stay: overlay.h). 1 when any was
 * unmounted, 0 when not, -1 with @err. */
int ws_umount_unheld(const struct ws *ws, struct err *err);

/* The same for every workspace nobody holds, however lately used: what a
 * daemon leaves behind when it stops. */
int ws_unmount_unused(const char *root, struct err *err);

#endif
