/* Quotas per customer, enforced by the kernel: workspace/ is an ext4 file
 * system in <dir>/workspace.img (size = quota bytes, inodes = quota files)
 * loop-mounted with LO_FLAGS_AUTOCLEAR, so unmounting also frees the loop
 * device. A write past the quota fails with ENOSPC inside the jail and
 * nothing already stored is touched. The quota lives in <dir>/quota.json.
 * Where loop devices cannot be had (not root, no /dev/loop-control) the
 * workspace is a plain folder and the quota is recorded but not enforced
 * ("mode": "none"), which `workspace show` reports. */
#ifndef MCPFS_WORKSPACES_QUOTA_H
#define MCPFS_WORKSPACES_QUOTA_H

#include <stdbool.h>

#include "../common/err.h"
#include "workspace.h"

#define WS_QUOTA_DEFAULT_BYTES (256ull << 20)
#define WS_QUOTA_DEFAULT_FILES 10000ull
#define WS_QUOTA_MIN_BYTES (1ull << 20)
#define WS_QUOTA_MAX_BYTES (1ull << 40)
#define WS_QUOTA_MIN_FILES 16ull
#define WS_QUOTA_MAX_FILES (1ull << 31)

enum ws_quota_mode {
	WS_QUOTA_NONE,	/* recorded, not enforced */
	WS_QUOTA_IMAGE, /* ext4 image loop-mounted at workspace/ */
};

struct ws_quota {
	unsigned long long bytes;
	unsigned long long files;
	enum ws_quota_mode mode;
};

struct ws_usage {
	unsigned long long bytes_used, bytes_total; /* total: the usable size */
	unsigned long long files_used, files_total; /* files_total 0: unlimited */
	bool mounted;
};

/* The defaults: $MCPFS_QUOTA_BYTES / $MCPFS_QUOTA_FILES when set, else the
 * WS_QUOTA_DEFAULT_* values; the mode the machine allows. */
void ws_quota_defaults(struct ws_quota *q);

/* Check @q against the limits above. Returns 0 or -1 with @err (EXIT_USAGE). */
int ws_quota_check(const struct ws_quota *q, struct err *err);

/* The customer's quota; -ENOENT (no error set) when none is recorded yet. */
int ws_quota_get(const struct ws *ws, struct ws_quota *q, struct err *err);

/* Record @q and make the file system for it: on first use mkfs, on a later
 * call a larger byte quota grows the image (resize2fs, online when mounted).
 * Shrinking, changing the file quota of an image or the mode are refused.
 * Returns 0 or -1 with @err. */
int ws_quota_apply(const struct ws *ws, const struct ws_quota *q, struct err *err);

/* Mount the image at workspace/ unless it already is (e2fsck -p first);
 * for WS_QUOTA_NONE, the plain folder's overlay (workspaces/overlay.h).
 * Returns 0 or -1 with @err. */
int ws_quota_mount(const struct ws *ws, struct err *err);

/* Unmount the image at workspace/ if mounted (lazily when busy; the loop
 * device goes with the last user); not a plain folder's overlay, which
 * only ws_umount_unheld takes. Returns 0 or -1 with @err. */
int ws_quota_umount(const struct ws *ws, struct err *err);

/* Serialize the mounts and quota changes of one customer across processes:
 * @dfd is its folder. Returns the lock's descriptor (close it to unlock) or
 * -1 with @err. */
int ws_quota_lock(int dfd, const struct ws *ws, struct err *err);

/* True when workspace/ is a mount point (another device than its parent). */
bool ws_quota_mounted(const struct ws *ws);

/* True when @path, a folder of the customer's, is a mount point. */
bool ws_is_mount(const struct ws *ws, const char *path);

/* Unmount @path (workspace/, skills/) if it is a mount point, under the
 * customer's lock; one in use stays, unless @detach (then it goes when
 * its last user leaves). Returns 1 when unmounted, 0 when not mounted or
 * busy, -1 with @err. */
int ws_umount_locked(const struct ws *ws, const char *path, bool detach, struct err *err);

/* Space and files used and available in workspace/. Returns 0 or -1. */
int ws_usage_get(const struct ws *ws, struct ws_usage *u, struct err *err);

#endif
