/* JSON Schema to a small type tree both emitters (Python, TypeScript) read.
 *
 * Covered: $ref to any local JSON pointer ($defs, definitions, "#"),
 * recursive ones included; anyOf/oneOf (unions), allOf (merged objects);
 * type arrays and null; enum/const of any JSON kind; properties, required
 * (names with no property too), additionalProperties, patternProperties;
 * items, prefixItems (and draft-07 array items/additionalItems); boolean and
 * empty schemas. Anything else, and anything past the depth or size caps,
 * becomes CG_T_ANY: a schema never makes conversion fail, only memory does. */
#ifndef MCPFS_CODEGEN_SCHEMA_I_H
#define MCPFS_CODEGEN_SCHEMA_I_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "arena_i.h"

enum cg_tkind {
	CG_T_ANY,
	CG_T_NEVER,
	CG_T_NULL,
	CG_T_BOOL,
	CG_T_INT,
	CG_T_NUM,
	CG_T_STR,
	CG_T_LIT,    /* one JSON value: lit */
	CG_T_ARRAY,  /* item */
	CG_T_TUPLE,  /* elems, then item (NULL: no more elements) */
	CG_T_MAP,    /* string keys to item */
	CG_T_OBJECT, /* props, extra (NULL: no other keys described); declared as name */
	CG_T_UNION,  /* elems, at least two, none a union */
	CG_T_REF,    /* the declaration called name */
};

struct cg_type;

struct cg_prop {
	const char *key; /* the property name as in the schema; borrowed */
	bool required;
	struct cg_type *type;
	const char *description; /* borrowed, or NULL */
	size_t description_len;	 /* NUL bytes included */
	json_t *schema;		 /* borrowed: the property's schema (defaults, formats) */
};

struct cg_type {
	enum cg_tkind kind;
	json_t *lit; /* CG_T_LIT; borrowed */
	struct cg_type *item;
	struct cg_type **elems;
	size_t nelems;
	struct cg_prop *props;
	size_t nprops;
	struct cg_type *extra;
	const char *name;	 /* CG_T_OBJECT, CG_T_REF */
	const char *description; /* CG_T_OBJECT; borrowed or NULL */
	size_t description_len;
};

/* A named type the file declares: an object (TypedDict / interface) when
 * type->kind is CG_T_OBJECT and type->name == name, else an alias. */
struct cg_decl {
	const char *name;
	struct cg_type *type;
};

#define CG_SCHEMA_MAX_DECLS 512

struct cg_def; /* a $ref target, internal to schema.c */

/* A schema built during conversion (allOf merged) that types borrow from. */
struct cg_kept {
	json_t *json;
	struct cg_kept *next;
};

struct cg_schema {
	struct cg_arena *arena; /* borrowed; everything below lives in it */
	const char *prefix;	/* CamelCase type-name prefix ("GetSum") */
	struct cg_decl decls[CG_SCHEMA_MAX_DECLS];
	size_t ndecls;
	struct cg_def *defs; /* arena list */
	const char **names;  /* names taken, arena array of CG_SCHEMA_MAX_DECLS */
	size_t nnames;
	struct cg_kept *kept; /* owned references, dropped by cg_schema_release */
	size_t nodes;	      /* against a cap */
	bool oom;
};

void cg_schema_init(struct cg_schema *s, struct cg_arena *a, const char *prefix);
/* Convert @schema (borrowed, a document of its own for $ref) and declare its
 * top under the name prefix + @suffix when it is an object. Returns the type,
 * or NULL only when memory ran out. */
struct cg_type *cg_schema_top(struct cg_schema *s, json_t *schema, const char *suffix);
/* Drop what the conversion kept alive (the arena is the caller's to free). */
void cg_schema_release(struct cg_schema *s);
/* Follow a CG_T_REF to the type it names (others are returned as they are). */
const struct cg_type *cg_schema_deref(const struct cg_schema *s, const struct cg_type *t);

#endif
