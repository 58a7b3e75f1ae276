#include "facts_i.h"

#include <stdio.h>
#include <string.h>

/* Allowed values listed at most; the rest is "...". */
#define FACTS_ENUM_MAX 20
/* A default or a value, at most (then cut with "..."). */
#define FACTS_VALUE_MAX 200

bool cg_needs_stop(char last)
{
	return (last >= 'a' && last <= 'z') || (last >= 'A' && last <= 'Z') ||
	       (last >= '0' && last <= '9') || last == ')' || last == '"' || last == '\'' ||
	       (unsigned char)last >= 0x80;
}

void cg_sentence(struct buf *b, const char *s, size_t len)
{
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\n' || s[len - 1] == '\r' ||
		       s[len - 1] == '\t'))
		len--;
	if (!len)
		return;
	buf_append(b, s, len);
	if (cg_needs_stop(s[len - 1]))
		buf_putc(b, '.');
}

/* A double-quoted string with JSON's escapes, which Python and TypeScript
 * read the same way. */
static void quoted(struct buf *b, const char *s, size_t len)
{
	size_t i;

	buf_putc(b, '"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", c);
		else if (c == '\n')
			buf_puts(b, "\\n");
		else if (c < 0x20 || c == 0x7f)
			buf_printf(b, "\\u%04x", c);
		else
			buf_putc(b, (char)c);
	}
	buf_putc(b, '"');
}

/* The shortest form of a real that reads back the same, as people write it. */
static void number(struct buf *b, json_t *v)
{
	double d = json_real_value(v), back;
	char num[64];
	int prec;

	if (json_is_integer(v)) {
		buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(num, sizeof(num), "%.*g", prec, d);
		if (sscanf(num, "%lf", &back) == 1 && back == d)
			break;
	}
	buf_puts(b, num);
	if (!strpbrk(num, ".eEni"))
		buf_puts(b, ".0");
}

static void literal(struct buf *b, json_t *v, enum cg_syntax syn, size_t start, size_t max)
{
	const char *key;
	json_t *item;
	size_t i;

	if (b->len - start > max)
		return;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		buf_putc(b, '{');
		i = 0;
		json_object_foreach(v, key, item)
		{
			buf_puts(b, i++ ? ", " : "");
			quoted(b, key, strlen(key));
			buf_puts(b, ": ");
			literal(b, item, syn, start, max);
		}
		buf_putc(b, '}');
		return;
	case JSON_ARRAY:
		buf_putc(b, '[');
		json_array_foreach(v, i, item)
		{
			buf_puts(b, i ? ", " : "");
			literal(b, item, syn, start, max);
		}
		buf_putc(b, ']');
		return;
	case JSON_STRING:
		quoted(b, json_string_value(v), json_string_length(v));
		return;
	case JSON_INTEGER:
	case JSON_REAL:
		number(b, v);
		return;
	case JSON_TRUE:
		buf_puts(b, syn == CG_SYNTAX_PY ? "True" : "true");
		return;
	case JSON_FALSE:
		buf_puts(b, syn == CG_SYNTAX_PY ? "False" : "false");
		return;
	case JSON_NULL:
		buf_puts(b, syn == CG_SYNTAX_PY ? "None" : "null");
		return;
	}
}

void cg_literal(struct buf *b, json_t *v, enum cg_syntax syn, size_t max)
{
	size_t start = b->len, n;

	literal(b, v, syn, start, max);
	if (buf_error(b) || b->len - start <= max)
		return;
	/* Cut on a character boundary. */
	for (n = start + max; n > start && ((unsigned char)b->data[n] & 0xc0) == 0x80; n--)
		;
	b->len = n;
	b->data[n] = '\0';
	buf_puts(b, "...");
}

static json_t *num_or_null(json_t *schema, const char *key)
{
	json_t *v = json_object_get(schema, key);

	return json_is_number(v) ? v : NULL;
}

/* "From 1 to 10." and its one-sided and exclusive forms. */
static void range(struct buf *b, json_t *schema)
{
	json_t *min = num_or_null(schema, "minimum"), *max = num_or_null(schema, "maximum");
	json_t *xmin = num_or_null(schema, "exclusiveMinimum");
	json_t *xmax = num_or_null(schema, "exclusiveMaximum");
	json_t *step = num_or_null(schema, "multipleOf");

	/* Draft 4 wrote exclusivity as booleans beside minimum and maximum. */
	if (min && json_is_true(json_object_get(schema, "exclusiveMinimum"))) {
		xmin = min;
		min = NULL;
	}
	if (max && json_is_true(json_object_get(schema, "exclusiveMaximum"))) {
		xmax = max;
		max = NULL;
	}
	if (min && max) {
		buf_puts(b, " From ");
		number(b, min);
		buf_puts(b, " to ");
		number(b, max);
		buf_putc(b, '.');
	} else if (min) {
		buf_puts(b, " At least ");
		number(b, min);
		buf_putc(b, '.');
	} else if (max) {
		buf_puts(b, " At most ");
		number(b, max);
		buf_putc(b, '.');
	}
	if (xmin) {
		buf_puts(b, " More than ");
		number(b, xmin);
		buf_putc(b, '.');
	}
	if (xmax) {
		buf_puts(b, " Less than ");
		number(b, xmax);
		buf_putc(b, '.');
	}
	if (step) {
		buf_puts(b, " A multiple of ");
		number(b, step);
		buf_putc(b, '.');
	}
}

