/* The customer's skills as one overlay for all its runs (skills_mount.h). */
#define _GNU_SOURCE
#include "skills_mount.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "../common/fsx.h"
#include "quota.h"

/* overlayfs's work folder: beside skills/, on its file system, never in the jail */
#define WORK_DIR ".skills-work"

bool ws_skills_mounted(const struct ws *ws)
{
	return ws_is_mount(ws, ws->skills);
}

/* An empty read-only tmpfs, detached: the lower layer (overlayfs wants
 * one below its upper layer). -1 when the kernel makes none. */
static int empty_layer(void)
{
	int fs = fsopen("tmpfs", FSOPEN_CLOEXEC), m = -1;

	if (fs < 0)
		return -1;
	if (fsconfig(fs, FSCONFIG_SET_STRING, "size", "4k", 0) == 0 &&
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		m = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY);
	close(fs);
	return m;
}

/* The layers are named by descriptor, so mountinfo (the host's, and a
 * jail's through its bind) shows /proc/self/fd/N, not their paths. The
 * mount goes on the descriptor of skills/ resolved without symlinks. */
static void mount_overlay(int dfd)
{
	int up, work = -1, low = -1;
	char opts[160], target[32];

	up = fsx_open_at(dfd, "skills", O_PATH | O_DIRECTORY, 0);
	if (up >= 0 && fsx_mkdir_at(dfd, WORK_DIR, 0700) == 0)
		work = fsx_open_at(dfd, WORK_DIR, O_PATH | O_DIRECTORY, 0);
	if (work >= 0)
		low = empty_layer();
	if (low >= 0) {
		snprintf(opts, sizeof(opts),
			 "lowerdir=/proc/self/fd/%d,upperdir=/proc/self/fd/%d,"
			 "workdir=/proc/self/fd/%d",
			 low, up, work);
		snprintf(target, sizeof(target), "/proc/self/fd/%d", up);
		/* A failure leaves skills/ a plain folder (skills_mount.h). */
		(void)mount("overlay", target, "overlay", MS_NOSUID | MS_NODEV, opts);
	}
	if (low >= 0)
		close(low);
	if (work >= 0)
		close(work);
	if (up >= 0)
		close(up);
}

int ws_skills_mount(const struct ws *ws, struct err *err)
{
	int dfd, lfd;

	if (geteuid() != 0 || ws_skills_mounted(ws))
		return 0;
	dfd = fsx_open_dir(ws->dir);
	if (dfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", ws->dir, strerror(-dfd));
	lfd = ws_quota_lock(dfd, ws, err);
	if (lfd >= 0 && !ws_skills_mounted(ws))
		mount_overlay(dfd);
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	return lfd < 0 ? -1 : 0;
}

int ws_skills_umount(const struct ws *ws, bool detach, struct err *err)
{
	return ws_umount_locked(ws, ws->skills, detach, err);
}
