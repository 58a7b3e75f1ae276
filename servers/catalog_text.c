#include "catalog_text.h"

#include <stdlib.h>
#include <string.h>

#include "../common/jsonx.h"

struct tool_slice {
	char *name; /* owned; "" for a tool without a string name */
	size_t off, len;
};

struct catalog_text {
	unsigned long refs; /* atomic */
	char *text;	    /* owned: the compact array, "[...]" */
	size_t len;
	size_t n;
	size_t longest;		  /* the longest tool's text: no token is longer */
	struct tool_slice *tools; /* owned, in catalog order */
};

struct catalog_text *catalog_text_new(json_t *tools)
{
	struct catalog_text *c;
	json_t *v;
	size_t i, cap = 2;
	char *one, *grown;

	if (!json_is_array(tools))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->refs = 1;
	c->tools = calloc(json_array_size(tools) + 1, sizeof(*c->tools));
	c->text = malloc(cap);
	if (!c->tools || !c->text)
		goto fail;
	c->text[c->len++] = '[';
	json_array_foreach(tools, i, v)
	{
		size_t len;

		one = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!one)
			goto fail;
		len = strlen(one);
		if (c->len + len + 2 > cap) {
			while (c->len + len + 2 > cap)
				cap *= 2;
			grown = realloc(c->text, cap);
			if (!grown) {
				free(one);
				goto fail;
			}
			c->text = grown;
		}
		if (i)
			c->text[c->len++] = ',';
		c->tools[i].off = c->len;
		c->tools[i].len = len;
		if (len > c->longest)
			c->longest = len;
		memcpy(c->text + c->len, one, len);
		c->len += len;
		free(one);
		c->tools[i].name = strdup(json_string_value(json_object_get(v, "name")) ?: "");
		c->n = i + 1;
		if (!c->tools[i].name)
			goto fail;
	}
	c->text[c->len++] = ']';
	/* Exactly the bytes held: a big catalog's doubling slack is not kept. */
	grown = realloc(c->text, c->len);
	if (grown)
		c->text = grown;
	return c;
fail:
	catalog_text_free(c);
	return NULL;
}

struct catalog_text *catalog_text_ref(struct catalog_text *c)
{
	if (c)
		__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
	return c;
}

void catalog_text_free(struct catalog_text *c)
{
	size_t i;

	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (i = 0; c->tools && i < c->n; i++)
		free(c->tools[i].name);
	free(c->tools);
	free(c->text);
	free(c);
}

size_t catalog_text_count(const struct catalog_text *c)
{
	return c ? c->n : 0;
}

bool catalog_text_same(const struct catalog_text *a, const struct catalog_text *b)
{
	if (!a || !b)
		return a == b;
	return a->len == b->len && !memcmp(a->text, b->text, a->len);
}

json_t *catalog_text_tools(const struct catalog_text *c)
{
	return jsonx_parse_own(c->text, c->len, c->longest);
}

json_t *catalog_text_tool(const struct catalog_text *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->tools[i].name, name))
			return jsonx_parse_own(c->text + c->tools[i].off, c->tools[i].len,
					       c->tools[i].len);
	return NULL;
}
