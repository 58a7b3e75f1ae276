#include "schema_i.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names_i.h"
#include "text_i.h"

#define MAX_DEPTH 48
#define MAX_NODES 20000
#define MAX_PROPS 512
/* Objects nested deeper than this become plain maps: type checkers (mypy
 * 1.0) slow down exponentially on deep TypedDict nesting. */
#define MAX_OBJECT_DEPTH 10
#define NAME_MAX_LEN 120

struct cg_def {
	json_t *root;	     /* borrowed: the document the pointer is in */
	const char *pointer; /* "" is the whole document */
	const char *name;
	struct cg_type *type;
	int state; /* 0 not converted, 1 converting, 2 done */
	struct cg_def *next;
};

struct conv {
	struct cg_schema *s;
	json_t *root;
	int depth;
	int object_depth; /* objects being converted, outermost first */
};

static struct cg_type *convert(struct conv *c, json_t *schema, const char *hint, const char *fixed,
			       bool guarded);
static struct cg_def *def_get(struct conv *c, const char *pointer, const char *hint,
			      json_t **target);
static struct cg_type *def_convert(struct conv *c, struct cg_def *d, json_t *schema);
static struct cg_type *any(struct cg_schema *s);

void cg_schema_init(struct cg_schema *s, struct cg_arena *a, const char *prefix)
{
	memset(s, 0, sizeof(*s));
	s->arena = a;
	s->prefix = prefix;
}

void cg_schema_release(struct cg_schema *s)
{
	struct cg_kept *k;

	for (k = s->kept; k; k = k->next)
		json_decref(k->json);
	s->kept = NULL;
}

const struct cg_type *cg_schema_deref(const struct cg_schema *s, const struct cg_type *t)
{
	const struct cg_def *d;
	int hops;

	for (hops = 0; t && t->kind == CG_T_REF && hops < 64; hops++) {
		for (d = s->defs; d; d = d->next)
			if (d->name == t->name)
				break;
		if (!d || !d->type)
			return t;
		t = d->type;
	}
	return t;
}

struct cg_type *cg_schema_top(struct cg_schema *s, json_t *schema, const char *suffix)
{
	char name[NAME_MAX_LEN + 24];
	struct conv c = {.s = s, .root = schema, .depth = 0};
	struct cg_def *d;
	json_t *target = NULL;

	snprintf(name, sizeof(name), "%s%s", s->prefix, suffix);
	d = def_get(&c, "", name, &target);
	if (!d)
		return s->oom ? NULL : any(s);
	if (d->state == 0 && !def_convert(&c, d, target ? target : schema))
		return NULL;
	return d->type;
}

static struct cg_type *node(struct cg_schema *s, enum cg_tkind kind)
{
	struct cg_type *t;

	if (s->nodes >= MAX_NODES && kind != CG_T_ANY) {
		kind = CG_T_ANY;
	}
	t = cg_arena_alloc(s->arena, sizeof(*t));
	if (!t) {
		s->oom = true;
		return NULL;
	}
	s->nodes++;
	t->kind = kind;
	return t;
}

static struct cg_type *any(struct cg_schema *s)
{
	return node(s, CG_T_ANY);
}

/* A unique type name: @base, else @base2, @base3... NULL when the file has
 * as many names as it may declare. */
static const char *take_name(struct cg_schema *s, const char *base)
{
	char buf[NAME_MAX_LEN + 24];
	size_t i, k;
	char *name;

	if (!s->names) {
		s->names = cg_arena_alloc(s->arena, CG_SCHEMA_MAX_DECLS * sizeof(*s->names));
		if (!s->names) {
			s->oom = true;
			return NULL;
		}
	}
	if (s->nnames >= CG_SCHEMA_MAX_DECLS)
		return NULL;
	snprintf(buf, sizeof(buf), "%.*s", NAME_MAX_LEN, base);
	for (k = 2;; k++) {
		for (i = 0; i < s->nnames; i++)
			if (!strcmp(s->names[i], buf))
				break;
		if (i == s->nnames)
			break;
		snprintf(buf, sizeof(buf), "%.*s%zu", NAME_MAX_LEN, base, k);
	}
	name = cg_arena_strdup(s->arena, buf);
	if (!name) {
		s->oom = true;
		return NULL;
	}
	s->names[s->nnames++] = name;
	return name;
}