/* "1 to 5 items.", "At least 1 character." (@unit is singular: "item"). */
static void count(struct buf *b, json_t *schema, const char *min_key, const char *max_key,
		  const char *unit)
{
	json_t *min = json_object_get(schema, min_key), *max = json_object_get(schema, max_key);
	bool has_min = json_is_integer(min) && json_integer_value(min) > 0;
	bool has_max = json_is_integer(max);
	json_int_t last = has_max ? json_integer_value(max) : has_min ? json_integer_value(min) : 0;
	const char *s = last == 1 ? "" : "s";

	if (has_min && has_max && json_integer_value(min) == json_integer_value(max))
		buf_printf(b, " Exactly %" JSON_INTEGER_FORMAT " %s%s.", last, unit, s);
	else if (has_min && has_max)
		buf_printf(b, " %" JSON_INTEGER_FORMAT " to %" JSON_INTEGER_FORMAT " %s%s.",
			   json_integer_value(min), last, unit, s);
	else if (has_min)
		buf_printf(b, " At least %" JSON_INTEGER_FORMAT " %s%s.", last, unit, s);
	else if (has_max)
		buf_printf(b, " At most %" JSON_INTEGER_FORMAT " %s%s.", last, unit, s);
}

static void allowed(struct buf *b, const char *lead, json_t *values, enum cg_syntax syn)
{
	json_t *v;
	size_t i;

	if (!json_is_array(values) || !json_array_size(values))
		return;
	buf_puts(b, lead);
	json_array_foreach(values, i, v)
	{
		if (i == FACTS_ENUM_MAX) {
			buf_printf(b, ", ... (%zu in all)", json_array_size(values));
			break;
		}
		buf_puts(b, i ? ", " : "");
		cg_literal(b, v, syn, FACTS_VALUE_MAX);
	}
	buf_putc(b, '.');
}

static void text_fact(struct buf *b, json_t *schema, const char *key, const char *lead)
{
	json_t *v = json_object_get(schema, key);

	if (!json_is_string(v) || !json_string_length(v))
		return;
	buf_puts(b, lead);
	buf_append(b, json_string_value(v), json_string_length(v));
	buf_putc(b, '.');
}

void cg_facts_schema(struct buf *b, json_t *schema, enum cg_syntax syn)
{
	json_t *items = json_object_get(schema, "items"), *v;

	if (!json_is_object(schema))
		return;
	allowed(b, " Allowed: ", json_object_get(schema, "enum"), syn);
	if ((v = json_object_get(schema, "const"))) {
		buf_puts(b, " Always ");
		cg_literal(b, v, syn, FACTS_VALUE_MAX);
		buf_putc(b, '.');
	}
	range(b, schema);
	count(b, schema, "minLength", "maxLength", "character");
	text_fact(b, schema, "format", " Format: ");
	text_fact(b, schema, "pattern", " Pattern: ");
	count(b, schema, "minItems", "maxItems", "item");
	if (json_is_true(json_object_get(schema, "uniqueItems")))
		buf_puts(b, " No duplicate items.");
	if (json_is_object(items)) {
		allowed(b, " Each item one of: ", json_object_get(items, "enum"), syn);
		text_fact(b, items, "format", " Each item's format: ");
	}
	if ((v = json_object_get(schema, "default"))) {
		buf_puts(b, " Default: ");
		cg_literal(b, v, syn, FACTS_VALUE_MAX);
		buf_putc(b, '.');
	}
}

void cg_facts_annotations(struct buf *b, json_t *tool)
{
	json_t *a = json_object_get(tool, "annotations");
	json_t *ro = json_object_get(a, "readOnlyHint"),
	       *de = json_object_get(a, "destructiveHint");
	json_t *id = json_object_get(a, "idempotentHint"),
	       *ow = json_object_get(a, "openWorldHint");
	const char *parts[4];
	size_t n = 0, i;

	if (json_is_true(ro))
		parts[n++] = "read-only";
	else if (json_is_false(ro) && !json_is_boolean(de) && !json_is_boolean(id))
		parts[n++] = "not read-only";
	/* The spec gives these meaning only for a tool that is not read-only. */
	if (!json_is_true(ro) && json_is_boolean(de))
		parts[n++] = json_is_true(de) ? "destructive (may delete or overwrite)"
					      : "not destructive (only adds)";
	if (!json_is_true(ro) && json_is_boolean(id))
		parts[n++] = json_is_true(id) ? "idempotent (repeating a call changes nothing more)"
					      : "not idempotent";
	if (json_is_boolean(ow))
		parts[n++] =
		    json_is_true(ow) ? "open world (reaches outside systems)" : "closed world";
	if (!n)
		return;
	buf_puts(b, "Hints from the server: ");
	for (i = 0; i < n; i++) {
		if (i)
			buf_puts(b, ", ");
		buf_puts(b, parts[i]);
	}
	buf_putc(b, '.');
}
