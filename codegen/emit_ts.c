/* TypeScript: a tool's types as interfaces and aliases, and its async
 * function. Only syntax a type stripper can erase: no enums, namespaces or
 * parameter properties. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "names_i.h"
#include "templates_i.h"
#include "text_i.h"
#include "tool_i.h"

#define SNIPPET_MAX 400
/* Integers beyond 2^53 are not exact in a number literal type. */
#define TS_SAFE_INT 9007199254740991LL

static int ts_type(struct buf *b, const struct cg_type *t);

static int ts_lit(struct buf *b, json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		return cg_ts_str_n(b, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		if (json_integer_value(v) > TS_SAFE_INT || json_integer_value(v) < -TS_SAFE_INT)
			return buf_puts(b, "number");
		return buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	case JSON_REAL:
		return buf_puts(b, "number");
	case JSON_TRUE:
		return buf_puts(b, "true");
	case JSON_FALSE:
		return buf_puts(b, "false");
	case JSON_NULL:
		return buf_puts(b, "null");
	case JSON_OBJECT:
		return buf_puts(b, "Record<string, unknown>");
	case JSON_ARRAY:
		return buf_puts(b, "unknown[]");
	}
	return -EINVAL;
}

static int ts_list(struct buf *b, struct cg_type *const *elems, size_t n, const char *sep)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < n; i++) {
		if (i)
			rc = buf_puts(b, sep);
		if (!rc)
			rc = ts_type(b, elems[i]);
	}
	return rc;
}

static int ts_type(struct buf *b, const struct cg_type *t)
{
	int rc;

	switch (t->kind) {
	case CG_T_ANY:
		return buf_puts(b, "unknown");
	case CG_T_NEVER:
		return buf_puts(b, "never");
	case CG_T_NULL:
		return buf_puts(b, "null");
	case CG_T_BOOL:
		return buf_puts(b, "boolean");
	case CG_T_INT:
	case CG_T_NUM:
		return buf_puts(b, "number");
	case CG_T_STR:
		return buf_puts(b, "string");
	case CG_T_LIT:
		return ts_lit(b, t->lit);
	case CG_T_ARRAY:
		rc = buf_puts(b, "Array<");
		if (!rc)
			rc = ts_type(b, t->item);
		return rc ? rc : buf_putc(b, '>');
	case CG_T_TUPLE:
		rc = buf_putc(b, '[');
		if (!rc)
			rc = ts_list(b, t->elems, t->nelems, ", ");
		if (!rc && t->item) {
			rc = buf_puts(b, t->nelems ? ", ...Array<" : "...Array<");
			if (!rc)
				rc = ts_type(b, t->item);
			if (!rc)
				rc = buf_putc(b, '>');
		}
		return rc ? rc : buf_putc(b, ']');
	case CG_T_MAP:
		rc = buf_puts(b, "Record<string, ");
		if (!rc)
			rc = ts_type(b, t->item);
		return rc ? rc : buf_putc(b, '>');
	case CG_T_UNION:
		return ts_list(b, t->elems, t->nelems, " | ");
	case CG_T_OBJECT:
	case CG_T_REF:
		return buf_puts(b, t->name);
	}
	return -EINVAL;
}

static bool ts_plain_key(const char *key)
{
	return cg_ascii_ident(key);
}

static int ts_decl_object(struct buf *b, const struct cg_type *t)
{
	size_t i;
	int rc = 0;

	if (t->description_len) {
		rc = buf_puts(b, "\n/**\n");
		if (!rc)
			rc = cg_ts_doc_n(b, t->description, t->description_len, "");
		if (!rc)
			rc = buf_puts(b, " */");
	}
	if (!rc)
		rc = cg_cat(b, "\nexport interface ", t->name, " {\n", NULL);
	for (i = 0; !rc && i < t->nprops; i++) {
		const struct cg_prop *p = &t->props[i];

		if (p->description_len) {
			rc = buf_puts(b, "\t/**\n");
			if (!rc)
				rc = cg_ts_doc_n(b, p->description, p->description_len, "\t");
			if (!rc)
				rc = buf_puts(b, "\t */\n");
		}
		if (!rc)
			rc = buf_putc(b, '\t');
		if (!rc)
			rc = ts_plain_key(p->key) ? buf_puts(b, p->key) : cg_ts_str(b, p->key);
		if (!rc)
			rc = buf_puts(b, p->required ? ": " : "?: ");
		if (!rc)
			rc = ts_type(b, p->type);
		if (!rc)
			rc = buf_puts(b, ";\n");
	}
	if (!rc && t->extra) {
		/* unknown: every declared property must fit the index type. */
		rc = buf_puts(b, "\t[key: string]: unknown;\n");
	}
	return rc ? rc : buf_puts(b, "}\n");
}

static int ts_decls(struct buf *b, const struct cg_schema *s)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < s->ndecls; i++) {
		const struct cg_decl *d = &s->decls[i];

		if (d->type->kind == CG_T_OBJECT && d->type->name == d->name) {
			rc = ts_decl_object(b, d->type);
			continue;
		}
		rc = cg_cat(b, "\nexport type ", d->name, " = ", NULL);
		if (!rc)
			rc = ts_type(b, d->type);
		if (!rc)
			rc = buf_puts(b, ";\n");
	}
	return rc;
}

