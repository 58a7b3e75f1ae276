/* Python: a tool's types as TypedDicts and aliases, and its function. */
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

static bool lit_is_literal(json_t *v)
{
	return json_is_string(v) || json_is_integer(v) || json_is_boolean(v);
}

static void py_literal_value(struct buf *b, json_t *v)
{
	if (json_is_string(v))
		cg_py_str_n(b, json_string_value(v), json_string_length(v));
	else if (json_is_integer(v))
		buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else
		buf_puts(b, json_is_true(v) ? "True" : "False");
}

static void py_type(struct buf *b, const struct cg_type *t);

/* A literal that Literal[] cannot hold, as its base type. */
static const char *py_lit_base(json_t *v)
{
	if (json_is_null(v))
		return "None";
	if (json_is_real(v))
		return "float";
	if (json_is_object(v))
		return "dict[str, _t.Any]";
	return "list[_t.Any]";
}

static void py_union(struct buf *b, struct cg_type *const *elems, size_t n,
		     const struct cg_type *rest)
{
	bool first = true;
	size_t i;

	/* Literal members together first: Literal["a", "b"] | int. */
	for (i = 0; i < n; i++) {
		if (elems[i]->kind != CG_T_LIT || !lit_is_literal(elems[i]->lit))
			continue;
		buf_puts(b, first ? "_t.Literal[" : ", ");
		py_literal_value(b, elems[i]->lit);
		first = false;
	}
	if (!first)
		buf_putc(b, ']');
	for (i = 0; i < n; i++) {
		if (elems[i]->kind == CG_T_LIT && lit_is_literal(elems[i]->lit))
			continue;
		buf_puts(b, first ? "" : " | ");
		py_type(b, elems[i]);
		first = false;
	}
	if (rest) {
		buf_puts(b, first ? "" : " | ");
		py_type(b, rest);
		first = false;
	}
	if (first)
		buf_puts(b, "_t.Any");
}

/* @open, the type @inner, then @close: list[...], dict[str, ...]. */
static void py_wrap(struct buf *b, const char *open, const struct cg_type *inner, char close)
{
	buf_puts(b, open);
	py_type(b, inner);
	buf_putc(b, close);
}

static void py_type(struct buf *b, const struct cg_type *t)
{
	switch (t->kind) {
	case CG_T_ANY:
		buf_puts(b, "_t.Any");
		return;
	case CG_T_NEVER:
		buf_puts(b, "_t.NoReturn");
		return;
	case CG_T_NULL:
		buf_puts(b, "None");
		return;
	case CG_T_BOOL:
		buf_puts(b, "bool");
		return;
	case CG_T_INT:
		buf_puts(b, "int");
		return;
	case CG_T_NUM:
		buf_puts(b, "float");
		return;
	case CG_T_STR:
		buf_puts(b, "str");
		return;
	case CG_T_LIT:
		if (!lit_is_literal(t->lit)) {
			buf_puts(b, py_lit_base(t->lit));
			return;
		}
		buf_puts(b, "_t.Literal[");
		py_literal_value(b, t->lit);
		buf_putc(b, ']');
		return;
	case CG_T_ARRAY:
		py_wrap(b, "list[", t->item, ']');
		return;
	case CG_T_TUPLE:
		/* JSON arrays arrive as lists: a list of the element types. */
		buf_puts(b, "list[");
		py_union(b, t->elems, t->nelems, t->item);
		buf_putc(b, ']');
		return;
	case CG_T_MAP:
		py_wrap(b, "dict[str, ", t->item, ']');
		return;
	case CG_T_UNION:
		py_union(b, t->elems, t->nelems, NULL);
		return;
	case CG_T_OBJECT:
	case CG_T_REF:
		buf_puts(b, t->name);
		return;
	}
	buf_fail(b, -EINVAL);
}

static bool type_has_none(const struct cg_type *t)
{
	size_t i;

	if (t->kind == CG_T_NULL || t->kind == CG_T_ANY ||
	    (t->kind == CG_T_LIT && json_is_null(t->lit)))
		return true;
	if (t->kind == CG_T_UNION)
		for (i = 0; i < t->nelems; i++)
			if (type_has_none(t->elems[i]))
				return true;
	return false;
}

