/* An empty detached tmpfs (emptyfs.h). */
#define _GNU_SOURCE
#include "emptyfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

int emptyfs_open(void)
{
	int fs = fsopen("tmpfs", FSOPEN_CLOEXEC), m = -1, saved;

	if (fs < 0)
		return -1;
	if (fsconfig(fs, FSCONFIG_SET_STRING, "size", "4k", 0) == 0 &&
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		m = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY);
	saved = errno;
	close(fs);
	errno = saved;
	return m;
}
