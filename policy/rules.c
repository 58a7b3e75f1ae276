/* The "policy" section: parsing and the verdict on one tool. Pure: no I/O,
 * no locks; the hook (hook.c) and the tree's filter both decide here. */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_i.h"

#define DEFAULT_ASK_TIMEOUT_S 120.0
#define MAX_ASK_TIMEOUT_S 3600.0

/* Case folds (ASCII): `github.delete_*` also hides `Delete_Repo`. */
static bool glob(const char *pattern, const char *s)
{
	return fnmatch(pattern, s, FNM_CASEFOLD) == 0;
}

/* Calls @fn on each way @pattern splits into a server part and a tool part
 * (NULL for a pattern without '.'), until it returns true. */
static bool each_split(const char *pattern,
		       bool (*fn)(const char *srv, const char *tool, void *ctx), void *ctx)
{
	char buf[1024];
	size_t len = strlen(pattern), i;

	if (len >= sizeof(buf))
		return false;
	if (!strchr(pattern, '.'))
		return fn(pattern, NULL, ctx);
	for (i = 0; i < len; i++) {
		if (pattern[i] != '.')
			continue;
		memcpy(buf, pattern, i);
		buf[i] = '\0';
		if (fn(buf, pattern + i + 1, ctx))
			return true;
	}
	return false;
}

struct target {
	const char *server, *tool;
	bool whole; /* the pattern must name the whole server */
};

static bool split_matches(const char *srv, const char *tool, void *ctx)
{
	const struct target *t = ctx;

	if (!glob(srv, t->server))
		return false;
	if (!tool)
		return true;
	if (t->whole)
		return !strcmp(tool, "*");
	return !t->tool || glob(tool, t->tool);
}

bool policy_pattern_match(const char *pattern, const char *server, const char *tool)
{
	struct target t = {server, tool, false};

	return each_split(pattern, split_matches, &t);
}

/* The first pattern of @l naming the tool, or NULL. */
static const char *first_match(const struct pattern_list *l, const char *server, const char *tool)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (policy_pattern_match(l->v[i], server, tool))
			return l->v[i];
	return NULL;
}

static bool hint(const json_t *def, const char *name, bool dflt)
{
	json_t *v = json_object_get(json_object_get(def, "annotations"), name);

	return json_is_boolean(v) ? json_is_true(v) : dflt;
}

/* MCP's defaults: readOnlyHint false, destructiveHint true; a tool that
 * says nothing may destroy. */
static bool destructive(const json_t *def)
{
	return !hint(def, "readOnlyHint", false) && hint(def, "destructiveHint", true);
}

enum policy_verdict policy_decide(const struct policy_rules *r, const char *server,
				  const char *tool, const json_t *def, char *why, size_t n)
{
	const char *p;

	snprintf(why, n, "allowed");
	if (!r)
		return POLICY_ALLOW;
	if ((p = first_match(&r->deny, server, tool))) {
		snprintf(why, n, "denied by policy for customer %s (deny \"%s\")", r->customer, p);
		return POLICY_DENY;
	}
	if (r->has_allow && !first_match(&r->allow, server, tool)) {
		snprintf(why, n,
			 "not allowed by policy for customer %s (no allow pattern names it)",
			 r->customer);
		return POLICY_DENY;
	}
	if (r->read_only && !hint(def, "readOnlyHint", false)) {
		snprintf(why, n,
			 "denied by policy for customer %s (readOnly: the tool is not marked "
			 "readOnlyHint)",
			 r->customer);
		return POLICY_DENY;
	}
	if (r->destructive == POLICY_DENY && destructive(def)) {
		snprintf(
		    why, n,
		    "denied by policy for customer %s (destructive: deny; the tool may destroy)",
		    r->customer);
		return POLICY_DENY;
	}
	if ((p = first_match(&r->ask, server, tool))) {
		snprintf(why, n, "needs approval by policy for customer %s (ask \"%s\")",
			 r->customer, p);
		return POLICY_ASK;
	}
	if (r->destructive == POLICY_ASK && destructive(def)) {
		snprintf(why, n, "needs approval by policy for customer %s (destructive: ask)",
			 r->customer);
		return POLICY_ASK;
	}
	return POLICY_ALLOW;
}

static bool names_server(const char *srv, const char *tool, void *ctx)
{
	(void)tool;
	return glob(srv, ((const struct target *)ctx)->server);
}

