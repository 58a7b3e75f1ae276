/* The one string-keyed hash map (open addressing, FNV-1a) with a ceiling on
 * its entry count, and its hash. Not thread-safe: the owner guards it. Keys
 * are copied, or borrowed from the values where they hold them
 * (strmap_init_borrowed: a mount's inodes, one per file walked); values are
 * the owner's (the map never frees them). */
#ifndef MCPFS_COMMON_STRMAP_H
#define MCPFS_COMMON_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FNV-1a's offset basis: the hash of no bytes. */
#define STRHASH_INIT 14695981039346656037ULL

/* FNV-1a of @n bytes at @p, continuing from @h: a key made of several
 * fields hashes them in turn, starting from STRHASH_INIT. */
uint64_t strhash_add(uint64_t h, const void *p, size_t n);
/* FNV-1a of @n bytes of @s. Stable across runs: file names may carry it. */
uint64_t strhash(const char *s, size_t n);

struct strmap_slot {
	char *key; /* owned or borrowed; NULL marks an empty slot */
	uint64_t hash;
	void *value;
};

struct strmap {
	struct strmap_slot *slots; /* owned; cap is a power of two */
	size_t cap;
	size_t count;
	size_t max;    /* ceiling on count: puts past it fail with -ENOSPC */
	bool borrowed; /* keys are the caller's */
};

void strmap_init(struct strmap *m, size_t max);
/* A map whose keys are not copied: each key given to strmap_put must be
 * NUL-terminated after its @n bytes and outlive its entry. */
void strmap_init_borrowed(struct strmap *m, size_t max);
/* Frees the keys and the table, never the values; accepts a zeroed map. */
void strmap_free(struct strmap *m);
/* The value stored under @key (@n bytes, not NUL-terminated), or NULL. */
void *strmap_get(const struct strmap *m, const char *key, size_t n);
/* Store @value under @key unless the key is there already. Returns 0 and sets
 * *existing (may be NULL) to the value found or NULL when @value went in;
 * -ENOMEM, or -ENOSPC past the ceiling. */
int strmap_put(struct strmap *m, const char *key, size_t n, void *value, void **existing);
/* Remove @key; returns its value, or NULL when absent. The table keeps its
 * size: a map that shrinks and grows again reuses its slots. */
void *strmap_del(struct strmap *m, const char *key, size_t n);

#endif
