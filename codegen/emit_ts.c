/* TypeScript: a tool's types as interfaces and aliases, and its async
 * function. Only syntax a type stripper can erase: no enums, namespaces or
 * parameter properties. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "facts_i.h"
#include "names_i.h"
#include "templates_i.h"
#include "text_i.h"
#include "tool_i.h"

#define SNIPPET_MAX 400
/* Integers beyond 2^53 are not exact in a number literal type. */
#define TS_SAFE_INT 9007199254740991LL

static void ts_type(struct buf *b, const struct cg_type *t);

/* A literal's type: itself where TypeScript has a literal type for it. */
static void ts_lit(struct buf *b, json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		cg_ts_str_n(b, json_string_value(v), json_string_length(v));
		return;
	case JSON_INTEGER:
		if (json_integer_value(v) > TS_SAFE_INT || json_integer_value(v) < -TS_SAFE_INT)
			buf_puts(b, "number");
		else
			buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return;
	case JSON_REAL:
		buf_puts(b, "number");
		return;
	case JSON_TRUE:
		buf_puts(b, "true");
		return;
	case JSON_FALSE:
		buf_puts(b, "false");
		return;
	case JSON_NULL:
		buf_puts(b, "null");
		return;
	case JSON_OBJECT:
		buf_puts(b, "Record<string, unknown>");
		return;
	case JSON_ARRAY:
		buf_puts(b, "unknown[]");
		return;
	}
	buf_fail(b, -EINVAL);
}

static void ts_list(struct buf *b, struct cg_type *const *elems, size_t n, const char *sep)
{
	size_t i;

	for (i = 0; i < n; i++) {
		buf_puts(b, i ? sep : "");
		ts_type(b, elems[i]);
	}
}

/* @open, the type @inner, then @close: Array<...>, Record<string, ...>. */
static void ts_wrap(struct buf *b, const char *open, const struct cg_type *inner, char close)
{
	buf_puts(b, open);
	ts_type(b, inner);
	buf_putc(b, close);
}

static void ts_type(struct buf *b, const struct cg_type *t)
{
	switch (t->kind) {
	case CG_T_ANY:
		buf_puts(b, "unknown");
		return;
	case CG_T_NEVER:
		buf_puts(b, "never");
		return;
	case CG_T_NULL:
		buf_puts(b, "null");
		return;
	case CG_T_BOOL:
		buf_puts(b, "boolean");
		return;
	case CG_T_INT:
	case CG_T_NUM:
		buf_puts(b, "number");
		return;
	case CG_T_STR:
		buf_puts(b, "string");
		return;
	case CG_T_LIT:
		ts_lit(b, t->lit);
		return;
	case CG_T_ARRAY:
		ts_wrap(b, "Array<", t->item, '>');
		return;
	case CG_T_TUPLE:
		buf_putc(b, '[');
		ts_list(b, t->elems, t->nelems, ", ");
		if (t->item)
			ts_wrap(b, t->nelems ? ", ...Array<" : "...Array<", t->item, '>');
		buf_putc(b, ']');
		return;
	case CG_T_MAP:
		ts_wrap(b, "Record<string, ", t->item, '>');
		return;
	case CG_T_UNION:
		ts_list(b, t->elems, t->nelems, " | ");
		return;
	case CG_T_OBJECT:
	case CG_T_REF:
		buf_puts(b, t->name);
		return;
	}
	buf_fail(b, -EINVAL);
}

static bool ts_plain_key(const char *key)
{
	return cg_ascii_ident(key);
}

/* A property's JSDoc: its description as sentences, then what the schema
 * says beyond the type (ranges, allowed values, default). */
static void ts_prop_doc(struct buf *b, struct buf *text, const struct cg_prop *p)
{
	size_t skip;

	buf_reset(text);
	cg_sentence(text, p->description, p->description_len);
	cg_facts_schema(text, p->schema, CG_SYNTAX_TS);
	buf_fail(b, buf_error(text));
	if (!text->len)
		return;
	skip = text->data && text->data[0] == ' ' ? 1 : 0;
	buf_puts(b, "\t/**\n");
	cg_ts_doc_n(b, text->data ? text->data + skip : "", text->len - skip, "\t");
	buf_puts(b, "\t */\n");
}

static void ts_decl_object(struct buf *b, const struct cg_type *t)
{
	struct buf text;
	size_t i;

	if (t->description_len) {
		buf_puts(b, "\n/**\n");
		cg_ts_doc_n(b, t->description, t->description_len, "");
		buf_puts(b, " */");
	}
	cg_cat(b, "\nexport interface ", t->name, " {\n", NULL);
	buf_init(&text, CG_PIECE_MAX);
	for (i = 0; i < t->nprops; i++) {
		const struct cg_prop *p = &t->props[i];

		ts_prop_doc(b, &text, p);
		buf_putc(b, '\t');
		if (ts_plain_key(p->key))
			buf_puts(b, p->key);
		else
			cg_ts_str(b, p->key);
		buf_puts(b, p->required ? ": " : "?: ");
		ts_type(b, p->type);
		buf_puts(b, ";\n");
	}
	/* unknown: every declared property must fit the index type. */
	if (t->extra)
		buf_puts(b, "\t[key: string]: unknown;\n");
	buf_puts(b, "}\n");
	buf_free(&text);
}

