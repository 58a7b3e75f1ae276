#include "cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct fusefs_blob *fusefs_blob_from_buf(const struct buf *b)
{
	struct fusefs_blob *blob = malloc(sizeof(*blob) + b->len);

	if (!blob)
		return NULL;
	blob->len = b->len;
	if (b->len)
		memcpy(blob->data, b->data, b->len);
	atomic_init(&blob->refs, 1);
	return blob;
}

struct fusefs_blob *fusefs_blob_ref(struct fusefs_blob *blob)
{
	atomic_fetch_add(&blob->refs, 1);
	return blob;
}

void fusefs_blob_unref(struct fusefs_blob *blob)
{
	if (!blob || atomic_fetch_sub(&blob->refs, 1) != 1)
		return;
	free(blob);
}

int fusefs_cache_init(struct fusefs_cache *c, struct fusefs_budget *budget, size_t max_entries)
{
	c->budget = budget;
	c->bytes = 0;
	strmap_init_borrowed(&c->map, max_entries);
	return -pthread_mutex_init(&c->lock, NULL);
}

void fusefs_cache_destroy(struct fusefs_cache *c)
{
	struct fusefs_cached *e;
	size_t i;

	for (i = 0; i < c->map.cap; i++) {
		if (!c->map.slots[i].key)
			continue;
		e = c->map.slots[i].value;
		fusefs_blob_unref(e->blob);
		free(e);
	}
	atomic_fetch_sub(&c->budget->used, c->bytes);
	c->bytes = 0;
	strmap_free(&c->map);
	pthread_mutex_destroy(&c->lock);
}

struct fusefs_blob *fusefs_cache_get(struct fusefs_cache *c, const char *name)
{
	struct fusefs_cached *e;
	struct fusefs_blob *blob = NULL;

	pthread_mutex_lock(&c->lock);
	e = strmap_get(&c->map, name, strlen(name));
	if (e && e->blob)
		blob = fusefs_blob_ref(e->blob);
	pthread_mutex_unlock(&c->lock);
	return blob;
}

/* Charge @n bytes to the budget unless that would pass its ceiling. */
static int budget_take(struct fusefs_budget *b, size_t n)
{
	size_t used = atomic_load(&b->used);

	do {
		if (n > b->max || used > b->max - n)
			return -ENOSPC;
	} while (!atomic_compare_exchange_weak(&b->used, &used, used + n));
	return 0;
}

/* Called with the lock held. */
static void keep(struct fusefs_cache *c, struct fusefs_cached *e, struct fusefs_blob *blob)
{
	if (budget_take(c->budget, blob->len))
		return;
	e->blob = fusefs_blob_ref(blob);
	c->bytes += blob->len;
}

struct fusefs_blob *fusefs_cache_put(struct fusefs_cache *c, const char *name,
				     struct fusefs_blob *blob)
{
	struct fusefs_cached *e, *fresh = NULL;
	struct fusefs_blob *out = blob;

	pthread_mutex_lock(&c->lock);
	e = strmap_get(&c->map, name, strlen(name));
	if (e && e->blob) {
		/* Another thread rendered it first: everybody uses one copy. */
		out = fusefs_blob_ref(e->blob);
		pthread_mutex_unlock(&c->lock);
		fusefs_blob_unref(blob);
		return out;
	}
	if (!e) {
		size_t n = strlen(name);

		fresh = calloc(1, sizeof(*fresh) + n + 1);
		if (fresh)
			memcpy(fresh->name, name, n);
		if (fresh && strmap_put(&c->map, fresh->name, n, fresh, NULL) == 0)
			e = fresh;
		else
			free(fresh);
	}
	if (e) {
		e->len = blob->len;
		keep(c, e, blob);
	}
	pthread_mutex_unlock(&c->lock);
	return out;
}

void fusefs_cache_drop(struct fusefs_cache *c, const char *name)
{
	struct fusefs_blob *blob = NULL;
	struct fusefs_cached *e;

	pthread_mutex_lock(&c->lock);
	e = strmap_get(&c->map, name, strlen(name));
	if (e && e->blob) {
		blob = e->blob;
		e->blob = NULL;
		c->bytes -= blob->len;
		atomic_fetch_sub(&c->budget->used, blob->len);
	}
	pthread_mutex_unlock(&c->lock);
	fusefs_blob_unref(blob);
}

int fusefs_cache_render(struct fusefs_cache *c, const char *name, fusefs_render_fn render,
			const void *ctx, struct fusefs_blob **out)
{
	struct fusefs_blob *blob = fusefs_cache_get(c, name);
	struct buf b;
	int rc;

	if (blob) {
		*out = blob;
		return 0;
	}
	buf_init(&b, FUSEFS_FILE_MAX);
	rc = render(ctx, name, &b);
	if (rc) {
		buf_free(&b);
		return rc;
	}
	blob = fusefs_blob_from_buf(&b);
	buf_free(&b);
	if (!blob)
		return -ENOMEM;
	*out = fusefs_cache_put(c, name, blob);
	return 0;
}

int fusefs_cache_size(struct fusefs_cache *c, const char *name, fusefs_render_fn render,
		      const void *ctx, size_t *size)
{
	struct fusefs_cached *e;
	struct fusefs_blob *blob;
	int rc;

	pthread_mutex_lock(&c->lock);
	e = strmap_get(&c->map, name, strlen(name));
	if (e)
		*size = e->len;
	pthread_mutex_unlock(&c->lock);
	if (e)
		return 0;
	rc = fusefs_cache_render(c, name, render, ctx, &blob);
	if (rc)
		return rc;
	*size = blob->len;
	fusefs_blob_unref(blob);
	return 0;
}
