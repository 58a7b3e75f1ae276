/* Loop devices for workspace images (loop.h).
 *
 * A workspace unmounted here may still be mounted elsewhere: a jail made
 * while it was mounted copied the mount into its own namespace, and an
 * unmount in ours neither fails for that copy nor ends it. Until the copy
 * goes, the image's file system is alive on its loop device. A second
 * device on the same image would be a second file system writing it (the
 * image is then corrupt: "Bad message" on the next mount), so a mount
 * first looks for the device still bound and mounts that one again: the
 * kernel hands back the live file system. */
#define _GNU_SOURCE
#include "loop.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define LOOP_MAJOR 7
/* A busy loop device (another process won LOOP_CTL_GET_FREE) is retried. */
#define LOOP_TRIES 16

/* /dev/loop<n>, made when a static /dev (containers) lacks the node the
 * kernel just made. */
static int loop_open(int n)
{
	char dev[64];
	int fd;

	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	if (access(dev, F_OK) < 0 &&
	    mknod(dev, S_IFBLK | 0660, makedev(LOOP_MAJOR, (unsigned)n)) < 0 && errno != EEXIST)
		return -errno;
	fd = open(dev, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int loop_attach(int imgfd, int *number)
{
	struct loop_config lc;
	int ctl, n, fd, tries, rc = -EBUSY;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	for (tries = 0; tries < LOOP_TRIES && rc == -EBUSY; tries++) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0) {
			rc = -errno;
			break;
		}
		fd = loop_open(n);
		if (fd < 0) {
			rc = fd;
			break;
		}
		memset(&lc, 0, sizeof(lc));
		lc.fd = (unsigned)imgfd;
		lc.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		if (ioctl(fd, LOOP_CONFIGURE, &lc) == 0) {
			*number = n;
			close(ctl);
			return fd;
		}
		rc = -errno;
		close(fd);
	}
	close(ctl);
	return rc;
}

/* Whether sysfs names @n's backing file with a path ending in @tail. */
static int backing_ends_with(const char *n, const char *tail)
{
	char path[128], file[4096];
	size_t len, t = strlen(tail);
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", n);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* not bound */
	got = read(fd, file, sizeof(file) - 1);
	close(fd);
	if (got <= 0)
		return 0;
	file[got] = '\0';
	len = strcspn(file, "\n");
	return len >= t && !memcmp(file + len - t, tail, t);
}

int loop_bound(int imgfd, const char *tail, int *number)
{
	struct loop_info64 info;
	struct stat st;
	struct dirent *d;
	DIR *dir;
	int n, fd, found = -ENOENT;

	if (fstat(imgfd, &st) < 0)
		return -errno;
	dir = opendir("/sys/block");
	if (!dir)
		return -ENOENT; /* no sysfs: nothing to find, as before */
	while (found < 0 && (d = readdir(dir))) {
		if (sscanf(d->d_name, "loop%d", &n) != 1 || !backing_ends_with(d->d_name, tail))
			continue;
		fd = loop_open(n);
		if (fd < 0)
			continue;
		/* Held open, the device stays bound to what the ioctl names. */
		if (ioctl(fd, LOOP_GET_STATUS64, &info) == 0 && info.lo_inode == st.st_ino &&
		    info.lo_device == st.st_dev) {
			*number = n;
			found = fd;
		} else {
			close(fd);
		}
	}
	closedir(dir);
	return found;
}
