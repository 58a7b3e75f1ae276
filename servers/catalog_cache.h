/* A server's tool catalog cached on disk, so a one-shot command can answer
 * without starting the server: <state_dir>/cache/catalogs/<server>.json holds
 * {"config_hash", "saved_at", "generation", "tools", "notes"}. A changed config (other
 * hash) makes the entry stale. */
#ifndef MCPFS_SERVERS_CATALOG_CACHE_H
#define MCPFS_SERVERS_CATALOG_CACHE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* A cached catalog larger than this is ignored. */
#define CATALOG_CACHE_MAX (64u << 20)

/* The hash of everything in @sc that can change its catalog, as 16 hex digits. */
void catalog_cache_hash(const struct server_config *sc, char out[17]);

/* The cached tools at @path if saved under @hash at most @max_age_s seconds
 * ago: a new array, with *generation and *notes (new, or NULL) set; NULL when
 * absent, stale or broken. */
json_t *catalog_cache_load(const char *path, const char *hash, double max_age_s,
			   uint64_t *generation, json_t **notes);

/* Save @tools and @notes (borrowed; @notes may be NULL: catalog_check.h)
 * atomically, creating the folder. Returns 0 or -errno. */
int catalog_cache_save(const char *path, const char *hash, uint64_t generation, json_t *tools,
		       json_t *notes);

#endif
