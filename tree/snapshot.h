/* A catalog snapshot: every configured server's tools taken from a hub and
 * turned into the codegen objects one tree is rendered from. Used by
 * `mcpfs generate` and by exec runs that have no mount to bind. */
#ifndef MCPFS_TREE_SNAPSHOT_H
#define MCPFS_TREE_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "../codegen/codegen.h"
#include "../common/err.h"
#include "../servers/hub.h"

struct tree_snapshot {
	struct cg_root *root;	    /* owned */
	struct cg_server **servers; /* owned; one per cg_root server, same order */
	char **why;		    /* owned; why[i] one line when server i failed, else NULL */
	size_t nservers;
	size_t ntools;	     /* over the servers that answered */
	size_t nunreachable; /* servers whose catalog could not be had */
};

/* Take every server's catalog from @h (hub_tools, which starts servers as
 * needed; call hub_connect_all first to start them in parallel). A server
 * that fails still gets a folder whose README says why. @t is borrowed and
 * must outlive the snapshot. Returns a new snapshot, or NULL with @err when
 * memory runs out. */
struct tree_snapshot *tree_snapshot_new(struct hub *h, unsigned langs, const struct cg_templates *t,
					struct err *err);
/* What one reader may see of the catalogs (a customer's policy): @tools
 * (borrowed; NULL when the server's catalog could not be had) of @server
 * becomes the new array returned; *@hide true drops the server from the
 * tree. NULL without *@hide, for tools not NULL, when out of memory. */
struct tree_filter {
	json_t *(*tools)(void *ctx, const char *server, json_t *tools, bool *hide);
	void *ctx;
};

/* tree_snapshot_new through @f (borrowed; NULL: everything). */
struct tree_snapshot *tree_snapshot_filtered(struct hub *h, unsigned langs,
					     const struct cg_templates *t,
					     const struct tree_filter *f, struct err *err);
void tree_snapshot_free(struct tree_snapshot *s); /* accepts NULL */

#endif