/* Can @key be a field of a class-syntax TypedDict? Keywords, non-identifiers
 * and names our annotations use (a field named `str` would shadow the type)
 * need the functional syntax. */
static bool class_key_ok(const struct cg_schema *s, const char *key)
{
	static const char *const used[] = {"int", "float", "str", "bool", "list", "dict"};
	size_t i;

	if (!cg_ascii_ident(key) || key[0] == '_' || cg_py_keyword(key))
		return false;
	for (i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		if (!strcmp(key, used[i]))
			return false;
	for (i = 0; i < s->ndecls; i++)
		if (!strcmp(key, s->decls[i].name))
			return false;
	return true;
}

static void py_field_type(struct buf *b, const struct cg_prop *p)
{
	if (p->required)
		py_wrap(b, "_t.Required[", p->type, ']');
	else
		py_type(b, p->type);
}

/* The type in @expr as a string literal (a forward reference) on @b; a
 * failure to build @expr fails @b. */
static void py_quoted_type(struct buf *b, const struct buf *expr)
{
	buf_fail(b, buf_error(expr));
	cg_py_str(b, expr->data ? expr->data : "");
}

static void py_decl_object(struct buf *b, const struct cg_schema *s, const struct cg_type *t)
{
	struct buf expr;
	bool class_form = true;
	size_t i;

	for (i = 0; i < t->nprops && class_form; i++)
		class_form = class_key_ok(s, t->props[i].key);
	if (class_form) {
		cg_cat(b, "\n\nclass ", t->name, "(_t.TypedDict, total=False):\n", NULL);
		if (t->description_len) {
			buf_puts(b, "    \"\"\"");
			cg_py_doc_n(b, t->description, t->description_len, "    ");
			buf_puts(b, "\n    \"\"\"\n\n");
		}
		for (i = 0; i < t->nprops; i++) {
			cg_cat(b, "    ", t->props[i].key, ": ", NULL);
			py_field_type(b, &t->props[i]);
			buf_putc(b, '\n');
		}
		return;
	}
	/* Functional syntax: any key works; the types are strings so that the
	 * module never evaluates a name before it is defined. */
	buf_init(&expr, CG_PIECE_MAX);
	cg_cat(b, "\n\n", t->name, " = _t.TypedDict(\"", t->name, "\", {\n", NULL);
	for (i = 0; i < t->nprops; i++) {
		/* pyright refuses an empty name in a TypedDict; the function
		 * still takes the property as a parameter. */
		if (!t->props[i].key[0])
			continue;
		buf_reset(&expr);
		py_field_type(&expr, &t->props[i]);
		buf_puts(b, "    ");
		cg_py_str(b, t->props[i].key);
		buf_puts(b, ": ");
		py_quoted_type(b, &expr);
		buf_puts(b, ",\n");
	}
	buf_puts(b, "}, total=False)\n");
	buf_free(&expr);
}

static void py_decls(struct buf *b, const struct cg_schema *s)
{
	struct buf expr;
	size_t i;

	buf_init(&expr, CG_PIECE_MAX);
	for (i = 0; i < s->ndecls; i++) {
		const struct cg_decl *d = &s->decls[i];

		if (d->type->kind == CG_T_OBJECT && d->type->name == d->name) {
			py_decl_object(b, s, d->type);
			continue;
		}
		buf_reset(&expr);
		py_type(&expr, d->type);
		cg_cat(b, "\n\n", d->name, ": _t.TypeAlias = ", NULL);
		py_quoted_type(b, &expr);
		buf_putc(b, '\n');
	}
	buf_free(&expr);
}

/* Python parameter names for the input's properties: the property name when
 * it is a usable identifier, else a sanitized one, unique either way. */
static char **param_idents(const struct cg_schema *s, const struct cg_type *obj)
{
	char base[CG_IDENT_BUF], cand[CG_IDENT_BUF + 24];
	char **ids = calloc(obj->nprops ? obj->nprops : 1, sizeof(*ids));
	size_t i, j, k;
	int pass;

	if (!ids)
		return NULL;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < obj->nprops; i++) {
			const char *key = obj->props[i].key;
			/* mypy reads a parameter called `str` as the type in
			 * the annotations after it: the class-key rules apply. */
			bool keep = class_key_ok(s, key) && strlen(key) <= CG_IDENT_MAX;

			if (keep != (pass == 0))
				continue;
			if (keep)
				snprintf(base, sizeof(base), "%s", key);
			else
				cg_ident_base(key, "arg", base);
			snprintf(cand, sizeof(cand), "%s", base);
			for (k = 2;; k++) {
				for (j = 0; j < obj->nprops; j++)
					if (ids[j] && !strcmp(ids[j], cand))
						break;
				if (j == obj->nprops)
					break;
				snprintf(cand, sizeof(cand), "%s_%zu", base, k);
			}
			ids[i] = strdup(cand);
			if (!ids[i])
				goto out_free;
		}
	}
	return ids;
