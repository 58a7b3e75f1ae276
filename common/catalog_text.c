#include "catalog_text.h"

#include <stdlib.h>
#include <string.h>

#include "jsonpack.h"

#define NO_NAME ((size_t)-1)

struct tool_slice {
	size_t off, len; /* the Tool object in packed */
	size_t name;	 /* its name in names, NUL-terminated, or NO_NAME */
};

struct catalog_text {
	unsigned long refs;	   /* atomic */
	struct catalog_text *base; /* a reference: a subset's packed and names are its */
	char *packed;		   /* every tool, MessagePack: owned unless base */
	char *names;		   /* every name, NUL-terminated: owned unless base */
	size_t n;
	struct tool_slice *tools; /* owned, in catalog order */
};

/* Give back a big catalog's doubling slack. */
static char *fit(char *p, size_t len)
{
	char *fitted = realloc(p, len ? len : 1);

	return fitted ? fitted : p;
}

struct catalog_text *catalog_text_new(json_t *tools)
{
	struct catalog_text *c;
	msgpack_sbuffer packed, names;
	json_t *v;
	size_t i, len;
	const char *name;

	if (!json_is_array(tools))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->refs = 1;
	c->tools = calloc(json_array_size(tools) + 1, sizeof(*c->tools));
	if (!c->tools)
		goto fail;
	msgpack_sbuffer_init(&packed);
	msgpack_sbuffer_init(&names);
	json_array_foreach(tools, i, v)
	{
		c->tools[i].off = packed.size;
		if (jsonpack_append(&packed, v))
			goto fail_buffers;
		c->tools[i].len = packed.size - c->tools[i].off;
		name = json_string_value(json_object_get(v, "name"));
		c->tools[i].name = name ? names.size : NO_NAME;
		if (name && msgpack_sbuffer_write(&names, name, strlen(name) + 1))
			goto fail_buffers;
		c->n = i + 1;
	}
	len = packed.size;
	c->packed = fit(msgpack_sbuffer_release(&packed), len);
	len = names.size;
	c->names = fit(msgpack_sbuffer_release(&names), len);
	if (!c->packed || !c->names)
		goto fail;
	return c;
fail_buffers:
	msgpack_sbuffer_destroy(&packed);
	msgpack_sbuffer_destroy(&names);
fail:
	catalog_text_free(c);
	return NULL;
}

struct catalog_text *catalog_text_subset(struct catalog_text *c, json_t *all, json_t *shown)
{
	struct catalog_text *sub;
	size_t i, j = 0, n = json_array_size(shown);

	if (shown == all)
		return catalog_text_ref(c);
	if (json_array_size(all) != c->n)
		return NULL;
	sub = calloc(1, sizeof(*sub));
	if (!sub)
		return NULL;
	sub->refs = 1;
	sub->base = catalog_text_ref(c);
	sub->packed = c->packed;
	sub->names = c->names;
	sub->tools = calloc(n + 1, sizeof(*sub->tools));
	if (!sub->tools)
		goto fail;
	for (i = 0; i < n; i++) {
		json_t *v = json_array_get(shown, i);

		while (j < c->n && json_array_get(all, j) != v)
			j++;
		if (j == c->n)
			goto fail;
		sub->tools[sub->n++] = c->tools[j++];
	}
	return sub;
fail:
	catalog_text_free(sub);
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
	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (c->base) {
		catalog_text_free(c->base);
	} else {
		free(c->packed);
		free(c->names);
	}
	free(c->tools);
	free(c);
}

size_t catalog_text_count(const struct catalog_text *c)
{
	return c ? c->n : 0;
}

const char *catalog_text_name(const struct catalog_text *c, size_t i)
{
	return c->tools[i].name == NO_NAME ? NULL : c->names + c->tools[i].name;
}

json_t *catalog_text_at(const struct catalog_text *c, size_t i)
{
	return jsonpack_unpack(c->packed + c->tools[i].off, c->tools[i].len);
}

bool catalog_text_same(const struct catalog_text *a, const struct catalog_text *b)
{
	size_t i;

	if (!a || !b)
		return a == b;
	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->tools[i].len != b->tools[i].len ||
		    memcmp(a->packed + a->tools[i].off, b->packed + b->tools[i].off,
			   a->tools[i].len))
			return false;
	return true;
}

json_t *catalog_text_tools(const struct catalog_text *c)
{
	json_t *all = json_array(), *one;
	size_t i;

	for (i = 0; all && i < c->n; i++) {
		one = catalog_text_at(c, i);
		if (json_array_append_new(all, one) < 0) {
			json_decref(all);
			all = NULL;
		}
	}
	return all;
}

json_t *catalog_text_tool(const struct catalog_text *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->tools[i].name != NO_NAME && !strcmp(c->names + c->tools[i].name, name))
			return catalog_text_at(c, i);
	return NULL;
}
