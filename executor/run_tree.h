/* The tree a run sees: a live FUSE mount of the same config when one is
 * running (and readable by the jail's user: mounted with allow_other), else
 * a tree written under <root>/cache/trees/<key>/ and reused while fresh, so
 * a warm run starts no server. */
#ifndef MCPFS_EXECUTOR_RUN_TREE_H
#define MCPFS_EXECUTOR_RUN_TREE_H

#include <stddef.h>

#include "../common/err.h"

struct config;
struct hub;
struct policy_rules;

/* A cached tree older than this is written again (from the hub's catalogs,
 * which it may take from its own disk cache). */
#define RUN_TREE_MAX_AGE_S (24 * 3600)

/* The folder holding README.md and servers/ into @out: what @rules (the
 * customer's policy, borrowed; NULL: everything) let the customer see. A
 * policy that hides anything never binds the mount, and its tree has a key
 * of its own. Returns 1 for the live mount (the root of a file system of
 * its own), 0 for a written tree, or -1 with @err. */
int run_tree_dir(const char *root, const struct config *cfg, struct hub *hub,
		 const struct policy_rules *rules, char *out, size_t n, struct err *err);

/* A catalog changed: every tree written under @root's cache is written
 * again by the next run that wants it (it turns as old as RUN_TREE_MAX_AGE_S;
 * runs that bound it go on with it). */
void run_tree_expire(const char *root);

#endif
