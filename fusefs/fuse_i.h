/* The libfuse low-level API as fusefs uses it (3.14: no passthrough, no
 * io_uring; every call used here exists since 3.12). */
#ifndef MCPFS_FUSEFS_FUSE_I_H
#define MCPFS_FUSEFS_FUSE_I_H

#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>

#include "inval.h"
#include "lookup.h"

/* How long the kernel may keep entries and attributes. Changes are pushed by
 * invalidation (a swap the queue cannot take flushes everything, inval.h),
 * so this only bounds the damage of a notification the kernel refused. Past
 * it a walk costs a LOOKUP a file again: 60 s made an agent's second walk a
 * minute later one round trip a file slower. */
#define FUSEFS_TIMEOUT_S 3600.0

/* The operation table; userdata is the struct fusefs_tree. */
extern const struct fuse_lowlevel_ops fusefs_ops;

/* Kernel notifications over @se, for struct fusefs_inval. */
void fusefs_notify_ops_session(struct fusefs_notify_ops *ops, struct fuse_session *se);

#endif