static void declare(struct cg_schema *s, const char *name, struct cg_type *t)
{
	if (s->ndecls < CG_SCHEMA_MAX_DECLS) {
		s->decls[s->ndecls].name = name;
		s->decls[s->ndecls].type = t;
		s->ndecls++;
	}
}

/* hint + CamelCase(word), in the arena. */
static const char *hint_join(struct cg_schema *s, const char *hint, const char *word)
{
	char ident[CG_IDENT_BUF], out[NAME_MAX_LEN + CG_IDENT_BUF + 1];
	size_t len = strlen(hint), i;
	bool up = true;
	char *p;

	if (len > NAME_MAX_LEN)
		len = NAME_MAX_LEN;
	memcpy(out, hint, len);
	cg_ident_base(word, "n", ident);
	/* Same as cg_camel, without a buffer to grow: this runs once a property. */
	for (i = 0; ident[i]; i++) {
		if (ident[i] == '_') {
			up = true;
			continue;
		}
		out[len++] = up && ident[i] >= 'a' && ident[i] <= 'z' ? (char)(ident[i] - 'a' + 'A')
								      : ident[i];
		up = false;
	}
	p = cg_arena_strndup(s->arena, out, len);
	if (!p)
		s->oom = true;
	return p ? p : hint;
}

/* The value at a JSON pointer ("#/a/b", ~0 ~1 escapes) in @root, or NULL. */
static json_t *pointer_get(json_t *root, const char *ptr)
{
	char seg[256];
	json_t *cur = root;
	const char *p = ptr;
	size_t n;
	char *end;
	unsigned long idx;

	while (*p == '/' && cur) {
		p++;
		for (n = 0; *p && *p != '/' && n < sizeof(seg) - 1; p++) {
			if (*p == '~' && p[1] == '0') {
				seg[n++] = '~';
				p++;
			} else if (*p == '~' && p[1] == '1') {
				seg[n++] = '/';
				p++;
			} else {
				seg[n++] = *p;
			}
		}
		seg[n] = '\0';
		if (json_is_object(cur)) {
			cur = json_object_get(cur, seg);
		} else if (json_is_array(cur)) {
			idx = strtoul(seg, &end, 10);
			cur = (*end || !*seg) ? NULL : json_array_get(cur, idx);
		} else {
			cur = NULL;
		}
	}
	return *p ? NULL : cur;
}

static const char *def_base_name(const char *ptr)
{
	const char *slash = strrchr(ptr, '/');

	return slash ? slash + 1 : ptr;
}

/* The definition behind a local $ref, converted on first use. NULL when the
 * reference does not resolve or the file is out of names. */
static struct cg_def *def_get(struct conv *c, const char *pointer, const char *hint,
			      json_t **target)
{
	struct cg_schema *s = c->s;
	struct cg_def *d;
	const char *base;
	json_t *schema;

	for (d = s->defs; d; d = d->next)
		if (d->root == c->root && !strcmp(d->pointer, pointer)) {
			*target = pointer_get(c->root, pointer);
			return d;
		}
	schema = pointer_get(c->root, pointer);
	if (!schema)
		return NULL;
	d = cg_arena_alloc(s->arena, sizeof(*d));
	if (!d) {
		s->oom = true;
		return NULL;
	}
	d->root = c->root;
	d->pointer = cg_arena_strdup(s->arena, pointer);
	base = *pointer ? hint_join(s, s->prefix, def_base_name(pointer)) : hint;
	d->name = take_name(s, base);
	if (!d->pointer || !d->name)
		return NULL;
	d->next = s->defs;
	s->defs = d;
	*target = schema;
	return d;
}

static struct cg_type *def_convert(struct conv *c, struct cg_def *d, json_t *schema)
{
	struct cg_type *t;

	d->state = 1;
	t = convert(c, schema, d->name, d->name, false);
	if (!t)
		return NULL;
	d->type = t;
	d->state = 2;
	if (!(t->kind == CG_T_OBJECT && t->name == d->name))
		declare(c->s, d->name, t);
	return t;
}

static struct cg_type *convert_ref(struct conv *c, const char *ref, const char *hint, bool guarded)
{
	struct cg_def *d;
	struct cg_type *t;
	json_t *target = NULL;

