/* Codegen: MCP tools (JSON) in, file bytes out. Pure: no I/O, no clocks,
 * deterministic; the static tree (tree/) and the mount (fusefs/) are two sinks
 * of these same functions, so their bytes are identical.
 *
 * The tree, relative to its top:
 *   README.md                      how to import and call; one line per server
 *   servers/__init__.py            package marker
 *   servers/_runtime.py, _runtime.ts  the shims generated code calls
 *   servers/<server>/README.md     one line per tool
 *   servers/<server>/__init__.py, index.ts   re-exports
 *   servers/<server>/<tool>.py|.ts|.json
 * The top level depends only on the server names, never on a catalog, so it
 * renders without waiting for any server. */
#ifndef MCPFS_CODEGEN_H
#define MCPFS_CODEGEN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/buf.h"
#include "../common/catalog_text.h"
#include "../common/err.h"

enum cg_lang {
	CG_LANG_PY = 1u << 0,
	CG_LANG_TS = 1u << 1,
	CG_LANG_ALL = CG_LANG_PY | CG_LANG_TS,
};

struct cg_entry {
	const char *name; /* one path component */
	bool is_dir;
};

/* The templates and runtime shims: embedded at build time, each file
 * overridable from a folder (--templates DIR). */
struct cg_templates;
const struct cg_templates *cg_templates_embedded(void); /* borrowed, static */
/* New set: files in @dir replace the embedded ones of the same name. NULL
 * with @err (EXIT_USAGE) when @dir cannot be read. */
struct cg_templates *cg_templates_load(const char *dir, struct err *err);
void cg_templates_free(struct cg_templates *t); /* accepts NULL and the embedded set */

/* Parse "py,ts" / "py" / "ts" / "python,typescript". Returns a cg_lang mask or 0. */
unsigned cg_langs_parse(const char *s);

/* The top: server names → folder identifiers (unique, valid in Python and
 * TypeScript, deterministic). Everything is copied; nothing is borrowed. */
struct cg_root;
struct cg_root *cg_root_new(const char *const *server_names, size_t n, unsigned langs,
			    const struct cg_templates *t);
void cg_root_free(struct cg_root *r);
size_t cg_root_nservers(const struct cg_root *r);
const char *cg_root_server_name(const struct cg_root *r, size_t i);  /* as configured */
const char *cg_root_server_ident(const struct cg_root *r, size_t i); /* folder name */
/* Index of the server whose folder is @ident, or -1. */
long cg_root_find(const struct cg_root *r, const char *ident);
/* The entries of @dir ("" for the top, "servers" for the servers folder);
 * for "servers" the server folders come last, in cg_root order. Borrowed
 * array, valid for the root's life. Returns 0 or -ENOENT. */
int cg_root_list(const struct cg_root *r, const char *dir, const struct cg_entry **out, size_t *n);
/* Bytes of a top-level file ("README.md", "servers/_runtime.py", ...).
 * Returns 0, -ENOENT, or -ENOMEM/-E2BIG from the buffer. */
int cg_root_render(const struct cg_root *r, const char *relpath, struct buf *out);

/* One server's folder. @tools is the array of MCP Tool objects (borrowed;
 * kept compactly, common/catalog_text.h, and each tool rebuilt for each
 * file rendered), or NULL when the catalog cannot be had, in which case
 * @status says why in one line (and @detail, may be NULL, the server log's
 * last lines) and the folder holds only a README saying so. */
struct cg_server;
struct cg_server *cg_server_new(const struct cg_root *r, size_t server_index, json_t *tools,
				const char *status, const char *detail);
/* The same over a catalog already held compactly (a reference is taken, so a
 * mount's snapshot shares the hub's copy), or NULL as above. */
struct cg_server *cg_server_new_text(const struct cg_root *r, size_t server_index,
				     struct catalog_text *tools, const char *status,
				     const char *detail);
void cg_server_free(struct cg_server *s);
/* What the hub noted of the catalog (servers/catalog_check.h: the server's
 * "instructions", the tools it skipped and why), for the README; borrowed by
 * reference like @tools. Call before the first render. NULL: none. */
void cg_server_set_notes(struct cg_server *s, json_t *notes);
/* Entries of servers/<ident>/, sorted by name. Borrowed. */
int cg_server_list(const struct cg_server *s, const struct cg_entry **out, size_t *n);
/* Bytes of servers/<ident>/<name>. 0, -ENOENT, -ENOMEM, -E2BIG. */
int cg_server_render(const struct cg_server *s, const char *name, struct buf *out);
/* The tool's identifier → its original MCP name, or NULL. Borrowed. */
const char *cg_server_tool_name(const struct cg_server *s, const char *ident);

/* What a caller needs to use one tool from Python, without the file: a new
 * object {"import": "from servers.<server> import <tool>", "signature":
 * "def <tool>(...) -> ...: ...", "args": [{"name" (the MCP name), "type",
 * "required", "description"}]}, the same names and types as the tool's .py
 * file. @tools is the server's whole catalog (identifiers depend on the
 * set), @tool one of its elements; both borrowed. NULL when out of memory
 * or @tool is not in @tools with a name. */
json_t *cg_tool_py_api(const struct cg_root *r, size_t server_index, json_t *tools, json_t *tool);

#endif
