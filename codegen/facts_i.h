/* What a schema and a tool say beyond their types, as short sentences a
 * model reads in a docstring or JSDoc: allowed values, ranges, lengths,
 * patterns, formats, item counts, defaults, and the tool's annotations.
 * Values are written in the language's own syntax (Python: True, None). The
 * text is plain: the emitters escape it for their comment syntax. */
#ifndef MCPFS_CODEGEN_FACTS_I_H
#define MCPFS_CODEGEN_FACTS_I_H

#include <jansson.h>
#include <stdbool.h>

#include "../common/buf.h"

enum cg_syntax {
	CG_SYNTAX_PY,
	CG_SYNTAX_TS,
};

/* @v as a literal of @syn, at most about @max bytes (cut with "..."). */
void cg_literal(struct buf *b, json_t *v, enum cg_syntax syn, size_t max);
/* The constraints of a property's @schema, then its default, each sentence
 * starting with a space (" From 1 to 10.", " Allowed: \"a\", \"b\"."). */
void cg_facts_schema(struct buf *b, json_t *schema, enum cg_syntax syn);
/* The tool's annotations as one sentence ("Hints from the server: read-only,
 * closed world."), nothing when it has none. */
void cg_facts_annotations(struct buf *b, json_t *tool);
/* Whether text ending in @last needs a full stop to end its sentence: after
 * a word, not after a code fence, a list or a colon. */
bool cg_needs_stop(char last);
/* Append @s (@len bytes) without trailing white space, and a full stop when
 * its sentence has none. */
void cg_sentence(struct buf *b, const char *s, size_t len);

#endif
