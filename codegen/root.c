/* The top of the tree: README.md and servers/ with the shims; depends only
 * on the server names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "names_i.h"
#include "root_i.h"
#include "templates_i.h"
#include "text_i.h"

#define README_MAX (16u << 20)

unsigned cg_langs_parse(const char *s)
{
	static const struct {
		const char *word;
		unsigned lang;
	} words[] = {
	    {"py", CG_LANG_PY},
	    {"python", CG_LANG_PY},
	    {"ts", CG_LANG_TS},
	    {"typescript", CG_LANG_TS},
	};
	unsigned mask = 0;
	const char *p = s, *end;
	size_t i, len;

	if (!s || !*s)
		return 0;
	while (*p) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i].word) == len && !strncmp(words[i].word, p, len))
				break;
		if (i == sizeof(words) / sizeof(words[0]))
			return 0;
		mask |= words[i].lang;
		if (!end)
			break;
		p = end + 1;
		if (!*p)
			return 0;
	}
	return mask;
}

struct cg_root *cg_root_new(const char *const *server_names, size_t n, unsigned langs,
			    const struct cg_templates *t)
{
	struct cg_root *r = calloc(1, sizeof(*r));
	size_t i, k = 0;

	if (!r)
		return NULL;
	r->langs = langs & CG_LANG_ALL;
	r->t = t;
	r->n = n;
	r->names = calloc(n ? n : 1, sizeof(*r->names));
	r->idents = calloc(n ? n : 1, sizeof(*r->idents));
	r->servers_entries = calloc(n + 3, sizeof(*r->servers_entries));
	if (!r->names || !r->idents || !r->servers_entries)
		goto out_free;
	for (i = 0; i < n; i++) {
		r->names[i] = strdup(server_names[i]);
		if (!r->names[i])
			goto out_free;
	}
	if (cg_idents_assign(server_names, n, "server", r->idents))
		goto out_free;
	r->top[0] = (struct cg_entry){"README.md", false};
	r->top[1] = (struct cg_entry){"servers", true};
	if (r->langs & CG_LANG_PY)
		r->servers_entries[k++] = (struct cg_entry){"__init__.py", false};
	if (r->langs & CG_LANG_PY)
		r->servers_entries[k++] = (struct cg_entry){"_runtime.py", false};
	if (r->langs & CG_LANG_TS)
		r->servers_entries[k++] = (struct cg_entry){"_runtime.ts", false};
	for (i = 0; i < n; i++)
		r->servers_entries[k++] = (struct cg_entry){r->idents[i], true};
	r->nservers_entries = k;
	return r;
out_free:
	cg_root_free(r);
	return NULL;
}

void cg_root_free(struct cg_root *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		if (r->names)
			free(r->names[i]);
		if (r->idents)
			free(r->idents[i]);
	}
	free(r->names);
	free(r->idents);
	free(r->servers_entries);
	free(r);
}

size_t cg_root_nservers(const struct cg_root *r)
{
	return r->n;
}

const char *cg_root_server_name(const struct cg_root *r, size_t i)
{
	return i < r->n ? r->names[i] : NULL;
}

const char *cg_root_server_ident(const struct cg_root *r, size_t i)
{
	return i < r->n ? r->idents[i] : NULL;
}

long cg_root_find(const struct cg_root *r, const char *ident)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->idents[i], ident))
			return (long)i;
	return -1;
}

int cg_root_list(const struct cg_root *r, const char *dir, const struct cg_entry **out, size_t *n)
{
	if (!strcmp(dir, "")) {
		*out = r->top;
		*n = 2;
		return 0;
	}
	if (!strcmp(dir, "servers")) {
		*out = r->servers_entries;
		*n = r->nservers_entries;
		return 0;
	}
	return -ENOENT;
}

static int root_readme(const struct cg_root *r, struct buf *out)
{
	struct buf list, py, ts;
	size_t i;
	int rc;

	buf_init(&list, README_MAX);
	buf_init(&py, README_MAX);
	buf_init(&ts, README_MAX);
	for (i = 0; i < r->n; i++) {
		cg_cat(&list, "- `", r->idents[i], "`", NULL);
		if (strcmp(r->names[i], r->idents[i])) {
			buf_puts(&list, " (configured as \"");
			cg_md_line(&list, r->names[i], 200);
			buf_puts(&list, "\")");
		}
		buf_putc(&list, '\n');
	}
	if (r->n == 0)
		buf_puts(&list, "(no servers are configured)\n");
	if (r->langs & CG_LANG_PY)
		buf_fail(&py, cg_tmpl_fill(r->t, "readme_python.md.tmpl", NULL, 0, &py));
	if (r->langs & CG_LANG_TS)
		buf_fail(&ts, cg_tmpl_fill(r->t, "readme_typescript.md.tmpl", NULL, 0, &ts));
	rc = buf_first_error(&list, &py, &ts, NULL);
	if (!rc) {
		const struct cg_kv kv[] = {
		    {"servers", list.data, list.len},
		    {"python", py.data, py.len},
		    {"typescript", ts.data, ts.len},
		};

		rc = cg_tmpl_fill(r->t, "README.md.tmpl", kv, sizeof(kv) / sizeof(kv[0]), out);
	}
	buf_free(&list);
	buf_free(&py);
	buf_free(&ts);
	return rc;
}

static int verbatim(const struct cg_root *r, const char *name, struct buf *out)
{
	size_t len;
	const char *p = cg_tmpl_get(r->t, name, &len);

	return p ? buf_append(out, p, len) : -ENOENT;
}

int cg_root_render(const struct cg_root *r, const char *relpath, struct buf *out)
{
	if (!strcmp(relpath, "README.md"))
		return root_readme(r, out);
	if ((r->langs & CG_LANG_PY) && !strcmp(relpath, "servers/__init__.py"))
		return verbatim(r, "servers_init.py", out);
	if ((r->langs & CG_LANG_PY) && !strcmp(relpath, "servers/_runtime.py"))
		return verbatim(r, "_runtime.py", out);
	if ((r->langs & CG_LANG_TS) && !strcmp(relpath, "servers/_runtime.ts"))
		return verbatim(r, "_runtime.ts", out);
	return -ENOENT;
}