static bool any_required(const struct cg_type *obj)
{
	size_t i;

	for (i = 0; obj && i < obj->nprops; i++)
		if (obj->props[i].required)
			return true;
	return false;
}

int cg_render_tool_ts(const struct cg_tool_in *in, struct buf *out)
{
	size_t title_len, desc_len;
	const char *title = cg_tool_title(in->tool, &title_len);
	const char *desc = cg_tool_description(in->tool, &desc_len);
	struct buf types, doc, params, ret, head, text, result;
	struct cg_tool_types tt;
	int rc;

	buf_init(&types, CG_PIECE_MAX);
	buf_init(&doc, CG_PIECE_MAX);
	buf_init(&params, CG_PIECE_MAX);
	buf_init(&ret, CG_PIECE_MAX);
	buf_init(&head, CG_PIECE_MAX);
	buf_init(&text, CG_PIECE_MAX);
	buf_init(&result, CG_PIECE_MAX);
	rc = cg_tool_types_build(in, &tt);
	if (rc)
		goto out_free;

	rc = cg_cat(&text, in->ident, ": ", NULL);
	if (!rc)
		rc = title ? buf_append(&text, title, title_len) : buf_puts(&text, in->name);
	if (!rc)
		rc = buf_puts(&text, "\n\nMCP tool ");
	if (!rc)
		rc = cg_ts_str(&text, in->name);
	if (!rc)
		rc = buf_puts(&text, " of server ");
	if (!rc)
		rc = cg_ts_str(&text, in->server_name);
	if (!rc)
		rc = cg_cat(&text, "; its definition is in ", in->ident, ".json.", NULL);
	if (!rc)
		rc = cg_ts_doc_n(&head, text.data, text.len, "");

	buf_reset(&text);
	if (!rc && title) {
		rc = buf_append(&text, title, title_len);
		if (!rc)
			rc = buf_puts(&text, desc_len ? "\n\n" : "");
	}
	if (!rc)
		rc = desc_len || title ? buf_append(&text, desc, desc_len)
				       : buf_puts(&text, in->name);
	if (!rc)
		rc = cg_ts_doc_n(&doc, text.data ? text.data : "", text.len, "");
	if (!rc)
		rc = buf_puts(&doc, " *\n * @param input the tool's arguments");
	if (!rc)
		rc = buf_puts(
		    &doc, tt.output ? "\n * @returns the tool's structuredContent, typed as its "
				      "outputSchema says"
				    : "\n * @returns the result's content (see the root "
				      "README.md, \"Results\")");
	if (!rc)
		rc = buf_puts(
		    &doc, "\n * @throws McpToolError when the tool reports an error (isError)\n");
	if (!rc && tt.input_obj && tt.input == tt.input_obj)
		rc = cg_cat(&params, "input: ", tt.input_obj->name,
			    any_required(tt.input_obj) ? "" : " = {}", NULL);
	else if (!rc && tt.input_obj)
		rc = cg_cat(&params, "input: ", tt.input->name,
			    any_required(tt.input_obj) ? "" : " = {}", NULL);
	else if (!rc)
		rc = buf_puts(&params, "input: Record<string, unknown> = {}");
	if (!rc)
		rc = tt.output ? ts_type(&ret, tt.output) : buf_puts(&ret, "unknown");
	if (!rc)
		rc = ts_decls(&types, &tt.schema);
	buf_reset(&text);
	if (!rc)
		rc = cg_ts_str(&text, in->server_name);
	if (!rc)
		rc = buf_puts(&text, ", ");
	if (!rc)
		rc = cg_ts_str(&text, in->name);
	/* What the function returns: the call's promise as it is when the
	 * result is unknown, else the awaited result as its type. */
	if (!rc)
		rc = cg_output_typed(&tt)
			 ? cg_cat(&result, "(await _rt.callTool(", text.data, ", input)) as ",
				  ret.data, NULL)
			 : cg_cat(&result, "_rt.callTool(", text.data, ", input)", NULL);
	/* "call" (the server and tool arguments) stays for --templates
	 * files written before "result". */
	if (!rc) {
		const struct cg_kv kv[] = {
		    {"summary", head.data, head.len},	 {"types", types.data, types.len},
		    {"doc", doc.data, doc.len},		 {"ident", in->ident, strlen(in->ident)},
		    {"params", params.data, params.len}, {"returns", ret.data, ret.len},
		    {"call", text.data, text.len},	 {"result", result.data, result.len},
		};

		rc = cg_tmpl_fill(in->t, "tool.ts.tmpl", kv, sizeof(kv) / sizeof(kv[0]), out);
	}
out_free:
	cg_tool_types_free(&tt);
	buf_free(&types);
	buf_free(&doc);
	buf_free(&params);
	buf_free(&ret);
	buf_free(&head);
	buf_free(&text);
	buf_free(&result);
	return rc;
}
