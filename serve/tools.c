/* The tool table, tools/list, and argument checking against the schemas. */
#include "tools.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../workspaces/idle.h"
#include "engine.h"

static const struct serve_tool *const groups[] = {tools_exec,  tools_search, tools_catalog,
						  tools_files, tools_skills, tools_session};

const struct serve_tool *serve_tool_find(const char *name)
{
	const struct serve_tool *t;
	size_t g;

	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (t = groups[g]; t->name; t++)
			if (!strcmp(t->name, name))
				return t;
	return NULL;
}

static json_t *schema_of(const struct serve_tool *t, const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	/* The table's own text: a mistake is a build defect, caught by the tests. */
	if (!j)
		fprintf(stderr, "mcpfs: serve: schema of %s: %s\n", t->name, je.text);
	return j;
}

static json_t *tool_json(const struct serve_tool *t)
{
	json_t *j = json_pack(
	    "{s:s,s:s,s:s,s:o,s:{s:s,s:b,s:b,s:b,s:b}}", "name", t->name, "title", t->title,
	    "description", t->description, "inputSchema", schema_of(t, t->input_schema),
	    "annotations", "title", t->title, "readOnlyHint", !!(t->hints & TOOL_READ_ONLY),
	    "destructiveHint", !!(t->hints & TOOL_DESTRUCTIVE), "idempotentHint",
	    !!(t->hints & TOOL_IDEMPOTENT), "openWorldHint", !!(t->hints & TOOL_OPEN_WORLD));

	if (j && t->output_schema)
		json_object_set_new(j, "outputSchema", schema_of(t, t->output_schema));
	return j;
}

static pthread_once_t list_once = PTHREAD_ONCE_INIT;
static json_t *list_built;

static void list_build(void)
{
	const struct serve_tool *t;
	json_t *arr = json_array();
	size_t g;

	for (g = 0; arr && g < sizeof(groups) / sizeof(groups[0]); g++)
		for (t = groups[g]; t->name; t++)
			if (json_array_append_new(arr, tool_json(t))) {
				json_decref(arr);
				return;
			}
	list_built = arr;
}

json_t *serve_tools_list(void)
{
	pthread_once(&list_once, list_build);
	return json_incref(list_built);
}

static bool type_ok(const char *type, json_t *v)
{
	if (!strcmp(type, "string"))
		return json_is_string(v);
	if (!strcmp(type, "integer"))
		return json_is_integer(v) ||
		       (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)));
	if (!strcmp(type, "number"))
		return json_is_number(v);
	if (!strcmp(type, "boolean"))
		return json_is_boolean(v);
	if (!strcmp(type, "array"))
		return json_is_array(v);
	if (!strcmp(type, "object"))
		return json_is_object(v);
	return true;
}

static int check_rest(const char *name, json_t *prop, json_t *v, struct err *err);

/* Check one value against its property schema. */
static int check_value(const char *name, json_t *prop, json_t *v, struct err *err)
{
	const char *type = json_string_value(json_object_get(prop, "type"));
	json_t *en = json_object_get(prop, "enum");
	size_t i;

	if (type && !type_ok(type, v))
		return err_set(err, EXIT_USAGE, "argument '%s' must be %s %s", name,
			       type[0] == 'a' || type[0] == 'i' || type[0] == 'o' ? "an" : "a",
			       type);
	if (en) {
		char list[256] = "";
		size_t len = 0;

		for (i = 0; i < json_array_size(en); i++) {
			if (json_equal(json_array_get(en, i), v))
				return check_rest(name, prop, v, err);
			len += (size_t)snprintf(
			    list + len, len < sizeof(list) ? sizeof(list) - len : 0, "%s%s",
			    i ? ", " : "", json_string_value(json_array_get(en, i)) ?: "?");
		}
		return err_set(err, EXIT_USAGE, "argument '%s' must be one of: %s", name, list);
	}
	return check_rest(name, prop, v, err);
}

/* The limits of one value, past its type and enum. */
static int check_rest(const char *name, json_t *prop, json_t *v, struct err *err)
{
	json_t *lim, *items;
	size_t i;

	if ((lim = json_object_get(prop, "maxLength")) && json_is_string(v) &&
	    json_string_length(v) > (size_t)json_integer_value(lim))
		return err_set(err, EXIT_USAGE, "argument '%s' is longer than %lld bytes", name,
			       (long long)json_integer_value(lim));
	if ((lim = json_object_get(prop, "maxItems")) && json_is_array(v) &&
	    json_array_size(v) > (size_t)json_integer_value(lim))
		return err_set(err, EXIT_USAGE, "argument '%s' has more than %lld items", name,
			       (long long)json_integer_value(lim));
	if ((lim = json_object_get(prop, "minimum")) && json_is_number(v) &&
	    json_number_value(v) < json_number_value(lim))
		return err_set(err, EXIT_USAGE, "argument '%s' must be at least %g", name,
			       json_number_value(lim));
	if ((lim = json_object_get(prop, "maximum")) && json_is_number(v) &&
	    json_number_value(v) > json_number_value(lim))
		return err_set(err, EXIT_USAGE, "argument '%s' must be at most %g", name,
			       json_number_value(lim));
	items = json_object_get(prop, "items");
	if (items && json_is_array(v))
		for (i = 0; i < json_array_size(v); i++)
			if (check_value(name, items, json_array_get(v, i), err) < 0)
				return -1;
	return 0;
}

int serve_tool_check(const struct serve_tool *t, json_t *args, struct err *err)
{
	json_t *schema = json_loads(t->input_schema, 0, NULL);
	json_t *props = json_object_get(schema, "properties"), *req, *v;
	const char *key;
	size_t i;
	int rc = 0;

	if (!schema)
		return err_set(err, EXIT_FAILED, "out of memory");
	req = json_object_get(schema, "required");
	for (i = 0; i < json_array_size(req) && !rc; i++)
		if (!json_object_get(args, json_string_value(json_array_get(req, i))))
			rc = err_set(err, EXIT_USAGE, "missing argument '%s'",
				     json_string_value(json_array_get(req, i)));
	json_object_foreach(args, key, v)
	{
		if (rc)
			break;
		if (!json_object_get(props, key))
			rc = err_set(err, EXIT_USAGE, "unknown argument '%.64s'; %s takes only %s",
				     key, t->name,
				     json_object_size(props) ? "those in its inputSchema" : "none");
		else
			rc = check_value(key, json_object_get(props, key), v, err);
	}
	json_decref(schema);
	return rc;
}

int tool_ws(struct tool_ctx *t, struct ws *ws, struct err *err)
{
	int rc;

	/* Two threads provisioning one customer's folders at once can trip
	 * over each other's temp files (their names hold only the pid): one at
	 * a time. Once provisioned, ws_open writes nothing. */
	pthread_mutex_lock(&t->e->ws_lock);
	rc = t->ws_hold < 0 ? ws_open_held(t->e->o.root, t->customer, ws, &t->ws_hold, err)
			    : ws_open(t->e->o.root, t->customer, true, ws, err);
	pthread_mutex_unlock(&t->e->ws_lock);
	return rc;
}
