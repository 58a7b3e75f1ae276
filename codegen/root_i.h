/* The root's fields, shared with server.c (a server folder copies what it
 * needs from its root). */
#ifndef MCPFS_CODEGEN_ROOT_I_H
#define MCPFS_CODEGEN_ROOT_I_H

#include <stddef.h>

#include "codegen.h"

struct cg_root {
	unsigned langs;
	const struct cg_templates *t; /* borrowed; outlives the root */
	size_t n;
	char **names;  /* owned, as configured */
	char **idents; /* owned, folder names */
	struct cg_entry top[2];
	struct cg_entry *servers_entries; /* owned array; names borrowed from idents */
	size_t nservers_entries;
};

#endif
