#include "strmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint64_t strhash_add(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

uint64_t strhash(const char *s, size_t n)
{
	return strhash_add(STRHASH_INIT, s, n);
}

void strmap_init(struct strmap *m, size_t max)
{
	m->slots = NULL;
	m->cap = 0;
	m->count = 0;
	m->max = max;
	m->borrowed = false;
}

void strmap_init_borrowed(struct strmap *m, size_t max)
{
	strmap_init(m, max);
	m->borrowed = true;
}

void strmap_free(struct strmap *m)
{
	size_t i;

	for (i = 0; !m->borrowed && i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	m->slots = NULL;
	m->cap = 0;
	m->count = 0;
}

static struct strmap_slot *probe(const struct strmap *m, const char *key, size_t n, uint64_t hash)
{
	size_t i = hash & (m->cap - 1);

	for (;;) {
		struct strmap_slot *s = &m->slots[i];

		if (!s->key)
			return s;
		if (s->hash == hash && !strncmp(s->key, key, n) && s->key[n] == '\0')
			return s;
		i = (i + 1) & (m->cap - 1);
	}
}

void *strmap_get(const struct strmap *m, const char *key, size_t n)
{
	struct strmap_slot *s;

	if (!m->cap)
		return NULL;
	s = probe(m, key, n, strhash(key, n));
	return s->key ? s->value : NULL;
}

/* Keep the load under 1/2 so probes stay short. */
static int grow(struct strmap *m)
{
	struct strmap_slot *old = m->slots, *s;
	size_t oldcap = m->cap, i, cap = m->cap ? m->cap * 2 : 64;

	m->slots = calloc(cap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -ENOMEM;
	}
	m->cap = cap;
	for (i = 0; i < oldcap; i++) {
		if (!old[i].key)
			continue;
		s = probe(m, old[i].key, strlen(old[i].key), old[i].hash);
		*s = old[i];
	}
	free(old);
	return 0;
}

int strmap_put(struct strmap *m, const char *key, size_t n, void *value, void **existing)
{
	struct strmap_slot *s;
	uint64_t hash = strhash(key, n);
	int rc;

	if (m->cap) {
		s = probe(m, key, n, hash);
		if (s->key) {
			if (existing)
				*existing = s->value;
			return 0;
		}
	}
	if (m->count >= m->max)
		return -ENOSPC;
	if ((m->count + 1) * 2 > m->cap) {
		rc = grow(m);
		if (rc)
			return rc;
	}
	s = probe(m, key, n, hash);
	s->key = m->borrowed ? (char *)key : strndup(key, n);
	if (!s->key)
		return -ENOMEM;
	s->hash = hash;
	s->value = value;
	m->count++;
	if (existing)
		*existing = NULL;
	return 0;
}

/* Backward-shift deletion (linear probing without tombstones): each entry
 * after the hole moves into it unless its home slot lies cyclically between
 * the hole and where it sits. */
void *strmap_del(struct strmap *m, const char *key, size_t n)
{
	struct strmap_slot *s;
	size_t mask = m->cap - 1, i, j, home;
	void *value;

	if (!m->cap)
		return NULL;
	s = probe(m, key, n, strhash(key, n));
	if (!s->key)
		return NULL;
	value = s->value;
	if (!m->borrowed)
		free(s->key);
	i = (size_t)(s - m->slots);
	for (j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		home = m->slots[j].hash & mask;
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].key = NULL;
	m->slots[i].value = NULL;
	m->count--;
	return value;
}
