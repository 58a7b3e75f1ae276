/* JSON text of a value, indented by two spaces, keys in insertion order. */
#ifndef MCPFS_CODEGEN_JSON_OUT_I_H
#define MCPFS_CODEGEN_JSON_OUT_I_H

#include <jansson.h>

#include "../common/buf.h"

/* Append @v and a newline. 0, -ENOMEM or -E2BIG. */
int cg_json_pretty(struct buf *b, json_t *v);

#endif