out_free:
	for (i = 0; i < obj->nprops; i++)
		free(ids[i]);
	free(ids);
	return NULL;
}

/* The schema's default as a Python literal, when it fits the type exactly. */
static bool default_fits(const struct cg_type *t, json_t *def)
{
	size_t i;

	if (!def || !(json_is_string(def) || json_is_number(def) || json_is_boolean(def)))
		return false;
	switch (t->kind) {
	case CG_T_STR:
		return json_is_string(def);
	case CG_T_INT:
		return json_is_integer(def);
	case CG_T_NUM:
		return json_is_number(def);
	case CG_T_BOOL:
		return json_is_boolean(def);
	case CG_T_LIT:
		return lit_is_literal(t->lit) && json_equal(t->lit, def);
	case CG_T_UNION:
		for (i = 0; i < t->nelems; i++)
			if (default_fits(t->elems[i], def))
				return true;
		return false;
	case CG_T_ANY:
	case CG_T_NEVER:
	case CG_T_NULL:
	case CG_T_ARRAY:
	case CG_T_TUPLE:
	case CG_T_MAP:
	case CG_T_OBJECT:
	case CG_T_REF:
		return false;
	}
	return false;
}

static void py_default(struct buf *b, json_t *def)
{
	if (json_is_real(def))
		buf_printf(b, "%.17g", json_real_value(def));
	else
		py_literal_value(b, def);
}

struct py_parts {
	struct buf params, body, doc, types, ret;
	struct buf text, hints; /* scratch: the description with its hints */
};

/* One Args entry: the description as sentences, then what the schema
 * says beyond the type (ranges, allowed values, default, in Python syntax);
 * never empty. */
static void param_doc(struct buf *doc, const struct cg_prop *p, const char *ident)
{
	struct buf text;
	json_t *key;
	size_t skip;

	buf_init(&text, CG_PIECE_MAX);
	cg_sentence(&text, p->description, p->description_len);
	cg_facts_schema(&text, p->schema, CG_SYNTAX_PY);
	if (strcmp(ident, p->key)) {
		key = json_string(p->key);
		buf_puts(&text, " Its MCP name is ");
		if (key)
			cg_literal(&text, key, CG_SYNTAX_PY, SNIPPET_MAX);
		else
			buf_fail(&text, -ENOMEM);
		buf_putc(&text, '.');
		json_decref(key);
	}
	if (p->type->kind == CG_T_ANY && json_is_object(p->schema) &&
	    json_object_size(p->schema) > (p->description ? 1u : 0u)) {
		buf_puts(&text, " JSON Schema: ");
		cg_schema_snippet(&text, p->schema, SNIPPET_MAX);
	}
	if (!text.len)
		buf_puts(&text, "No description.");
	skip = text.data && text.data[0] == ' ' ? 1 : 0;
	cg_cat(doc, "\n        ", ident, ": ", NULL);
	buf_fail(doc, buf_error(&text));
	cg_py_doc_n(doc, text.data ? text.data + skip : "", text.len - skip, "            ");
	buf_free(&text);
}

