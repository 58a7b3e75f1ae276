/* What the jail, the run sweep and `mcpfs doctor` each ask of the cgroup
 * filesystem: is a folder a cgroup v2 mount, and where is this process's
 * own group. */
#ifndef MCPFS_COMMON_CGROUPFS_H
#define MCPFS_COMMON_CGROUPFS_H

#include <stdbool.h>
#include <stddef.h>

#define CGROUPFS_ROOT "/sys/fs/cgroup"

/* Whether @path is the root of a cgroup v2 mount. */
bool cgroupfs_is_v2(const char *path);

/* This process's group in hierarchy @controller ("memory", "pids"; "" for
 * v2) from /proc/self/cgroup, a path such as "/" or "/user.slice/x", into
 * @out. Returns 0, or -1 when there is no such hierarchy. */
int cgroupfs_own(const char *controller, char *out, size_t n);

#endif
