/* One tool, ready to render: its names and its schemas converted to types. */
#ifndef MCPFS_CODEGEN_TOOL_I_H
#define MCPFS_CODEGEN_TOOL_I_H

#include <jansson.h>
#include <stdbool.h>

#include "../common/buf.h"
#include "arena_i.h"
#include "codegen.h"
#include "schema_i.h"

/* Scratch buffers for one file's pieces. */
#define CG_PIECE_MAX (32u << 20)

struct cg_tool_in {
	const char *server_name;  /* as configured */
	const char *server_ident; /* folder name */
	const char *name;	  /* the MCP tool name */
	const char *ident;	  /* file and function name */
	json_t *tool;		  /* borrowed Tool object */
	const struct cg_templates *t;
};

struct cg_tool_types {
	struct cg_arena arena;
	struct cg_schema schema;
	struct cg_type *input;		 /* the inputSchema's type */
	const struct cg_type *input_obj; /* that type when it is an object, else NULL */
	struct cg_type *output;		 /* NULL: the tool has no outputSchema */
};

/* 0 or -ENOMEM; free with cg_tool_types_free either way. */
int cg_tool_types_build(const struct cg_tool_in *in, struct cg_tool_types *tt);
void cg_tool_types_free(struct cg_tool_types *tt);
/* Whether the tool's result has a type of its own to cast to: an
 * outputSchema that converts to more than "any". */
bool cg_output_typed(const struct cg_tool_types *tt);

/* The tool's title (title, else annotations.title), or NULL; its length
 * (NUL bytes included) in *len. Borrowed. */
const char *cg_tool_title(json_t *tool, size_t *len);
/* The tool's description, or ""; its length in *len. Borrowed. */
const char *cg_tool_description(json_t *tool, size_t *len);
/* Compact JSON of @schema, at most @max bytes (cut with "..."), for docs. */
int cg_schema_snippet(struct buf *b, json_t *schema, size_t max);

int cg_render_tool_py(const struct cg_tool_in *in, struct buf *out);
int cg_render_tool_ts(const struct cg_tool_in *in, struct buf *out);

#endif