bool policy_server_open(const struct policy_rules *r, const char *server)
{
	struct target whole = {server, NULL, true}, any = {server, NULL, false};
	size_t i;
	bool named = false;

	if (!r)
		return true;
	for (i = 0; i < r->deny.n; i++)
		if (each_split(r->deny.v[i], split_matches, &whole))
			return false;
	if (!r->has_allow)
		return true;
	for (i = 0; i < r->allow.n && !named; i++)
		named = each_split(r->allow.v[i], names_server, &any);
	return named;
}

static bool hides(const struct policy_rules *r)
{
	return r && (r->has_allow || r->deny.n || r->read_only || r->destructive == POLICY_DENY);
}

json_t *policy_filter_tools(const struct policy_rules *r, const char *server, json_t *tools)
{
	json_t *out, *def;
	size_t i;
	char why[256];

	if (!hides(r))
		return json_incref(tools);
	out = json_array();
	json_array_foreach(tools, i, def)
	{
		const char *name = json_string_value(json_object_get(def, "name"));

		if (!out)
			break;
		if (name && policy_decide(r, server, name, def, why, sizeof(why)) != POLICY_DENY &&
		    json_array_append(out, def) < 0) {
			json_decref(out);
			out = NULL;
		}
	}
	return out;
}

json_t *policy_tree_tools(void *ctx, const char *server, json_t *tools, bool *hide)
{
	const struct policy_rules *r = ctx;

	*hide = !policy_server_open(r, server);
	return *hide || !tools ? NULL : policy_filter_tools(r, server, tools);
}

const struct policy_rules *policy_rules(const struct policy *p, const char *customer)
{
	size_t i;

	if (!p)
		return NULL;
	if (!customer)
		customer = "default";
	for (i = 0; i < p->n; i++)
		if (!strcmp(p->rules[i].customer, customer))
			return &p->rules[i];
	return p->fallback;
}

bool policy_restricts(const struct policy_rules *r)
{
	return r &&
	       (hides(r) || r->ask.n || r->destructive != POLICY_ALLOW || r->nrates || r->max_runs);
}

const char *policy_rules_key(const struct policy_rules *r)
{
	return hides(r) ? r->key : "";
}

double policy_ask_timeout(const struct policy_rules *r)
{
	return r ? r->ask_timeout_s : DEFAULT_ASK_TIMEOUT_S;
}

/* Parsing. */

struct parse {
	const char *origin, *customer;
	struct err *err;
};

static int bad(struct parse *ps, const char *field, const char *what)
{
	return err_set(ps->err, EXIT_USAGE, "%s: policy for customer \"%s\": \"%s\" %s", ps->origin,
		       ps->customer, field, what);
}

