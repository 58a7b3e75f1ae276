/* The static sink: a snapshot's tree written to a folder. */
#ifndef MCPFS_TREE_WRITE_H
#define MCPFS_TREE_WRITE_H

#include <stddef.h>

#include "../common/err.h"
#include "snapshot.h"

struct tree_write_stats {
	size_t files;
	size_t dirs;
	size_t bytes;
};

/* tree_write's flags. */
enum {
	/* The previous tree stays, as the ".<name>.mcpfs-*" folder beside @dir it
	 * was swapped to: readers may still use it (a jail has it bound), and
	 * the caller removes it once none can. */
	TREE_WRITE_KEEP_OLD = 1,
};

/* Write the tree of @s to @dir: rendered into a fresh sibling folder with
 * openat/O_NOFOLLOW|O_EXCL writes (files 0644, folders 0755), then swapped
 * into place in one rename; the previous tree is removed afterwards unless
 * @flags has TREE_WRITE_KEEP_OLD. An existing @dir is replaced only when it
 * is empty or holds nothing but a tree's top (README.md, servers/), so a
 * mistyped --out never deletes a user's folder. @stats may be NULL. Returns
 * 0, or -errno with @err. */
int tree_write(const struct tree_snapshot *s, const char *dir, unsigned flags,
	       struct tree_write_stats *stats, struct err *err);

#endif
