/* A customer's folder as an overlay of its own (overlay.h). */
#define _GNU_SOURCE
#include "overlay.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "../common/emptyfs.h"
#include "../common/fsx.h"
#include "quota.h"

/* The layers are named by descriptor, so mountinfo (the host's, and a
 * jail's through its bind) shows /proc/self/fd/N, not their paths. The
 * mount goes on the descriptor of the folder resolved without symlinks;
 * overlayfs's work folder is .<name>-work beside it (on its file system,
 * never in a jail). */
static void mount_overlay(int dfd, const char *name)
{
	int up, work = -1, low = -1;
	char opts[160], target[32], wname[32];

	snprintf(wname, sizeof(wname), ".%s-work", name);
	up = fsx_open_at(dfd, name, O_PATH | O_DIRECTORY, 0);
	if (up >= 0 && fsx_mkdir_at(dfd, wname, 0700) == 0)
		work = fsx_open_at(dfd, wname, O_PATH | O_DIRECTORY, 0);
	if (work >= 0)
		low = emptyfs_open(); /* the lower layer overlayfs wants */
	if (low >= 0) {
		snprintf(opts, sizeof(opts),
			 "lowerdir=/proc/self/fd/%d,upperdir=/proc/self/fd/%d,"
			 "workdir=/proc/self/fd/%d",
			 low, up, work);
		snprintf(target, sizeof(target), "/proc/self/fd/%d", up);
		/* A failure leaves the folder plain (overlay.h). */
		(void)mount("overlay", target, "overlay", MS_NOSUID | MS_NODEV, opts);
	}
	if (low >= 0)
		close(low);
	if (work >= 0)
		close(work);
	if (up >= 0)
		close(up);
}

int ws_overlay_mount(const struct ws *ws, const char *name, struct err *err)
{
	char path[PATH_MAX];
	int dfd, lfd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", ws->dir, name) >= sizeof(path))
		return err_set(err, EXIT_FAILED, "%s/%s: path too long", ws->dir, name);
	if (geteuid() != 0 || ws_is_mount(ws, path))
		return 0;
	dfd = fsx_open_dir(ws->dir);
	if (dfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", ws->dir, strerror(-dfd));
	lfd = ws_quota_lock(dfd, ws, err);
	if (lfd >= 0 && !ws_is_mount(ws, path))
		mount_overlay(dfd, name);
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	return lfd < 0 ? -1 : 0;
}
