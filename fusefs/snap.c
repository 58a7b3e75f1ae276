#include "snap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A folder holds three files per tool and a few more; the cache never needs
 * more entries than that. */
#define SNAP_CACHE_ENTRIES (4u << 20)

struct fusefs_snap *fusefs_snap_new(const struct cg_root *r, size_t index,
				    struct catalog_text *tools, uint64_t generation,
				    const char *status, const char *detail, bool provisional,
				    struct fusefs_budget *budget)
{
	struct fusefs_snap *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	atomic_init(&s->refs, 1);
	s->ok = tools != NULL;
	s->provisional = provisional;
	s->generation = generation;
	clock_gettime(CLOCK_REALTIME, &s->mtime);
	if (!s->ok) {
		s->status = strdup(status ? status : "no catalog");
		if (!s->status)
			goto out_free;
	}
	s->cg = cg_server_new_text(r, index, tools, s->status, detail);
	if (!s->cg)
		goto out_free;
	if (fusefs_cache_init(&s->cache, budget, SNAP_CACHE_ENTRIES))
		goto out_cg;
	return s;
out_cg:
	cg_server_free(s->cg);
out_free:
	free(s->status);
	free(s);
	return NULL;
}

struct fusefs_snap *fusefs_snap_ref(struct fusefs_snap *s)
{
	atomic_fetch_add(&s->refs, 1);
	return s;
}

void fusefs_snap_unref(struct fusefs_snap *s)
{
	if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	fusefs_cache_destroy(&s->cache);
	cg_server_free(s->cg);
	free(s->status);
	free(s);
}

static int render(const void *ctx, const char *name, struct buf *out)
{
	return cg_server_render(ctx, name, out);
}

int fusefs_snap_read(struct fusefs_snap *s, const char *name, struct fusefs_blob **out)
{
	return fusefs_cache_render(&s->cache, name, render, s->cg, out);
}

int fusefs_snap_size(struct fusefs_snap *s, const char *name, size_t *size)
{
	return fusefs_cache_size(&s->cache, name, render, s->cg, size);
}
