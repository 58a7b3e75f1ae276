#include "arena_i.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE (16u << 10)

struct cg_arena_chunk {
	struct cg_arena_chunk *next;
	size_t size; /* usable bytes in data */
	size_t off;
	max_align_t data[];
};

void cg_arena_init(struct cg_arena *a)
{
	a->head = NULL;
	a->used = 0;
}

void cg_arena_free(struct cg_arena *a)
{
	struct cg_arena_chunk *c, *next;

	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
	a->used = 0;
}

void *cg_arena_alloc(struct cg_arena *a, size_t n)
{
	struct cg_arena_chunk *c = a->head;
	size_t need = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	size_t size;
	void *p;

	if (need == 0)
		need = sizeof(max_align_t);
	if (need > CG_ARENA_MAX - a->used)
		return NULL;
	if (!c || c->size - c->off < need) {
		size = need > CHUNK_SIZE ? need : CHUNK_SIZE;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->off = 0;
		c->next = a->head;
		a->head = c;
	}
	p = (char *)c->data + c->off;
	c->off += need;
	a->used += need;
	memset(p, 0, n);
	return p;
}

char *cg_arena_strndup(struct cg_arena *a, const char *s, size_t n)
{
	char *p = cg_arena_alloc(a, n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *cg_arena_strdup(struct cg_arena *a, const char *s)
{
	return cg_arena_strndup(a, s, strlen(s));
}