	if (ref[0] != '#')
		return any(c->s);
	d = def_get(c, ref + 1, hint, &target);
	if (!d)
		return c->s->oom ? NULL : any(c->s);
	if (d->state == 1 && !guarded)
		return any(c->s); /* a type that is itself, with no container between */
	if (d->state == 0 && !def_convert(c, d, target))
		return NULL;
	t = node(c->s, CG_T_REF);
	if (t)
		t->name = d->name;
	return t;
}

static bool same_type(const struct cg_type *a, const struct cg_type *b)
{
	switch (a->kind) {
	case CG_T_NULL:
	case CG_T_BOOL:
	case CG_T_INT:
	case CG_T_NUM:
	case CG_T_STR:
		return a->kind == b->kind;
	case CG_T_LIT:
		return b->kind == CG_T_LIT && json_equal(a->lit, b->lit);
	case CG_T_REF:
		return b->kind == CG_T_REF && !strcmp(a->name, b->name);
	case CG_T_ANY:
	case CG_T_NEVER:
	case CG_T_ARRAY:
	case CG_T_TUPLE:
	case CG_T_MAP:
	case CG_T_OBJECT:
	case CG_T_UNION:
		return false;
	}
	return false;
}

/* A union of @n types: flattened, duplicates and never-types dropped; any
 * member that is Any makes the whole Any. */
static struct cg_type *make_union(struct cg_schema *s, struct cg_type **in, size_t n)
{
	struct cg_type **out, *t;
	size_t i, j, k, m = 0, total = 0;

	for (i = 0; i < n; i++) {
		if (!in[i])
			return NULL;
		if (in[i]->kind == CG_T_ANY)
			return in[i];
		total += in[i]->kind == CG_T_UNION ? in[i]->nelems : 1;
	}
	out = cg_arena_alloc(s->arena, (total ? total : 1) * sizeof(*out));
	if (!out) {
		s->oom = true;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		size_t cnt = in[i]->kind == CG_T_UNION ? in[i]->nelems : 1;

		for (k = 0; k < cnt; k++) {
			t = in[i]->kind == CG_T_UNION ? in[i]->elems[k] : in[i];
			if (t->kind == CG_T_NEVER)
				continue;
			for (j = 0; j < m; j++)
				if (same_type(out[j], t))
					break;
			if (j == m)
				out[m++] = t;
		}
	}
	if (m == 0)
		return node(s, CG_T_NEVER);
	if (m == 1)
		return out[0];
	t = node(s, CG_T_UNION);
	if (t) {
		t->elems = out;
		t->nelems = m;
	}
	return t;
}

static struct cg_type *convert_members(struct conv *c, json_t *arr, const char *hint, bool guarded)
{
	struct cg_type **ts;
	char word[32];
	size_t i, n = json_array_size(arr);

	if (n == 0)
		return any(c->s);
	ts = cg_arena_alloc(c->s->arena, n * sizeof(*ts));
	if (!ts) {
		c->s->oom = true;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		snprintf(word, sizeof(word), "option%zu", i + 1);
		ts[i] =
		    convert(c, json_array_get(arr, i), hint_join(c->s, hint, word), NULL, guarded);
		if (!ts[i])
			return NULL;
	}
	return make_union(c->s, ts, n);
}

static struct cg_type *convert_enum(struct conv *c, json_t *arr)
{
	struct cg_type **ts;
	size_t i, n = json_array_size(arr);

	if (n == 0)
		return node(c->s, CG_T_NEVER);
	ts = cg_arena_alloc(c->s->arena, n * sizeof(*ts));
	if (!ts) {
		c->s->oom = true;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		ts[i] = node(c->s, CG_T_LIT);
		if (!ts[i])
			return NULL;
		ts[i]->lit = json_array_get(arr, i);
	}
	return make_union(c->s, ts, n);
}

/* Extra keys of an object: additionalProperties and patternProperties. */
static struct cg_type *convert_extra(struct conv *c, json_t *schema, const char *hint)
{
	json_t *ap = json_object_get(schema, "additionalProperties");
	json_t *pp = json_object_get(schema, "patternProperties");
	struct cg_type *ts[2];
	size_t n = 0;
	json_t *v;

