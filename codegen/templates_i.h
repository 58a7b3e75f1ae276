/* Template lookup and filling: "{{key}}" in a template is replaced by the
 * value of key; an unknown key is kept as written, so an override written
 * for a newer mcpfs still renders. */
#ifndef MCPFS_CODEGEN_TEMPLATES_I_H
#define MCPFS_CODEGEN_TEMPLATES_I_H

#include <stddef.h>

#include "../common/buf.h"
#include "codegen.h"

struct cg_kv {
	const char *key;
	const char *value; /* may be NULL: empty */
	size_t len;	   /* of value */
};

/* The template called @name; NULL (and *len 0) when the set has none. */
const char *cg_tmpl_get(const struct cg_templates *t, const char *name, size_t *len);
/* Append template @name filled from @kv. -ENOENT when there is no such template. */
int cg_tmpl_fill(const struct cg_templates *t, const char *name, const struct cg_kv *kv, size_t n,
		 struct buf *out);

#endif