/* One property as a keyword parameter, its line of the call's body and its
 * Args entry. */
static void py_param(struct py_parts *pp, const struct cg_prop *p, const char *ident, bool first)
{
	json_t *def = json_object_get(p->schema, "default");
	bool fits = default_fits(p->type, def);

	cg_cat(&pp->params, first ? "*, " : ", ", ident, ": ", NULL);
	py_type(&pp->params, p->type);
	if (!p->required && !fits && !type_has_none(p->type))
		buf_puts(&pp->params, " | None");
	if (!p->required) {
		buf_puts(&pp->params, " = ");
		if (fits)
			py_default(&pp->params, def);
		else
			buf_puts(&pp->params, "None");
	}
	if (!p->required && !fits)
		cg_cat(&pp->body, "    if ", ident, " is not None:\n    ", NULL);
	buf_puts(&pp->body, "    _args[");
	cg_py_str(&pp->body, p->key);
	cg_cat(&pp->body, "] = ", ident, "\n", NULL);
	param_doc(&pp->doc, p, ident);
}

/* Keys the schema leaves open (or an input that is no object): **_extra. */
static void py_extra(struct py_parts *pp, const struct cg_tool_types *tt, bool first)
{
	const struct cg_type *extra = tt->input_obj ? tt->input_obj->extra : NULL;

	if (!extra && tt->input)
		extra = cg_schema_deref(&tt->schema, tt->input);
	if (extra && extra->kind == CG_T_MAP)
		extra = extra->item;
	buf_puts(&pp->params, first ? "**_extra: " : ", **_extra: ");
	if (extra && extra->kind != CG_T_OBJECT)
		py_type(&pp->params, extra);
	else
		buf_puts(&pp->params, "_t.Any");
	buf_puts(&pp->body, "    _args.update(_extra)\n");
	buf_puts(&pp->doc, "\n        **_extra: other arguments, sent as given.");
}

static void py_params(struct py_parts *pp, const struct cg_tool_types *tt)
{
	const struct cg_type *obj = tt->input_obj;
	char **ids = NULL;
	size_t i, n = 0;
	int pass;

	buf_puts(&pp->body, "    _args: dict[str, _t.Any] = {}\n");
	if (obj) {
		ids = param_idents(&tt->schema, obj);
		if (!ids) {
			buf_fail(&pp->params, -ENOMEM);
			return;
		}
		/* Required parameters first, then the optional ones. */
		for (pass = 0; pass < 2; pass++)
			for (i = 0; i < obj->nprops; i++)
				if (obj->props[i].required == (pass == 0))
					py_param(pp, &obj->props[i], ids[i], n++ == 0);
		for (i = 0; i < obj->nprops; i++)
			free(ids[i]);
		free(ids);
	}
	if (!obj || obj->extra)
		py_extra(pp, tt, n == 0);
}

/* The module docstring: where the tool comes from, in one place. */
static void py_summary(struct buf *b, const struct cg_tool_in *in)
{
	size_t title_len;
	const char *title = cg_tool_title(in->tool, &title_len);

	cg_cat(b, in->ident, ": ", NULL);
	if (title)
		cg_py_doc_n(b, title, title_len, "");
	else
		cg_py_doc(b, in->name, "");
	buf_puts(b, "\n\nMCP tool ");
	cg_py_str(b, in->name);
	buf_puts(b, " of server ");
	cg_py_str(b, in->server_name);
	cg_cat(b, "; its definition is in ", in->ident, ".json.\n", NULL);
}

/* The function's docstring: description, Args (with the parameters),
 * Returns, Raises. */
