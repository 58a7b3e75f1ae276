/* A server's tool catalog held compactly, one MessagePack buffer with each
 * tool's slice and name (common/jsonpack.h), instead of a jansson tree: a
 * tool of ~730 bytes of JSON costs ~4 KB as a tree (objects, hash tables,
 * strings), and a 10,000-tool catalog is held for the daemon's life. Trees
 * are rebuilt when asked for: the whole array (catalog_text_tools) or one
 * tool (catalog_text_at, for each file rendered; catalog_text_tool, for each
 * call), which costs a fraction of parsing JSON text. Immutable once built,
 * so the hub, each mount's snapshot and the codegen share one copy
 * (catalog_text_subset for the tools a customer is shown). */
#ifndef MCPFS_COMMON_CATALOG_TEXT_H
#define MCPFS_COMMON_CATALOG_TEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct catalog_text;

/* The compact form of @tools (an array of Tool objects, borrowed), or NULL
 * when out of memory or @tools is not an array. One reference. */
struct catalog_text *catalog_text_new(json_t *tools);
/* The tools of @c that @shown holds, sharing @c's buffer: @all is the array
 * catalog_text_tools(@c) gave, and @shown a subset of its elements (the same
 * objects) in the same order. A new reference to @c when @shown is @all;
 * NULL when out of memory or @shown holds another object. */
struct catalog_text *catalog_text_subset(struct catalog_text *c, json_t *all, json_t *shown);
/* Another reference to @c (may be NULL), for a holder that may outlive the
 * one that gave it; each reference is dropped with catalog_text_free. */
struct catalog_text *catalog_text_ref(struct catalog_text *c);
void catalog_text_free(struct catalog_text *c);
size_t catalog_text_count(const struct catalog_text *c);
/* Tool @i's name, or NULL when it has no string name. */
const char *catalog_text_name(const struct catalog_text *c, size_t i);
/* Tool @i's Tool object, rebuilt: new, or NULL when out of memory. */
json_t *catalog_text_at(const struct catalog_text *c, size_t i);
/* Whether @a and @b hold the same tools, byte for byte. Either may be NULL. */
bool catalog_text_same(const struct catalog_text *a, const struct catalog_text *b);
/* The whole array, rebuilt: new, or NULL when out of memory. */
json_t *catalog_text_tools(const struct catalog_text *c);
/* The tool named @name, rebuilt: new, or NULL when none is (or out of memory). */
json_t *catalog_text_tool(const struct catalog_text *c, const char *name);

#endif
