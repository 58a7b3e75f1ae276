/* The first listing, done by a daemonizing `mcpfs mount` on a terminal
 * before it detaches: every server folder is read once through the mount,
 * so the servers start while the progress line can still be seen, and the
 * person's own first `ls` finds them listed. */
#ifndef MCPFS_FUSEFS_WARM_H
#define MCPFS_FUSEFS_WARM_H

struct cg_root;

/* Read @mnt/servers/<folder> for every server of @root, in parallel; returns
 * when all are read (each capped by the tree's own wait for its server). */
void fusefs_warm(const char *mnt, const struct cg_root *root);

#endif