	if (ap && !json_is_false(ap)) {
		ts[n] = convert(c, ap, hint_join(c->s, hint, "value"), NULL, true);
		if (!ts[n++])
			return NULL;
	}
	if (json_is_object(pp) && json_object_size(pp)) {
		/* One pattern: its values' type; several: values of any of them. */
		v = json_object_iter_value(json_object_iter(pp));
		ts[n] = json_object_size(pp) == 1
			    ? convert(c, v, hint_join(c->s, hint, "value"), NULL, true)
			    : any(c->s);
		if (!ts[n++])
			return NULL;
	}
	if (n == 0)
		return NULL;
	return make_union(c->s, ts, n);
}

static bool in_array_of_strings(json_t *arr, const char *key)
{
	size_t i;

	for (i = 0; i < json_array_size(arr); i++)
		if (json_is_string(json_array_get(arr, i)) &&
		    !strcmp(json_string_value(json_array_get(arr, i)), key))
			return true;
	return false;
}

static struct cg_type *convert_object(struct conv *c, json_t *schema, const char *hint,
				      const char *fixed)
{
	struct cg_schema *s = c->s;
	json_t *props = json_object_get(schema, "properties");
	json_t *req = json_object_get(schema, "required");
	struct cg_type *t, *extra;
	const char *key, *name;
	size_t n = 0, i, nreq_extra = 0;
	json_t *v;

	if (!json_is_object(props))
		props = NULL;
	/* required names with no property still have to be sent */
	for (i = 0; i < json_array_size(req); i++) {
		v = json_array_get(req, i);
		if (json_is_string(v) && !(props && json_object_get(props, json_string_value(v))))
			nreq_extra++;
	}
	n = (props ? json_object_size(props) : 0) + nreq_extra;
	extra = convert_extra(c, schema, hint);
	if (s->oom)
		return NULL;
	if (n == 0 || n > MAX_PROPS || c->object_depth >= MAX_OBJECT_DEPTH) {
		t = node(s, CG_T_MAP);
		if (t)
			t->item = extra ? extra : any(s);
		return t;
	}
	name = fixed ? fixed : take_name(s, hint);
	if (!name) {
		if (s->oom)
			return NULL;
		t = node(s, CG_T_MAP);
		if (t)
			t->item = any(s);
		return t;
	}
	t = node(s, CG_T_OBJECT);
	if (!t)
		return NULL;
	t->name = name;
	t->extra = extra;
	t->description = json_string_value(json_object_get(schema, "description"));
	t->description_len = json_string_length(json_object_get(schema, "description"));
	t->props = cg_arena_alloc(s->arena, n * sizeof(*t->props));
	if (!t->props) {
		s->oom = true;
		return NULL;
	}
	declare(s, name, t);
	c->object_depth++;
	if (props) {
		json_object_foreach(props, key, v)
		{
			struct cg_prop *p = &t->props[t->nprops++];

			p->key = key;
			p->schema = v;
			p->required = in_array_of_strings(req, key);
			p->description = json_string_value(json_object_get(v, "description"));
			p->description_len = json_string_length(json_object_get(v, "description"));
			p->type = convert(c, v, hint_join(s, name, key), NULL, true);
			if (!p->type)
				return NULL;
		}
	}
	c->object_depth--;
	for (i = 0; i < json_array_size(req); i++) {
		v = json_array_get(req, i);
		if (!json_is_string(v) || (props && json_object_get(props, json_string_value(v))))
			continue;
		{
			struct cg_prop *p = &t->props[t->nprops];
			size_t j;

			for (j = 0; j < t->nprops; j++)
				if (!strcmp(t->props[j].key, json_string_value(v)))
					break;
			if (j < t->nprops)
				continue; /* named twice in required */
			p->key = json_string_value(v);
			p->required = true;
			p->type = any(s);
			if (!p->type)
				return NULL;
			t->nprops++;
		}
	}
	return t;
}

static struct cg_type *convert_array(struct conv *c, json_t *schema, const char *hint)
{
	json_t *items = json_object_get(schema, "items");
	json_t *prefix = json_object_get(schema, "prefixItems");
	json_t *rest = NULL;
	struct cg_type *t;
	size_t i, n;

