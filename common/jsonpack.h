/* jansson values as MessagePack (msgpack-c): what mcpfs holds for long and
 * rebuilds often (a catalog's tools, common/catalog_text.h). Rebuilding a
 * tree from MessagePack costs a fraction of lexing it from JSON text, and
 * the bytes are about as many. */
#ifndef MCPFS_COMMON_JSONPACK_H
#define MCPFS_COMMON_JSONPACK_H

#include <jansson.h>
#include <msgpack.h>
#include <stddef.h>

/* Append @v packed to @sb. 0, or -1 when out of memory (@sb then holds part
 * of it: the caller drops it) or @v is no JSON value. */
int jsonpack_append(msgpack_sbuffer *sb, const json_t *v);
/* The value packed in the @len bytes at @buf: new, or NULL when out of
 * memory or they are not exactly one value jsonpack_append wrote (cut
 * short, bytes left over, a type JSON has not, a string not UTF-8, a map
 * key not a string). */
json_t *jsonpack_unpack(const char *buf, size_t len);

#endif