static bool pattern_valid(const char *s)
{
	const unsigned char *p;

	if (!*s || strlen(s) >= 1024)
		return false;
	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static int take_patterns(struct parse *ps, const json_t *v, const char *field,
			 struct pattern_list *l)
{
	json_t *item;
	size_t i;

	if (!json_is_array(v))
		return bad(ps, field, "must be an array of patterns like \"github.delete_*\"");
	l->v = calloc(json_array_size(v) + 1, sizeof(*l->v));
	if (!l->v)
		return bad(ps, field, "out of memory");
	json_array_foreach(v, i, item)
	{
		const char *s = json_string_value(item);

		if (!s || strlen(s) != json_string_length(item) || !pattern_valid(s))
			return bad(ps, field, "holds an entry that is not a pattern");
		if (!(l->v[l->n] = strdup(s)))
			return bad(ps, field, "out of memory");
		l->n++;
	}
	return 0;
}

static int take_rates(struct parse *ps, const json_t *v, struct policy_rules *r)
{
	const char *pat;
	json_t *n;

	if (!json_is_object(v))
		return bad(ps, "callsPerMinute", "must map patterns to calls per minute");
	r->rates = calloc(json_object_size(v) + 1, sizeof(*r->rates));
	if (!r->rates)
		return bad(ps, "callsPerMinute", "out of memory");
	json_object_foreach((json_t *)v, pat, n)
	{
		if (!pattern_valid(pat) || !json_is_integer(n) || json_integer_value(n) < 1 ||
		    json_integer_value(n) > 1000000)
			return bad(ps, "callsPerMinute",
				   "must map patterns to whole numbers from 1 to 1000000");
		if (!(r->rates[r->nrates].pattern = strdup(pat)))
			return bad(ps, "callsPerMinute", "out of memory");
		r->rates[r->nrates++].per_min = (unsigned)json_integer_value(n);
	}
	return 0;
}

static int take_verdict(struct parse *ps, const json_t *v, enum policy_verdict *out)
{
	const char *s = json_string_value(v);

	if (s && !strcmp(s, "allow"))
		*out = POLICY_ALLOW;
	else if (s && !strcmp(s, "ask"))
		*out = POLICY_ASK;
	else if (s && !strcmp(s, "deny"))
		*out = POLICY_DENY;
	else
		return bad(ps, "destructive", "must be \"allow\", \"ask\" or \"deny\"");
	return 0;
}

static int take_entry(struct parse *ps, const json_t *obj, struct policy_rules *r)
{
	const char *key;
	json_t *v;
	int rc = 0;

	if (!json_is_object(obj))
		return err_set(ps->err, EXIT_USAGE,
			       "%s: policy for customer \"%s\" must be an object", ps->origin,
			       ps->customer);
	r->ask_timeout_s = DEFAULT_ASK_TIMEOUT_S;
	json_object_foreach((json_t *)obj, key, v)
	{
		if (!strcmp(key, "allow")) {
			r->has_allow = true;
			rc = take_patterns(ps, v, key, &r->allow);
		} else if (!strcmp(key, "deny")) {
			rc = take_patterns(ps, v, key, &r->deny);
		} else if (!strcmp(key, "ask")) {
			rc = take_patterns(ps, v, key, &r->ask);
		} else if (!strcmp(key, "destructive")) {
			rc = take_verdict(ps, v, &r->destructive);
		} else if (!strcmp(key, "readOnly")) {
			if (!json_is_boolean(v))
				return bad(ps, key, "must be true or false");
			r->read_only = json_is_true(v);
		} else if (!strcmp(key, "askSession")) {
			if (!json_is_boolean(v))
				return bad(ps, key, "must be true or false");
			r->ask_session = json_is_true(v);
		} else if (!strcmp(key, "askTimeout")) {
			if (!json_is_number(v) || !(json_number_value(v) > 0) ||
			    json_number_value(v) > MAX_ASK_TIMEOUT_S)
				return bad(ps, key, "must be seconds in (0, 3600]");
			r->ask_timeout_s = json_number_value(v);
		} else if (!strcmp(key, "callsPerMinute")) {
			rc = take_rates(ps, v, r);
		} else if (!strcmp(key, "maxRuns")) {
			if (!json_is_integer(v) || json_integer_value(v) < 1 ||
			    json_integer_value(v) > 100000)
				return bad(ps, key, "must be a whole number from 1 to 100000");
			r->max_runs = (unsigned)json_integer_value(v);
		} else {
			return bad(
			    ps, key,
			    "is not a policy field (allow, deny, ask, destructive, readOnly, "
			    "askTimeout, askSession, callsPerMinute, maxRuns)");
		}
		if (rc < 0)
			return rc;
	}
	r->key = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
	if (!r->key)
		return bad(ps, "(entry)", "out of memory");
	return 0;
}

static void rules_free(struct policy_rules *r)
{
	size_t i;

	for (i = 0; i < r->allow.n; i++)
		free(r->allow.v[i]);
	for (i = 0; i < r->deny.n; i++)
		free(r->deny.v[i]);
	for (i = 0; i < r->ask.n; i++)
		free(r->ask.v[i]);
	free(r->allow.v);
	free(r->deny.v);
	free(r->ask.v);
	for (i = 0; i < r->nrates; i++)
		free(r->rates[i].pattern);
	free(r->rates);
	free(r->customer);
	free(r->key);
}

struct policy *policy_new(const json_t *section, const char *origin, struct err *err)
{
	struct policy *p = calloc(1, sizeof(*p));
	struct parse ps = {origin ? origin : "config", NULL, err};
	const char *name;
	json_t *v;

	if (!p) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	if (!section)
		return p;
	if (!json_is_object(section)) {
		err_set(err, EXIT_USAGE,
			"%s: \"policy\" must be an object of customers (and \"default\")",
			ps.origin);
		goto out_free;
	}
	p->rules = calloc(json_object_size(section) + 1, sizeof(*p->rules));
	if (!p->rules) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out_free;
	}
	json_object_foreach((json_t *)section, name, v)
	{
		struct policy_rules *r = &p->rules[p->n++];

		ps.customer = name;
		if (!(r->customer = strdup(name))) {
			err_set(err, EXIT_FAILED, "out of memory");
			goto out_free;
		}
		if (take_entry(&ps, v, r) < 0)
			goto out_free;
		if (!strcmp(name, "default"))
			p->fallback = r;
	}
	return p;
out_free:
	policy_free(p);
	return NULL;
}

void policy_free(struct policy *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		rules_free(&p->rules[i]);
	free(p->rules);
	policy_state_free(p->state);
	free(p->rates_root);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
