/* Where the mount gets catalogs: the hub in `mcpfs mount`, a fake in unit
 * tests. */
#ifndef MCPFS_FUSEFS_SOURCE_H
#define MCPFS_FUSEFS_SOURCE_H

#include <jansson.h>
#include <stdint.h>

#include "../common/catalog_text.h"
#include "../common/err.h"
#include "../servers/hub.h"
#include "../tree/snapshot.h"

struct fusefs_source {
	/* The server's tools (a new reference to the compact catalog,
	 * shared with the hub where it can be) and generation; starts it when needed
	 * and may block up to its connect timeout. NULL with @err. */
	struct catalog_text *(*tools)(void *ctx, const char *server, uint64_t *generation,
				      struct err *err);
	/* State, generation, why and log tail; never blocks on the server. */
	void (*info)(void *ctx, const char *server, struct hub_server_info *out);
	/* hub_notes: the server's instructions and skipped tools (new, or
	 * NULL); never blocks. NULL: a source without notes. */
	json_t *(*notes)(void *ctx, const char *server);
	void *ctx;
};

/* What a hub source reads: @hub's catalogs, through @filter when not NULL
 * (both borrowed; they outlive the source). */
struct fusefs_hub_view {
	struct hub *hub;
	const struct tree_filter *filter;
};

/* A source over @v (borrowed; outlives the source). */
void fusefs_source_hub(struct fusefs_source *src, const struct fusefs_hub_view *v);

#endif
