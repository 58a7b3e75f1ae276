/* A large server's README lists its tools by group, not one line each: the
 * first word of each tool's name, how many, the words that follow it, one
 * example. A model reads a few KB for any catalog size, then searches. */
#ifndef MCPFS_CODEGEN_GROUPS_I_H
#define MCPFS_CODEGEN_GROUPS_I_H

#include <stddef.h>

#include "../common/buf.h"

/* Servers with more tools than this get groups; smaller ones one line per tool. */
#define CG_README_LIST_MAX 200

/* Append the group lines of the @n tool identifiers @idents (sorted) to @out,
 * with how to find a tool among them in folder servers/@ident. Errors are
 * left in @out (buf_error). */
void cg_readme_groups(struct buf *out, const char *ident, const char *const *idents, size_t n);

#endif
