/* What runs of a killed mcpfs left behind (kill -9 gives no chance to clean
 * up), swept: their folders <root>/run/exec-<id>/ and their cgroups
 * mcpfs-<id>. A run holds a lock on <root>/run/exec-<id>.lock (beside its
 * folder, so the jail, which sees the folder, does not see it) for as long
 * as it, or its jail, which inherits the descriptor, lives; it takes that
 * lock and makes the folder under <root>/run/sweep.lock held shared. A sweep
 * holds that exclusive, so it never sees a live run unlocked. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "../common/cgroupfs.h"
#include "../common/fsx.h"
#include "run.h"

#define CGROUP_FS "/sys/fs/cgroup"
#define CGROUP_LEAF "mcpfs.main" /* executor/jail_cgroup.c: JAIL_CGROUP_LEAF */
#define CGROUP_PARENTS_MAX 3

int run_sweep_lock(const char *root, int how)
{
	char path[4200];
	int fd;

	if (snprintf(path, sizeof(path), "%s/" RUN_SWEEP_LOCK, root) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	/* read-write: NFS emulates flock with byte-range locks, which want it */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, how) < 0) {
		if (errno != EINTR) {
			int saved = errno;

			close(fd);
			return -saved;
		}
	}
	return fd;
}

/* The folders the jail makes runs' groups in (executor/jail_cgroup.c): v2,
 * the group $MCPFS_CGROUP names, else ours (beside our leaf); v1, ours in
 * memory and in pids. Returns how many were written to @out. */
static size_t cgroup_parents(const char *cgroup_parent, char out[][4200])
{
	static const char *const v1[] = {"memory", "pids"};
	const char *mnt = cgroupfs_is_v2(CGROUP_FS)		 ? CGROUP_FS
			  : cgroupfs_is_v2(CGROUP_FS "/unified") ? CGROUP_FS "/unified"
								 : NULL;
	char own[2048], *leaf;
	size_t n = 0, i;

	if (mnt && cgroup_parent && cgroup_parent[0] == '/')
		snprintf(out[n++], 4200, "%s%s", mnt, cgroup_parent);
	else if (mnt && cgroupfs_own("", own, sizeof(own)) == 0) {
		leaf = strrchr(own, '/');
		if (leaf && !strcmp(leaf + 1, CGROUP_LEAF))
			*leaf = '\0';
		snprintf(out[n++], 4200, "%s%s", mnt, strcmp(own, "/") ? own : "");
	}
	for (i = 0; i < sizeof(v1) / sizeof(v1[0]); i++)
		if (cgroupfs_own(v1[i], own, sizeof(own)) == 0)
			snprintf(out[n++], 4200, CGROUP_FS "/%s%s", v1[i],
				 strcmp(own, "/") ? own : "");
	return n;
}

/* Remove run @id's groups. The run is gone (its lock is free): what is
 * left in them is its jail's processes, still exiting (the lock goes with
 * pid 1's files, before they leave the group) or left behind. */
static void cgroups_remove(char parents[][4200], size_t n, const char *id)
{
	char path[4400];
	size_t i;

	for (i = 0; i < n; i++)
		if (snprintf(path, sizeof(path), "%s/mcpfs-%s", parents[i], id) < (int)sizeof(path))
			cgroupfs_remove(path);
}

/* Is run @id gone? Its lock is free, or it has none (a folder of an older
 * mcpfs). */
static bool run_gone(int dir, const char *id)
{
	char name[300];
	bool gone;
	int fd;

	snprintf(name, sizeof(name), "exec-%s" RUN_LOCK_SUFFIX, id);
	fd = openat(dir, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT;
	gone = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return gone;
}

int run_sweep(const char *root, const char *cgroup_parent)
{
	char parents[CGROUP_PARENTS_MAX][4200], path[4200], id[256], name[300];
	size_t nparents = 0, len;
	bool found = false, removed;
	struct dirent *d;
	int lock, swept = 0;
	DIR *ds;

	if (snprintf(path, sizeof(path), "%s/run", root) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ds = opendir(path);
	if (!ds)
		return errno == ENOENT ? 0 : -errno;
	lock = run_sweep_lock(root, LOCK_EX);
	if (lock < 0) {
		closedir(ds);
		return lock;
	}
	while ((d = readdir(ds))) {
		/* exec-<id>/ or exec-<id>.lock */
		if (strncmp(d->d_name, "exec-", 5) || strlen(d->d_name + 5) >= sizeof(id))
			continue;
		snprintf(id, sizeof(id), "%s", d->d_name + 5);
		len = strlen(id);
		if (len > strlen(RUN_LOCK_SUFFIX) &&
		    !strcmp(id + len - strlen(RUN_LOCK_SUFFIX), RUN_LOCK_SUFFIX))
			id[len - strlen(RUN_LOCK_SUFFIX)] = '\0';
		if (!run_gone(dirfd(ds), id))
			continue;
		if (!found) {
			nparents = cgroup_parents(cgroup_parent, parents);
			found = true;
		}
		cgroups_remove(parents, nparents, id);
		/* the stream may still list what an earlier entry's sweep removed */
		snprintf(name, sizeof(name), "exec-%s", id);
		removed = faccessat(dirfd(ds), name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
			  fsx_remove_tree_at(dirfd(ds), name) == 0;
		snprintf(name, sizeof(name), "exec-%s" RUN_LOCK_SUFFIX, id);
		removed |= unlinkat(dirfd(ds), name, 0) == 0;
		/* a server's sandbox (server_sandbox.c) holds a lock too: its
		 * groups are swept the same way, but it was no run */
		swept += removed && strncmp(id, "srv-", 4);
	}
	close(lock);
	closedir(ds);
	return swept;
}