	if (json_is_array(items)) { /* draft-07 tuple form */
		prefix = items;
		rest = json_object_get(schema, "additionalItems");
	} else if (json_is_array(prefix)) {
		rest = items;
	}
	if (json_is_array(prefix)) {
		n = json_array_size(prefix);
		t = node(c->s, CG_T_TUPLE);
		if (!t)
			return NULL;
		t->elems = cg_arena_alloc(c->s->arena, (n ? n : 1) * sizeof(*t->elems));
		if (!t->elems) {
			c->s->oom = true;
			return NULL;
		}
		for (i = 0; i < n; i++) {
			t->elems[i] = convert(c, json_array_get(prefix, i),
					      hint_join(c->s, hint, "item"), NULL, true);
			if (!t->elems[i])
				return NULL;
		}
		t->nelems = n;
		if (!json_is_false(rest)) {
			t->item = convert(c, rest, hint_join(c->s, hint, "item"), NULL, true);
			if (!t->item)
				return NULL;
		}
		return t;
	}
	t = node(c->s, CG_T_ARRAY);
	if (!t)
		return NULL;
	t->item = convert(c, items, hint_join(c->s, hint, "item"), NULL, true);
	return t->item ? t : NULL;
}

static struct cg_type *convert_typed(struct conv *c, json_t *schema, const char *type,
				     const char *hint, const char *fixed)
{
	if (!strcmp(type, "null"))
		return node(c->s, CG_T_NULL);
	if (!strcmp(type, "boolean"))
		return node(c->s, CG_T_BOOL);
	if (!strcmp(type, "integer"))
		return node(c->s, CG_T_INT);
	if (!strcmp(type, "number"))
		return node(c->s, CG_T_NUM);
	if (!strcmp(type, "string"))
		return node(c->s, CG_T_STR);
	if (!strcmp(type, "array"))
		return convert_array(c, schema, hint);
	if (!strcmp(type, "object"))
		return convert_object(c, schema, hint, fixed);
	return any(c->s);
}

/* An allOf member as an object schema to merge (a $ref is followed once),
 * NULL to skip it (true, {}), or @stop when it cannot be merged. */
static json_t *all_of_member(struct conv *c, json_t *m, json_t *stop)
{
	json_t *v;

	if (json_is_string(json_object_get(m, "$ref")) &&
	    json_string_value(json_object_get(m, "$ref"))[0] == '#')
		m = pointer_get(c->root, json_string_value(json_object_get(m, "$ref")) + 1);
	if (json_is_true(m) || (json_is_object(m) && !json_object_size(m)))
		return NULL;
	if (!json_is_object(m))
		return stop;
	v = json_object_get(m, "type");
	if (v && !(json_is_string(v) && !strcmp(json_string_value(v), "object")))
		return stop;
	if (json_object_get(m, "anyOf") || json_object_get(m, "oneOf") ||
	    json_object_get(m, "allOf") || json_object_get(m, "$ref"))
		return stop;
	return m;
}

/* allOf: the members' properties and required lists merged into one object
 * schema. Returns a new schema; NULL when a member is no object (then the
 * type is Any), or NULL with s->oom set when memory ran out. */
static json_t *merge_all_of(struct conv *c, json_t *schema)
{
	json_t *all = json_object_get(schema, "allOf");
	json_t *out = json_deep_copy(schema);
	json_t *props = json_object(), *req = json_array(), *m, *mp, *v;
	bool oom = !out || !props || !req;
	const char *key;
	size_t i, j;

	if (oom)
		goto out_fail;
	json_object_del(out, "allOf");
	if (json_object_update(props, json_object_get(out, "properties")) < 0 &&
	    json_is_object(json_object_get(out, "properties"))) {
		oom = true;
		goto out_fail;
	}
	v = json_object_get(out, "required");
	for (j = 0; j < json_array_size(v); j++)
		if (json_array_append(req, json_array_get(v, j))) {
			oom = true;
			goto out_fail;
		}
	for (i = 0; i < json_array_size(all); i++) {
		m = all_of_member(c, json_array_get(all, i), all);
		if (!m)
			continue;
		if (m == all)
			goto out_fail;
		mp = json_object_get(m, "properties");
		json_object_foreach(mp, key, v)
		{
			if (json_object_set(props, key, v)) {
				oom = true;
				goto out_fail;
			}
		}
		v = json_object_get(m, "required");
		for (j = 0; j < json_array_size(v); j++)
			if (json_array_append(req, json_array_get(v, j))) {
				oom = true;
				goto out_fail;
			}
		if (json_is_false(json_object_get(m, "additionalProperties")) &&
		    json_object_set_new(out, "additionalProperties", json_false())) {
			oom = true;
			goto out_fail;
		}
	}
	if (json_object_set(out, "properties", props) || json_object_set(out, "required", req) ||
	    json_object_set_new(out, "type", json_string("object"))) {
		oom = true;
		goto out_fail;
	}
	json_decref(props);
	json_decref(req);
	return out;
out_fail:
	if (oom)
		c->s->oom = true;
	json_decref(out);
	json_decref(props);
	json_decref(req);
	return NULL;
}

