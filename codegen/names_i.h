/* Name rules: MCP names (server and tool names, property names) to
 * identifiers valid in Python and TypeScript, as file names and as symbols.
 *
 * An identifier is lower snake case ASCII ([a-z0-9_], starting with a letter,
 * at most CG_IDENT_MAX bytes before a collision suffix), never a keyword or
 * builtin of either language, never a name the tree itself uses (index,
 * readme). Collisions get _2, _3, ... in a fixed order, so the result
 * depends only on the set of names, never on the order they came in. */
#ifndef MCPFS_CODEGEN_NAMES_I_H
#define MCPFS_CODEGEN_NAMES_I_H

#include <stdbool.h>
#include <stddef.h>

#define CG_IDENT_MAX 64
#define CG_IDENT_BUF (CG_IDENT_MAX + 16)

/* The identifier for @name before collisions; @prefix ("tool", "server",
 * "arg") starts it when it would start with a digit. @out holds CG_IDENT_BUF. */
void cg_ident_base(const char *name, const char *prefix, char *out);

/* Unique identifiers for @n names: out[i] (new, free with free()) for
 * names[i]. Returns 0 or -ENOMEM (then nothing is left allocated). */
int cg_idents_assign(const char *const *names, size_t n, const char *prefix, char **out);

/* A Python keyword (hard keywords only: soft ones are valid names). */
bool cg_py_keyword(const char *s);
/* A keyword, builtin or tree name in either language (see above). */
bool cg_ident_reserved(const char *s);
/* [A-Za-z_][A-Za-z0-9_]* */
bool cg_ascii_ident(const char *s);

#endif
