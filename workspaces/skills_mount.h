/* The customer's skills folder as a file system of its own, one for all of
 * the customer's runs: an overlay mounted over skills/ itself, the folder
 * its upper layer, an empty tmpfs its lower one.
 *
 * Why: a jail binds /skills from the host. A bind of a plain folder shows
 * the folder's host path in the jail's mountinfo; a bind of this mount
 * shows "/". An overlay per run would hide the path as well, but two runs
 * of one customer would then stack two overlays on one upper layer (which
 * the kernel calls undefined behaviour), and each would keep a name it
 * looked up and missed, whatever another run or the host saved meanwhile.
 * Here every writer goes through the one overlay: runs through their
 * binds, the host through the path skills/, which the mount covers.
 *
 * Mounted while the customer is held for a run (workspaces/idle.h) and
 * unmounted with the workspace by the idle sweep. Where it cannot be made
 * (not root, no overlayfs, a file system overlayfs takes no upper layer
 * from) skills/ stays a plain folder, bound as it is. */
#ifndef MCPFS_WORKSPACES_SKILLS_MOUNT_H
#define MCPFS_WORKSPACES_SKILLS_MOUNT_H

#include <stdbool.h>

#include "../common/err.h"
#include "workspace.h"

/* True when skills/ is a mount point (another device than its parent). */
bool ws_skills_mounted(const struct ws *ws);

/* Mount the overlay over skills/ unless it is mounted. 0 also when it
 * cannot be made (skills/ stays a plain folder); -1 with @err when the
 * customer's folder or lock cannot be had. */
int ws_skills_mount(const struct ws *ws, struct err *err);

/* Unmount it if mounted; one still in use on the host stays, unless
 * @detach (then it goes when the last user leaves). Only for a customer
 * nobody holds: a run's jail keeps a copy of the mount that outlives the
 * host's, and a new overlay beside it would share its upper layer.
 * Returns 1 when unmounted, 0 when not mounted or busy, -1 with @err. */
int ws_skills_umount(const struct ws *ws, bool detach, struct err *err);

#endif
