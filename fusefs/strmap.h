/* A string-keyed hash map (open addressing, FNV-1a) with a ceiling on its
 * entry count. Not thread-safe: the owner guards it. Keys are copied; values
 * are the owner's (the map never frees them). */
#ifndef MCPFS_FUSEFS_STRMAP_H
#define MCPFS_FUSEFS_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct fusefs_strmap_slot {
	char *key; /* owned; NULL marks an empty slot */
	uint64_t hash;
	void *value;
};

struct fusefs_strmap {
	struct fusefs_strmap_slot *slots; /* owned; cap is a power of two */
	size_t cap;
	size_t count;
	size_t max; /* ceiling on count: puts past it fail with -ENOSPC */
};

uint64_t fusefs_strhash(const char *s, size_t n);

void fusefs_strmap_init(struct fusefs_strmap *m, size_t max);
/* Frees the keys and the table, never the values; accepts a zeroed map. */
void fusefs_strmap_free(struct fusefs_strmap *m);
/* The value stored under @key (@n bytes, not NUL-terminated), or NULL. */
void *fusefs_strmap_get(const struct fusefs_strmap *m, const char *key, size_t n);
/* Store @value under @key unless the key is there already. Returns 0 and sets
 * *existing (may be NULL) to the value found or NULL when @value went in;
 * -ENOMEM, or -ENOSPC past the ceiling. */
int fusefs_strmap_put(struct fusefs_strmap *m, const char *key, size_t n, void *value,
		      void **existing);

#endif
