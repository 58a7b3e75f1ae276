/* What a server offers beside its tools, from its catalog's notes
 * (servers/catalog_check.h): servers/<server>/_resources.md (resources and
 * resource templates) and _prompts.md (prompts with their arguments), and
 * the line of the server's README that points to them. */
#ifndef MCPFS_CODEGEN_OFFERS_I_H
#define MCPFS_CODEGEN_OFFERS_I_H

#include <jansson.h>
#include <stdbool.h>

#include "../common/buf.h"
#include "codegen.h"

#define CG_RESOURCES_FILE "_resources.md"
#define CG_PROMPTS_FILE "_prompts.md"

/* Whether @notes (may be NULL) list a resource or a resource template. */
bool cg_offers_resources(const json_t *notes);
/* Whether @notes list a prompt. */
bool cg_offers_prompts(const json_t *notes);

/* The README's paragraph on them; nothing when the server offers neither.
 * Returns the buffer's error. */
int cg_offers_readme(struct buf *out, const json_t *notes);

/* The bytes of _resources.md / _prompts.md for server @name (as
 * configured). 0, -ENOENT when it offers none, -ENOMEM, -E2BIG. */
int cg_render_resources(const struct cg_templates *t, const char *name, const json_t *notes,
			struct buf *out);
int cg_render_prompts(const struct cg_templates *t, const char *name, const json_t *notes,
		      struct buf *out);

#endif
