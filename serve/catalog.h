/* The tree as the fronts show it: the same codegen bytes as the mount and
 * `mcpfs generate` (one renderer), addressed by tree path ("README.md",
 * "servers/<ident>/<tool>.py"). A server's folder is rendered from the hub's
 * catalog and rebuilt when the hub's generation for it moves on, so resources
 * and tool definitions are always current. Thread-safe. */
#ifndef MCPFS_SERVE_CATALOG_H
#define MCPFS_SERVE_CATALOG_H

#include <jansson.h>
#include <stddef.h>

#include "../codegen/codegen.h"
#include "../common/buf.h"
#include "../common/err.h"

struct hub;
struct serve_catalog;

/* @h is borrowed and outlives the catalog. NULL when memory runs out. */
struct serve_catalog *serve_catalog_new(struct hub *h);
void serve_catalog_free(struct serve_catalog *c); /* accepts NULL */

/* Borrowed; valid for the catalog's life. */
const struct cg_root *serve_catalog_root(const struct serve_catalog *c);

/* Render the file at tree path @relpath into @out. Returns 0, -ENOENT (no
 * such file), -EISDIR, or -ENOMEM/-E2BIG. May start the server. */
int serve_catalog_render(struct serve_catalog *c, const char *relpath, struct buf *out);

/* Every file of the tree as a new array of tree paths, top files first, then
 * each server's folder in config order. Starts servers as needed. NULL when
 * memory runs out. */
json_t *serve_catalog_files(struct serve_catalog *c);

/* The server index of a configured name or a folder identifier, or -1. */
long serve_catalog_server(const struct serve_catalog *c, const char *name);

/* The tool identifier (file stem) of server @i's tool @tool, given by its MCP
 * name or its identifier, into @out (@n bytes). Returns 0, -ENOENT, or the
 * catalog's error with @err (the server could not be reached). */
int serve_catalog_tool_ident(struct serve_catalog *c, size_t i, const char *tool, char *out,
			     size_t n, struct err *err);

#endif
