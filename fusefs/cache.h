/* Rendered file bytes, refcounted so a reply can use them while a catalog
 * change drops them from the cache, and a per-generation cache of them keyed
 * by file name. The generation is the owner's: each server snapshot (one
 * catalog generation) has its own cache, dropped with it, so the cache is
 * keyed by (server, file, generation).
 *
 * A file's size is kept for the cache's life (stat must not re-render); its
 * bytes only until the kernel holds them in its page cache (after a read to
 * the end, or a store): fusefs_cache_drop. A byte budget shared by all caches
 * bounds what is held: past it, bytes are rendered per request, not kept. */
#ifndef MCPFS_FUSEFS_CACHE_H
#define MCPFS_FUSEFS_CACHE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "../common/buf.h"
#include "../common/strmap.h"

struct fusefs_blob {
	atomic_uint refs;
	size_t len;
	char data[]; /* immutable */
};

/* New blob (one reference) holding a copy of @b's bytes, sized to fit (a
 * render buffer has up to twice the room it needs). NULL on ENOMEM. */
struct fusefs_blob *fusefs_blob_from_buf(const struct buf *b);
struct fusefs_blob *fusefs_blob_ref(struct fusefs_blob *blob);
void fusefs_blob_unref(struct fusefs_blob *blob); /* accepts NULL */

struct fusefs_budget {
	atomic_size_t used; /* bytes held by every cache */
	size_t max;
};

/* One file in a cache. */
struct fusefs_cached {
	size_t len;		  /* the rendered size */
	struct fusefs_blob *blob; /* one reference, or NULL once dropped */
	char name[];		  /* the map's key: one allocation a file */
};

struct fusefs_cache {
	pthread_mutex_t lock;
	struct strmap map;	      /* name → struct fusefs_cached (owned); lock */
	struct fusefs_budget *budget; /* borrowed */
	size_t bytes;		      /* what this cache charged to the budget; lock */
};

int fusefs_cache_init(struct fusefs_cache *c, struct fusefs_budget *budget, size_t max_entries);
/* Drops every blob and gives the bytes back to the budget. */
void fusefs_cache_destroy(struct fusefs_cache *c);
/* A new reference to the blob under @name, or NULL. */
struct fusefs_blob *fusefs_cache_get(struct fusefs_cache *c, const char *name);
/* Offer @blob (stolen) for @name. Returns the blob to use (a new reference):
 * the one already cached when another thread got there first, else @blob,
 * kept when the budget allows. The size is kept either way. */
struct fusefs_blob *fusefs_cache_put(struct fusefs_cache *c, const char *name,
				     struct fusefs_blob *blob);
/* Forget the bytes of @name (the kernel has them), keep its size. */
void fusefs_cache_drop(struct fusefs_cache *c, const char *name);

/* Render callback: 0 or -errno, bytes appended to @out. */
typedef int (*fusefs_render_fn)(const void *ctx, const char *name, struct buf *out);

/* The blob for @name from @c, rendering it with @render on a miss. Returns 0
 * with *out a new reference, or -errno (-ENOENT: no such file). */
int fusefs_cache_render(struct fusefs_cache *c, const char *name, fusefs_render_fn render,
			const void *ctx, struct fusefs_blob **out);
/* The size of @name, rendering it only when it was never rendered. 0 or -errno. */
int fusefs_cache_size(struct fusefs_cache *c, const char *name, fusefs_render_fn render,
		      const void *ctx, size_t *size);

/* Ceiling on one rendered file. */
#define FUSEFS_FILE_MAX (64u << 20)

#endif
