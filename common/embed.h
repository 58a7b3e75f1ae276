/* Files embedded in the binary at build time by scripts/embed.sh. */
#ifndef MCPFS_COMMON_EMBED_H
#define MCPFS_COMMON_EMBED_H

#include <stddef.h>

struct embedded_file {
	const char *name; /* base name; NULL ends the table */
	const char *data; /* NUL-terminated for convenience; len excludes it */
	size_t len;
};

/* templates/ (codegen), servers/default.json (config), executor/runtime/
 * (files the jail needs, e.g. the TypeScript loader), templates/workspace/
 * (files a workspace is provisioned with, e.g. skills/__init__.py). */
extern const struct embedded_file cg_embedded_files[];
extern const struct embedded_file config_embedded_files[];
extern const struct embedded_file executor_embedded_files[];
extern const struct embedded_file ws_embedded_files[];

#endif
