/* The work folder of a run's skills overlay: the jail mounts the customer's
 * skills as an overlay whose upper layer is the skills folder itself, so
 * that its mount table names nothing of the host (executor/README.md,
 * "Inside"), and overlayfs wants an empty work folder on the same file
 * system, one per mount: <customer>/.jail-work/<random>/, removed when the
 * run ends. */
#ifndef MCPFS_EXECUTOR_RUN_WORK_H
#define MCPFS_EXECUTOR_RUN_WORK_H

#include <stddef.h>
#include <sys/types.h>

#include "../common/err.h"
#include "../workspaces/workspace.h"

/* Make the run's work folder, owned by @uid:@gid (the jail's host ids),
 * into @out. Folders of runs that ended without removing theirs (mcpfs
 * killed), older than any run can last, are removed first. Returns 0 or -1
 * with @err (@out then names what to remove, or is ""). */
int run_work_make(const struct ws *ws, uid_t uid, gid_t gid, char *out, size_t n, struct err *err);

/* Remove a work folder (overlayfs leaves a mode 000 folder in it); "" is a
 * no-op. */
void run_work_remove(const char *dir);

#endif
