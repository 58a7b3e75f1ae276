#include "catalog_text.h"

#include <stdlib.h>
#include <string.h>

#include "jsonx.h"

#define NO_NAME ((size_t)-1)

struct tool_slice {
	size_t off, len;  /* the Tool object in text */
	size_t token_max; /* its longest token: jsonx_parse_own */
	size_t name;	  /* its name in names, NUL-terminated, or NO_NAME */
};

struct catalog_text {
	unsigned long refs;	   /* atomic */
	struct catalog_text *base; /* a reference: a subset's text and names are its */
	char *text;		   /* the compact array, "[...]": owned unless base */
	char *names;		   /* every name, NUL-terminated: owned unless base */
	size_t len;
	size_t n;
	size_t longest;		  /* the longest token of any tool */
	struct tool_slice *tools; /* owned, in catalog order */
};

/* Append @n bytes to *@p (*@len used of *@cap), doubling. 0 or -1. */
static int append(char **p, size_t *len, size_t *cap, const char *bytes, size_t n)
{
	char *grown;

	if (*len + n > *cap) {
		while (*len + n > *cap)
			*cap *= 2;
		grown = realloc(*p, *cap);
		if (!grown)
			return -1;
		*p = grown;
	}
	memcpy(*p + *len, bytes, n);
	*len += n;
	return 0;
}

/* Give back a big catalog's doubling slack. */
static char *fit(char *p, size_t len)
{
	char *fitted = realloc(p, len ? len : 1);

	return fitted ? fitted : p;
}

struct catalog_text *catalog_text_new(json_t *tools)
{
	struct catalog_text *c;
	json_t *v;
	size_t i, cap = 2, names_len = 0, names_cap = 16;
	const char *name;
	char *one;

	if (!json_is_array(tools))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->refs = 1;
	c->tools = calloc(json_array_size(tools) + 1, sizeof(*c->tools));
	c->text = malloc(cap);
	c->names = malloc(names_cap);
	if (!c->tools || !c->text || !c->names)
		goto fail;
	c->text[c->len++] = '[';
	json_array_foreach(tools, i, v)
	{
		size_t len;
		int rc;

		one = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!one)
			goto fail;
		len = strlen(one);
		rc = (i && append(&c->text, &c->len, &cap, ",", 1)) ||
		     append(&c->text, &c->len, &cap, one, len);
		free(one);
		if (rc)
			goto fail;
		c->tools[i].off = c->len - len;
		c->tools[i].len = len;
		c->tools[i].token_max = jsonx_longest_token(c->text + c->len - len, len);
		if (c->tools[i].token_max > c->longest)
			c->longest = c->tools[i].token_max;
		name = json_string_value(json_object_get(v, "name"));
		c->tools[i].name = name ? names_len : NO_NAME;
		if (name && append(&c->names, &names_len, &names_cap, name, strlen(name) + 1))
			goto fail;
		c->n = i + 1;
	}
	if (append(&c->text, &c->len, &cap, "]", 1))
		goto fail;
	c->text = fit(c->text, c->len);
	c->names = fit(c->names, names_len);
	return c;
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
	sub->text = c->text;
	sub->names = c->names;
	sub->len = c->len;
	sub->longest = c->longest;
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
		free(c->text);
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
	return jsonx_parse_own(c->text + c->tools[i].off, c->tools[i].len, c->tools[i].token_max);
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
		    memcmp(a->text + a->tools[i].off, b->text + b->tools[i].off, a->tools[i].len))
			return false;
	return true;
}

json_t *catalog_text_tools(const struct catalog_text *c)
{
	json_t *all, *one;
	size_t i;

	if (!c->base)
		return jsonx_parse_own(c->text, c->len, c->longest);
	all = json_array();
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
