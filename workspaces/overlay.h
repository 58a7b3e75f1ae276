/* A customer's folder as a file system of its own, one for all of the
 * customer's runs and servers and for the host: an overlay mounted over
 * the folder itself, the folder its upper layer, an empty tmpfs its lower
 * one. For skills/ always; for workspace/ where it is a plain folder (quota
 * mode none), not an image.
 *
 * Why: a jail binds /skills and /workspace from the host. A bind of a plain
 * folder shows the folder's host path in the jail's mountinfo; a bind of
 * this mount shows "/". An overlay per run would hide the path as well, but
 * two runs of one customer would then stack two overlays on one upper layer
 * (which the kernel calls undefined behaviour), and each would keep a name
 * it looked up and missed, whatever another run, a server or the host
 * saved meanwhile. Here every writer goes through the one overlay: runs and
 * servers through their binds, the host through the folder's path, which
 * the mount covers.
 *
 * Mounted while the customer is held (workspaces/idle.h) and unmounted by
 * the idle sweep, or `workspace umount`, only when nobody holds it: a jail
 * keeps a copy of the mount that outlives the host's, and a new overlay
 * beside it would share its upper layer. Where it cannot be made (not root,
 * no overlayfs, a file system overlayfs takes no upper layer from) the
 * folder stays a plain folder, bound as it is. */
#ifndef MCPFS_WORKSPACES_OVERLAY_H
#define MCPFS_WORKSPACES_OVERLAY_H

#include "../common/err.h"
#include "workspace.h"

/* Mount the overlay over the customer's folder @name (skills, workspace)
 * unless something is mounted there. 0 also when it cannot be made (the
 * folder stays plain); -1 with @err when the customer's folder or lock
 * cannot be had. */
int ws_overlay_mount(const struct ws *ws, const char *name, struct err *err);

#endif
