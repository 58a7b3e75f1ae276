/* What the jail, the run sweep and `mcpfs doctor` each ask of the cgroup
 * filesystem: is a folder a cgroup v2 mount, where is this process's own
 * group, and removing a run's group once the run is over. */
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

/* SIGKILL to every process in group @dir (v1, or v2 before cgroup.kill). */
void cgroupfs_kill(const char *dir);

/* Remove @dir, the group of a run that is over: what is still in it is
 * killed (exiting, or left behind), and rmdir is retried while the kernel
 * calls it busy, which killed processes keep it for seconds on a loaded
 * machine, for CGROUPFS_REMOVE_S at most. Returns 0 (also when it is gone
 * already) or -errno. */
int cgroupfs_remove(const char *dir);

#endif
