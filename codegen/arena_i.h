/* A bump allocator for one render: every node of a schema's type tree lives
 * here and is released at once. Capped so a hostile schema cannot exhaust
 * memory. */
#ifndef MCPFS_CODEGEN_ARENA_I_H
#define MCPFS_CODEGEN_ARENA_I_H

#include <stddef.h>

#define CG_ARENA_MAX (64u << 20)

struct cg_arena_chunk;

struct cg_arena {
	struct cg_arena_chunk *head; /* owned list, newest first */
	size_t used;		     /* bytes handed out, against CG_ARENA_MAX */
};

void cg_arena_init(struct cg_arena *a);
void cg_arena_free(struct cg_arena *a);
/* Zeroed memory, or NULL past the cap or when malloc fails. */
void *cg_arena_alloc(struct cg_arena *a, size_t n);
/* A copy of @n bytes of @s plus a NUL, or NULL. */
char *cg_arena_strndup(struct cg_arena *a, const char *s, size_t n);
char *cg_arena_strdup(struct cg_arena *a, const char *s);

#endif
