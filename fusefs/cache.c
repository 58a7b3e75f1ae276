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
	fusefs_strmap_init(&c->map, max_entries);
	return -pthread_mutex_init(&c->lock, NULL);
}

void fusefs_cache_destroy(struct fusefs_cache *c)
{
	size_t i;

	for (i = 0; i < c->map.cap; i++)
		if (c->map.slots[i].key)
			fusefs_blob_unref(c->map.slots[i].value);
	atomic_fetch_sub(&c->budget->used, c->bytes);
	c->bytes = 0;
	fusefs_strmap_free(&c->map);
	pthread_mutex_destroy(&c->lock);
}

struct fusefs_blob *fusefs_cache_get(struct fusefs_cache *c, const char *name)
{
	struct fusefs_blob *blob;

	pthread_mutex_lock(&c->lock);
	blob = fusefs_strmap_get(&c->map, name, strlen(name));
	if (blob)
		fusefs_blob_ref(blob);
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

struct fusefs_blob *fusefs_cache_put(struct fusefs_cache *c, const char *name,
				     struct fusefs_blob *blob)
{
	void *existing = NULL;
	size_t cost = blob->len + strlen(name) + sizeof(*blob);

	pthread_mutex_lock(&c->lock);
	existing = fusefs_strmap_get(&c->map, name, strlen(name));
	if (existing) {
		fusefs_blob_ref(existing);
		pthread_mutex_unlock(&c->lock);
		fusefs_blob_unref(blob);
		return existing;
	}
	if (!budget_take(c->budget, cost)) {
		if (fusefs_strmap_put(&c->map, name, strlen(name), blob, NULL) == 0) {
			c->bytes += cost;
			fusefs_blob_ref(blob);
		} else {
			atomic_fetch_sub(&c->budget->used, cost);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return blob;
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