static void py_doc(struct py_parts *pp, const struct cg_tool_in *in, const struct cg_tool_types *tt)
{
	size_t title_len, desc_len;
	const char *title = cg_tool_title(in->tool, &title_len);
	const char *desc = cg_tool_description(in->tool, &desc_len);

	if (title) {
		cg_py_doc_n(&pp->doc, title, title_len, "    ");
		buf_puts(&pp->doc, desc_len ? "\n\n    " : "");
	}
	if (desc_len || title)
		cg_sentence(&pp->text, desc, desc_len);
	else
		buf_puts(&pp->text, in->name);
	cg_facts_annotations(&pp->hints, in->tool);
	if (pp->hints.len)
		cg_cat(&pp->text, pp->text.len ? "\n\n" : "", pp->hints.data, NULL);
	buf_fail(&pp->doc, buf_first_error(&pp->text, &pp->hints, NULL));
	cg_py_doc_n(&pp->doc, pp->text.data ? pp->text.data : "", pp->text.len, "    ");
	buf_puts(&pp->doc, "\n\n    Args:");
	py_params(pp, tt);
	if ((!tt->input_obj || !tt->input_obj->nprops) && !pp->params.len)
		buf_puts(&pp->doc, "\n        (none)");
	buf_puts(&pp->doc, "\n\n    Returns:\n        ");
	buf_puts(
	    &pp->doc,
	    tt->output
		? "The tool's structuredContent, typed as its outputSchema says."
		: "The result's content: one text item as its text (a JSON object or\n"
		  "        array in it parsed), several items as a list, images, audio and\n"
		  "        resources as their MCP content dicts (root README.md, \"Results\").");
	buf_puts(&pp->doc, "\n\n    Raises:\n        McpToolError: the tool reported an "
			   "error (isError); its content is on the exception.");
}

/* The call itself; a typed result is cast on a line of its own. */
static void py_call(struct py_parts *pp, const struct cg_tool_in *in, bool cast)
{
	buf_puts(&pp->body, cast ? "    _result = _rt.call_tool(" : "    return _rt.call_tool(");
	cg_py_str(&pp->body, in->server_name);
	buf_puts(&pp->body, ", ");
	cg_py_str(&pp->body, in->name);
	buf_puts(&pp->body, ", _args)\n");
	if (cast) {
		buf_puts(&pp->body, "    return _t.cast(");
		py_quoted_type(&pp->body, &pp->ret);
		buf_puts(&pp->body, ", _result)\n");
	}
}

int cg_render_tool_py(const struct cg_tool_in *in, struct buf *out)
{
	struct cg_tool_types tt;
	struct py_parts pp;
	struct buf summary;
	int rc;

	buf_init(&pp.params, CG_PIECE_MAX);
	buf_init(&pp.body, CG_PIECE_MAX);
	buf_init(&pp.doc, CG_PIECE_MAX);
	buf_init(&pp.types, CG_PIECE_MAX);
	buf_init(&pp.ret, CG_PIECE_MAX);
	buf_init(&pp.text, CG_PIECE_MAX);
	buf_init(&pp.hints, CG_PIECE_MAX);
	buf_init(&summary, CG_PIECE_MAX);
	rc = cg_tool_types_build(in, &tt);
	if (rc)
		goto out_free;
	py_summary(&summary, in);
	py_doc(&pp, in, &tt);
	if (tt.output)
		py_type(&pp.ret, tt.output);
	else
		buf_puts(&pp.ret, "_t.Any");
	py_decls(&pp.types, &tt.schema);
	py_call(&pp, in, cg_output_typed(&tt));
	rc = buf_first_error(&summary, &pp.params, &pp.body, &pp.doc, &pp.types, &pp.ret, NULL);
	if (!rc) {
		const struct cg_kv kv[] = {
		    {"summary", summary.data, summary.len},
		    {"types", pp.types.data, pp.types.len},
		    {"ident", in->ident, strlen(in->ident)},
		    {"params", pp.params.data, pp.params.len},
		    {"returns", pp.ret.data, pp.ret.len},
		    {"doc", pp.doc.data, pp.doc.len},
		    {"body", pp.body.data, pp.body.len},
		};

		rc = cg_tmpl_fill(in->t, "tool.py.tmpl", kv, sizeof(kv) / sizeof(kv[0]), out);
	}
out_free:
	cg_tool_types_free(&tt);
	buf_free(&pp.params);
	buf_free(&pp.body);
	buf_free(&pp.doc);
	buf_free(&pp.types);
	buf_free(&pp.ret);
	buf_free(&pp.text);
	buf_free(&pp.hints);
	buf_free(&summary);
	return rc;
}