static bool has_type_info(json_t *schema)
{
	return json_object_get(schema, "type") || json_object_get(schema, "properties") ||
	       json_object_get(schema, "items") || json_object_get(schema, "enum") ||
	       json_object_get(schema, "const") || json_object_get(schema, "$ref");
}

static struct cg_type *convert_body(struct conv *c, json_t *schema, const char *hint,
				    const char *fixed, bool guarded)
{
	struct cg_schema *s = c->s;
	json_t *v, *type = json_object_get(schema, "type");
	struct cg_type **ts, *t;
	size_t i, n;

	v = json_object_get(schema, "$ref");
	if (json_is_string(v))
		return convert_ref(c, json_string_value(v), hint, guarded);
	if ((v = json_object_get(schema, "const"))) {
		t = node(s, CG_T_LIT);
		if (t)
			t->lit = v;
		return t;
	}
	v = json_object_get(schema, "enum");
	if (json_is_array(v))
		return convert_enum(c, v);
	if (json_is_array(json_object_get(schema, "allOf")))
		return NULL; /* handled by convert() */
	v = json_object_get(schema, "anyOf");
	if (!json_is_array(v))
		v = json_object_get(schema, "oneOf");
	if (json_is_array(v) && !has_type_info(schema))
		return convert_members(c, v, hint, guarded);
	if (json_is_string(type)) {
		t = convert_typed(c, schema, json_string_value(type), hint, fixed);
	} else if (json_is_array(type) && json_array_size(type)) {
		n = json_array_size(type);
		ts = cg_arena_alloc(s->arena, n * sizeof(*ts));
		if (!ts) {
			s->oom = true;
			return NULL;
		}
		for (i = 0; i < n; i++) {
			v = json_array_get(type, i);
			ts[i] = json_is_string(v)
				    ? convert_typed(c, schema, json_string_value(v), hint, fixed)
				    : any(s);
			if (!ts[i])
				return NULL;
		}
		t = make_union(s, ts, n);
	} else if (json_object_get(schema, "properties") ||
		   json_object_get(schema, "additionalProperties") ||
		   json_object_get(schema, "patternProperties")) {
		t = convert_object(c, schema, hint, fixed);
	} else if (json_object_get(schema, "items") || json_object_get(schema, "prefixItems")) {
		t = convert_array(c, schema, hint);
	} else {
		t = any(s);
	}
	if (t && json_is_true(json_object_get(schema, "nullable"))) {
		struct cg_type *pair[2] = {t, node(s, CG_T_NULL)};

		t = make_union(s, pair, 2);
	}
	return t;
}

static struct cg_type *convert(struct conv *c, json_t *schema, const char *hint, const char *fixed,
			       bool guarded)
{
	struct cg_schema *s = c->s;
	struct cg_type *t;
	json_t *merged;
	struct cg_kept *k;

	if (s->oom)
		return NULL;
	if (json_is_false(schema))
		return node(s, CG_T_NEVER);
	if (!json_is_object(schema) || c->depth >= MAX_DEPTH || s->nodes >= MAX_NODES)
		return any(s);
	c->depth++;
	if (json_is_array(json_object_get(schema, "allOf"))) {
		if (json_array_size(json_object_get(schema, "allOf")) == 1 &&
		    !has_type_info(schema)) {
			t = convert(c, json_array_get(json_object_get(schema, "allOf"), 0), hint,
				    fixed, guarded);
		} else if ((merged = merge_all_of(c, schema)) || s->oom) {
			if (!merged) {
				c->depth--;
				return NULL;
			}
			k = cg_arena_alloc(s->arena, sizeof(*k));
			if (!k) {
				json_decref(merged);
				s->oom = true;
				c->depth--;
				return NULL;
			}
			k->json = merged;
			k->next = s->kept;
			s->kept = k;
			t = convert_body(c, merged, hint, fixed, guarded);
		} else {
			t = any(s);
		}
	} else {
		t = convert_body(c, schema, hint, fixed, guarded);
	}
	c->depth--;
	return t;
}
