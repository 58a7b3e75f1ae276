#include "tool_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "text_i.h"

int cg_tool_types_build(const struct cg_tool_in *in, struct cg_tool_types *tt)
{
	struct buf prefix;
	json_t *out_schema;
	const char *p;

	cg_arena_init(&tt->arena);
	cg_schema_init(&tt->schema, &tt->arena, "Tool");
	buf_init(&prefix, 256);
	if (cg_camel(&prefix, in->ident)) {
		buf_free(&prefix);
		return -ENOMEM;
	}
	p = cg_arena_strdup(&tt->arena, prefix.data ? prefix.data : "Tool");
	buf_free(&prefix);
	if (!p)
		return -ENOMEM;
	cg_schema_init(&tt->schema, &tt->arena, p);
	tt->input = cg_schema_top(&tt->schema, json_object_get(in->tool, "inputSchema"), "Input");
	if (!tt->input)
		return -ENOMEM;
	tt->input_obj = cg_schema_deref(&tt->schema, tt->input);
	if (tt->input_obj->kind != CG_T_OBJECT)
		tt->input_obj = NULL;
	tt->output = NULL;
	out_schema = json_object_get(in->tool, "outputSchema");
	if (out_schema && !json_is_null(out_schema)) {
		tt->output = cg_schema_top(&tt->schema, out_schema, "Output");
		if (!tt->output)
			return -ENOMEM;
	}
	return 0;
}

void cg_tool_types_free(struct cg_tool_types *tt)
{
	cg_schema_release(&tt->schema);
	cg_arena_free(&tt->arena);
}

bool cg_output_typed(const struct cg_tool_types *tt)
{
	return tt->output && tt->output->kind != CG_T_ANY;
}

const char *cg_tool_title(json_t *tool, size_t *len)
{
	json_t *t = json_object_get(tool, "title");

	if (!json_string_length(t))
		t = json_object_get(json_object_get(tool, "annotations"), "title");
	*len = json_string_length(t);
	return *len ? json_string_value(t) : NULL;
}

const char *cg_tool_description(json_t *tool, size_t *len)
{
	json_t *d = json_object_get(tool, "description");

	*len = json_string_length(d);
	return json_is_string(d) ? json_string_value(d) : "";
}

int cg_schema_snippet(struct buf *b, json_t *schema, size_t max)
{
	char *s = json_dumps(schema, JSON_COMPACT | JSON_ENCODE_ANY);
	size_t len, n;

	if (!s)
		return buf_fail(b, -ENOMEM);
	len = strlen(s);
	if (len <= max) {
		buf_append(b, s, len);
	} else {
		/* Cut on a character boundary. */
		for (n = max; n && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
			;
		buf_append(b, s, n);
		buf_puts(b, "...");
	}
	free(s);
	return buf_error(b);
}
