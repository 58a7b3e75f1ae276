#include "catalog_check.h"

#include <stdio.h>
#include <string.h>

#include "json_salvage.h"

/* Why @tool cannot be used, or NULL. @seen holds the names kept so far. */
static const char *fault(const json_t *tool, const json_t *seen, char *why, size_t n)
{
	const json_t *name = json_object_get(tool, "name");

	if (!json_is_object(tool))
		return "not a JSON object";
	if (!json_is_string(name) || !json_string_length(name))
		return "no \"name\" string";
	if (strlen(json_string_value(name)) != json_string_length(name))
		return "its name holds a NUL character";
	if (json_object_get(seen, json_string_value(name))) {
		snprintf(why, n,
			 "a second tool named '%.200s' in tools/list (only the first is kept: "
			 "a call names one tool)",
			 json_string_value(name));
		return why;
	}
	if (json_salvage_has_cut(tool)) {
		snprintf(why, n,
			 "its definition is nested deeper than %d levels (the limit of "
			 "mcpfs's JSON decoder)",
			 JSON_SALVAGE_MAX_DEPTH);
		return why;
	}
	return NULL;
}

json_t *catalog_check(json_t *tools, json_t **skipped)
{
	json_t *kept = json_array(), *seen = json_object(), *tool, *s;
	const char *why, *name;
	char whybuf[400], label[64];
	size_t i;

	*skipped = json_array();
	if (!kept || !seen || !*skipped)
		goto out_nomem;
	json_array_foreach(tools, i, tool)
	{
		why = fault(tool, seen, whybuf, sizeof(whybuf));
		if (!why) {
			if (json_object_set(seen, json_string_value(json_object_get(tool, "name")),
					    json_true()) ||
			    json_array_append(kept, tool))
				goto out_nomem;
			continue;
		}
		name = json_string_value(json_object_get(tool, "name"));
		if (!name || strlen(name) != json_string_length(json_object_get(tool, "name"))) {
			snprintf(label, sizeof(label), "(tool %zu of tools/list)", i + 1);
			name = label;
		}
		s = json_pack("{s:s, s:s}", "name", name, "why", why);
		if (!s || json_array_append_new(*skipped, s))
			goto out_nomem;
	}
	json_decref(seen);
	json_decref(tools);
	return kept;
out_nomem:
	json_decref(kept);
	json_decref(seen);
	json_decref(tools);
	json_decref(*skipped);
	*skipped = NULL;
	return NULL;
}

/* The lists beside the tools, each kept in the notes under its key when the
 * server declares the capability: items that are not objects with a usable
 * string @field are left out, noted in "unlisted" as bad tools are in
 * "skipped". */
static const struct {
	const char *capability, *key, *field;
	enum client_list list;
} extras[] = {
    {"resources", "resources", "uri", CLIENT_LIST_RESOURCES},
    {"resources", "resource_templates", "uriTemplate", CLIENT_LIST_TEMPLATES},
    {"prompts", "prompts", "name", CLIENT_LIST_PROMPTS},
};

/* Keep the items of @items (borrowed) with a plain string @field; the others
 * go to @unlisted. Returns the new array, or NULL when out of memory. */
static json_t *keep_usable(json_t *items, const char *field, const char *method, json_t *unlisted)
{
	json_t *kept = json_array(), *v, *f, *s;
	char label[96], why[96];
	size_t i;

	json_array_foreach(items, i, v)
	{
		f = json_object_get(v, field);
		if (json_is_string(f) && json_string_length(f) &&
		    strlen(json_string_value(f)) == json_string_length(f)) {
			if (!kept || json_array_append(kept, v))
				goto out_nomem;
			continue;
		}
		snprintf(label, sizeof(label), "(item %zu of %s)", i + 1, method);
		snprintf(why, sizeof(why), "no usable \"%s\" string", field);
		s = json_pack("{s:s, s:s}", "name", label, "why", why);
		if (!s || json_array_append_new(unlisted, s))
			goto out_nomem;
	}
	return kept;
out_nomem:
	json_decref(kept);
	return NULL;
}

/* Add the resources, resource templates and prompts @c offers to @notes.
 * A list that fails is noted in "unlisted" with why; it never fails the
 * catalog. Returns 0, or -1 when out of memory. */
static int list_extras(struct client *c, json_t *notes)
{
	json_t *unlisted = json_array(), *items, *kept;
	struct err e;
	size_t i;

	if (!unlisted)
		return -1;
	for (i = 0; i < sizeof(extras) / sizeof(extras[0]); i++) {
		if (!client_offers(c, extras[i].capability))
			continue;
		err_clear(&e);
		items = client_list(c, extras[i].list, &e);
		if (!items) {
			if (json_array_append_new(unlisted,
						  json_pack("{s:s, s:s}", "name",
							    client_list_method(extras[i].list),
							    "why", e.text)))
				goto out_nomem;
			continue;
		}
		kept = keep_usable(items, extras[i].field, client_list_method(extras[i].list),
				   unlisted);
		json_decref(items);
		if (!kept || json_object_set_new(notes, extras[i].key, kept))
			goto out_nomem;
	}
	if (!json_array_size(unlisted)) {
		json_decref(unlisted);
		return 0;
	}
	return json_object_set_new(notes, "unlisted", unlisted);
out_nomem:
	json_decref(unlisted);
	return -1;
}

json_t *catalog_list(struct client *c, json_t **notes, struct err *err)
{
	const char *instructions;
	json_t *tools, *skipped;

	*notes = NULL;
	tools = client_list_tools(c, err);
	if (!tools)
		return NULL;
	tools = catalog_check(tools, &skipped);
	*notes = tools ? json_pack("{s:o}", "skipped", skipped) : NULL;
	if (!*notes || list_extras(c, *notes) < 0) {
		json_decref(tools);
		json_decref(*notes);
		*notes = NULL;
		err_set(err, EXIT_FAILED, "tools/list: out of memory");
		return NULL;
	}
	instructions = client_instructions(c);
	if (instructions && *instructions)
		json_object_set_new(*notes, "instructions", json_string(instructions));
	return tools;
}