static void ts_decls(struct buf *b, const struct cg_schema *s)
{
	size_t i;

	for (i = 0; i < s->ndecls; i++) {
		const struct cg_decl *d = &s->decls[i];

		if (d->type->kind == CG_T_OBJECT && d->type->name == d->name) {
			ts_decl_object(b, d->type);
			continue;
		}
		cg_cat(b, "\nexport type ", d->name, " = ", NULL);
		ts_type(b, d->type);
		buf_puts(b, ";\n");
	}
}

static bool any_required(const struct cg_type *obj)
{
	size_t i;

	for (i = 0; obj && i < obj->nprops; i++)
		if (obj->props[i].required)
			return true;
	return false;
}

/* The file's head comment: where the tool comes from, in one place. */
static void ts_summary(struct buf *head, struct buf *text, const struct cg_tool_in *in)
{
	size_t title_len;
	const char *title = cg_tool_title(in->tool, &title_len);

	buf_reset(text);
	cg_cat(text, in->ident, ": ", NULL);
	if (title)
		buf_append(text, title, title_len);
	else
		buf_puts(text, in->name);
	buf_puts(text, "\n\nMCP tool ");
	cg_ts_str(text, in->name);
	buf_puts(text, " of server ");
	cg_ts_str(text, in->server_name);
	cg_cat(text, "; its definition is in ", in->ident, ".json.", NULL);
	buf_fail(head, buf_error(text));
	cg_ts_doc_n(head, text->data ? text->data : "", text->len, "");
}

/* The function's JSDoc: description, @param, @returns, @throws. */
static void ts_doc(struct buf *doc, struct buf *text, const struct cg_tool_in *in,
		   const struct cg_tool_types *tt)
{
	size_t title_len, desc_len;
	const char *title = cg_tool_title(in->tool, &title_len);
	const char *desc = cg_tool_description(in->tool, &desc_len);
	struct buf hints;

	buf_reset(text);
	if (title) {
		buf_append(text, title, title_len);
		buf_puts(text, desc_len ? "\n\n" : "");
	}
	if (desc_len || title)
		cg_sentence(text, desc, desc_len);
	else
		buf_puts(text, in->name);
	buf_init(&hints, CG_PIECE_MAX);
	cg_facts_annotations(&hints, in->tool);
	if (hints.len)
		cg_cat(text, "\n\n", hints.data, NULL);
	buf_fail(text, buf_error(&hints));
	buf_free(&hints);
	buf_fail(doc, buf_error(text));
	cg_ts_doc_n(doc, text->data ? text->data : "", text->len, "");
	buf_puts(doc, " *\n * @param input the tool's arguments");
	buf_puts(doc, tt->output ? "\n * @returns the tool's structuredContent, typed as its "
				   "outputSchema says"
				 : "\n * @returns the result's content (see the root "
				   "README.md, \"Results\")");
	buf_puts(doc, "\n * @throws McpToolError when the tool reports an error (isError)\n");
}

/* A property named like a member of Object.prototype: {} has it already,
 * with another type, so "= {}" does not type-check without a cast. */
static bool any_proto_key(const struct cg_type *obj)
{
	static const char *const members[] = {
	    "constructor",	"toString",	    "toLocaleString",	    "valueOf",
	    "hasOwnProperty",	"isPrototypeOf",    "propertyIsEnumerable", "__proto__",
	    "__defineGetter__", "__defineSetter__", "__lookupGetter__",	    "__lookupSetter__",
	};
	size_t i, j;

	for (i = 0; i < obj->nprops; i++)
		for (j = 0; j < sizeof(members) / sizeof(members[0]); j++)
			if (!strcmp(obj->props[i].key, members[j]))
				return true;
	return false;
}

static void ts_params(struct buf *params, const struct cg_tool_types *tt)
{
	const char *name;

	if (!tt->input_obj) {
		buf_puts(params, "input: Record<string, unknown> = {}");
		return;
	}
	name = tt->input == tt->input_obj ? tt->input_obj->name : tt->input->name;
	cg_cat(params, "input: ", name, NULL);
	if (!any_required(tt->input_obj))
		cg_cat(params, any_proto_key(tt->input_obj) ? " = {} as " : " = {}",
		       any_proto_key(tt->input_obj) ? name : "", NULL);
}

/* What the function returns: the call's promise as it is when the result is
 * unknown, else the awaited result as its type. @call gets the server and
 * tool arguments. */
static void ts_result(struct buf *result, struct buf *call, const struct cg_tool_in *in,
		      const struct cg_tool_types *tt, const struct buf *ret)
{
	buf_reset(call);
	cg_ts_str(call, in->server_name);
	buf_puts(call, ", ");
	cg_ts_str(call, in->name);
	buf_fail(result, buf_first_error(call, ret, NULL));
	if (cg_output_typed(tt))
		cg_cat(result, "(await _rt.callTool(", call->data, ", input)) as ", ret->data,
		       NULL);
	else
		cg_cat(result, "_rt.callTool(", call->data, ", input)", NULL);
}

int cg_render_tool_ts(const struct cg_tool_in *in, struct buf *out)
{
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
	ts_summary(&head, &text, in);
	ts_doc(&doc, &text, in, &tt);
	ts_params(&params, &tt);
	if (tt.output)
		ts_type(&ret, tt.output);
	else
		buf_puts(&ret, "unknown");
	ts_decls(&types, &tt.schema);
	ts_result(&result, &text, in, &tt, &ret);
	/* "call" (the server and tool arguments) stays for --templates
	 * files written before "result". */
	rc = buf_first_error(&types, &doc, &params, &ret, &head, &text, &result, NULL);
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
