/* An empty read-only tmpfs, detached (no mount point): the lower layer
 * overlayfs wants below an upper one, or beside a single read-only one. */
#ifndef MCPFS_COMMON_EMPTYFS_H
#define MCPFS_COMMON_EMPTYFS_H

/* The mount's descriptor (close it when the overlay is made), or -1 with
 * errno from the step that failed. Async-signal-safe. */
int emptyfs_open(void);

#endif