/* The tool's identifier among the named tools of @tools; new, or NULL. */
static char *tool_ident(json_t *tools, json_t *tool)
{
	size_t total = json_array_size(tools), i, n = 0, at = 0;
	const char **names = calloc(total ? total : 1, sizeof(*names));
	char **idents = calloc(total ? total : 1, sizeof(*idents));
	char *out = NULL;
	json_t *v;

	if (!names || !idents)
		goto out_free;
	json_array_foreach(tools, i, v)
	{
		if (!json_is_string(json_object_get(v, "name")))
			continue;
		if (v == tool)
			at = n;
		names[n++] = json_string_value(json_object_get(v, "name"));
	}
	if (n && !cg_idents_assign(names, n, "tool", idents)) {
		out = idents[at];
		idents[at] = NULL;
		for (i = 0; i < n; i++)
			free(idents[i]);
	}
out_free:
	free(names);
	free(idents);
	return out;
}

/* The arguments as {"name", "type", "required", "description"}. */
static json_t *py_args(const struct cg_tool_types *tt)
{
	const struct cg_type *obj = tt->input_obj;
	json_t *arr = json_array(), *a;
	struct buf ty;
	size_t i;

	if (!arr || !obj)
		return arr;
	buf_init(&ty, CG_PIECE_MAX);
	for (i = 0; i < obj->nprops; i++) {
		const struct cg_prop *p = &obj->props[i];

		buf_reset(&ty);
		py_type(&ty, p->type);
		if (buf_error(&ty))
			goto out_fail;
		a = json_pack("{s:s,s:s,s:b,s:s%}", "name", p->key, "type", ty.data ? ty.data : "",
			      "required", p->required, "description",
			      p->description ? p->description : "", p->description_len);
		if (json_array_append_new(arr, a))
			goto out_fail;
	}
	buf_free(&ty);
	return arr;
out_fail:
	buf_free(&ty);
	json_decref(arr);
	return NULL;
}

json_t *cg_tool_py_api(const struct cg_root *r, size_t server_index, json_t *tools, json_t *tool)
{
	struct cg_tool_in in = {0};
	struct cg_tool_types tt;
	struct py_parts pp;
	json_t *out = NULL, *args = NULL;
	char *ident = tool_ident(tools, tool);
	int rc;

	buf_init(&pp.params, CG_PIECE_MAX);
	buf_init(&pp.body, CG_PIECE_MAX);
	buf_init(&pp.doc, CG_PIECE_MAX);
	buf_init(&pp.types, CG_PIECE_MAX);
	buf_init(&pp.ret, CG_PIECE_MAX);
	if (!ident || server_index >= cg_root_nservers(r)) {
		free(ident);
		return NULL;
	}
	in.server_name = cg_root_server_name(r, server_index);
	in.server_ident = cg_root_server_ident(r, server_index);
	in.name = json_string_value(json_object_get(tool, "name"));
	in.ident = ident;
	in.tool = tool;
	in.t = cg_templates_embedded();
	rc = cg_tool_types_build(&in, &tt);
	if (!rc) {
		py_params(&pp, &tt);
		if (tt.output)
			py_type(&pp.ret, tt.output);
		else
			buf_puts(&pp.ret, "_t.Any");
		rc = buf_first_error(&pp.params, &pp.body, &pp.doc, &pp.types, &pp.ret, NULL);
	}
	if (!rc)
		args = py_args(&tt);
	if (args)
		out = json_pack("{s:s+++,s:s++++++,s:o}", "import", "from servers.",
				in.server_ident, " import ", ident, "signature", "def ", ident, "(",
				pp.params.data ? pp.params.data : "", ") -> ",
				pp.ret.data ? pp.ret.data : "", ": ...", "args", args);
	cg_tool_types_free(&tt);
	buf_free(&pp.params);
	buf_free(&pp.body);
	buf_free(&pp.doc);
	buf_free(&pp.types);
	buf_free(&pp.ret);
	free(ident);
	return out;
}
