/* _resources.md and _prompts.md: one Markdown line per resource, template
 * and prompt, as a model reads a README. */
#include "offers_i.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "templates_i.h"
#include "text_i.h"

#define OFFERS_MAX (64u << 20)
#define URI_MAX 1000
#define NAME_MAX_MD 200
#define DESC_MAX 300

bool cg_offers_resources(const json_t *notes)
{
	return json_array_size(json_object_get(notes, "resources")) ||
	       json_array_size(json_object_get(notes, "resource_templates"));
}

bool cg_offers_prompts(const json_t *notes)
{
	return json_array_size(json_object_get(notes, "prompts")) > 0;
}

static const char *str(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* " (a, b)" of the strings present, or nothing. */
static void aside(struct buf *b, const char *a, const char *c)
{
	if (!a && !c)
		return;
	buf_puts(b, " (");
	if (a)
		cg_md_line(b, a, NAME_MAX_MD);
	if (a && c)
		buf_puts(b, ", ");
	if (c)
		cg_md_line(b, c, NAME_MAX_MD);
	buf_putc(b, ')');
}

/* "- `uri` (name, mime): description" for a resource or a template. */
static void resource_line(struct buf *b, const json_t *r, const char *uri_key)
{
	const char *title = str(r, "title"), *name = str(r, "name"), *desc = str(r, "description");

	buf_puts(b, "- `");
	cg_md_line(b, str(r, uri_key), URI_MAX);
	buf_putc(b, '`');
	aside(b, title ? title : name, str(r, "mimeType"));
	if (desc && *desc) {
		buf_puts(b, ": ");
		cg_md_line_n(b, desc, cg_first_sentence(desc), DESC_MAX);
	}
	buf_putc(b, '\n');
}

int cg_offers_readme(struct buf *out, const json_t *notes)
{
	size_t nres = json_array_size(json_object_get(notes, "resources"));
	size_t ntpl = json_array_size(json_object_get(notes, "resource_templates"));
	size_t npr = json_array_size(json_object_get(notes, "prompts"));

	if (!nres && !ntpl && !npr)
		return buf_error(out);
	buf_puts(out, "\nBeside its tools the server offers");
	if (nres || ntpl)
		buf_printf(out,
			   " %zu resource%s and %zu resource template%s (`" CG_RESOURCES_FILE
			   "`: read them with `read_resource`)",
			   nres, nres == 1 ? "" : "s", ntpl, ntpl == 1 ? "" : "s");
	if ((nres || ntpl) && npr)
		buf_puts(out, " and");
	if (npr)
		buf_printf(out, " %zu prompt%s (`" CG_PROMPTS_FILE "`: get them with `get_prompt`)",
			   npr, npr == 1 ? "" : "s");
	buf_puts(out, ".\n");
	return buf_error(out);
}

int cg_render_resources(const struct cg_templates *t, const char *name, const json_t *notes,
			struct buf *out)
{
	const json_t *res = json_object_get(notes, "resources");
	const json_t *tpl = json_object_get(notes, "resource_templates");
	struct buf title, py, ts, list, templates;
	const json_t *r;
	size_t i;
	int rc;

	if (!cg_offers_resources(notes))
		return -ENOENT;
	buf_init(&title, OFFERS_MAX);
	buf_init(&py, OFFERS_MAX);
	buf_init(&list, OFFERS_MAX);
	buf_init(&templates, OFFERS_MAX);
	buf_init(&ts, OFFERS_MAX);
	cg_md_line(&title, name, NAME_MAX_MD);
	cg_py_str(&py, name);
	cg_ts_str(&ts, name);
	json_array_foreach(res, i, r) resource_line(&list, r, "uri");
	if (!json_array_size(res))
		buf_puts(&list, "(none listed)\n");
	json_array_foreach(tpl, i, r) resource_line(&templates, r, "uriTemplate");
	if (!json_array_size(tpl))
		buf_puts(&templates, "(none)\n");
	rc = buf_first_error(&title, &py, &ts, &list, &templates, NULL);
	if (!rc) {
		const struct cg_kv kv[] = {
		    {"name", title.data, title.len},
		    {"server", py.data, py.len},
		    {"server_ts", ts.data, ts.len},
		    {"resources", list.data, list.len},
		    {"templates", templates.data, templates.len},
		};

		rc = cg_tmpl_fill(t, "resources.md.tmpl", kv, sizeof(kv) / sizeof(kv[0]), out);
	}
	buf_free(&title);
	buf_free(&py);
	buf_free(&ts);
	buf_free(&list);
	buf_free(&templates);
	return rc;
}

/* "- `name` (title): description" and one indented line per argument. */
static void prompt_line(struct buf *b, const json_t *p)
{
	const char *desc = str(p, "description");
	const json_t *a;
	size_t i;

	buf_puts(b, "- `");
	cg_md_line(b, str(p, "name"), NAME_MAX_MD);
	buf_putc(b, '`');
	aside(b, str(p, "title"), NULL);
	if (desc && *desc) {
		buf_puts(b, ": ");
		cg_md_line_n(b, desc, cg_first_sentence(desc), DESC_MAX);
	}
	buf_putc(b, '\n');
	json_array_foreach(json_object_get(p, "arguments"), i, a)
	{
		if (!str(a, "name"))
			continue;
		buf_puts(b, "  - `");
		cg_md_line(b, str(a, "name"), NAME_MAX_MD);
		buf_puts(b, json_is_true(json_object_get(a, "required")) ? "` (required)" : "`");
		if (str(a, "description") && *str(a, "description")) {
			buf_puts(b, ": ");
			cg_md_line(b, str(a, "description"), DESC_MAX);
		}
		buf_putc(b, '\n');
	}
}

int cg_render_prompts(const struct cg_templates *t, const char *name, const json_t *notes,
		      struct buf *out)
{
	const json_t *p;
	struct buf title, py, ts, list;
	size_t i;
	int rc;

	if (!cg_offers_prompts(notes))
		return -ENOENT;
	buf_init(&title, OFFERS_MAX);
	buf_init(&py, OFFERS_MAX);
	buf_init(&list, OFFERS_MAX);
	buf_init(&ts, OFFERS_MAX);
	cg_md_line(&title, name, NAME_MAX_MD);
	cg_py_str(&py, name);
	cg_ts_str(&ts, name);
	json_array_foreach(json_object_get(notes, "prompts"), i, p) prompt_line(&list, p);
	rc = buf_first_error(&title, &py, &ts, &list, NULL);
	if (!rc) {
		const struct cg_kv kv[] = {
		    {"name", title.data, title.len},
		    {"server", py.data, py.len},
		    {"server_ts", ts.data, ts.len},
		    {"prompts", list.data, list.len},
		};

		rc = cg_tmpl_fill(t, "prompts.md.tmpl", kv, sizeof(kv) / sizeof(kv[0]), out);
	}
	buf_free(&title);
	buf_free(&py);
	buf_free(&ts);
	buf_free(&list);
	return rc;
}
