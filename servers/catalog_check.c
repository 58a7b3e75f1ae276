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
	if (!*notes) {
		json_decref(tools);
		err_set(err, EXIT_FAILED, "tools/list: out of memory");
		return NULL;
	}
	instructions = client_instructions(c);
	if (instructions && *instructions)
		json_object_set_new(*notes, "instructions", json_string(instructions));
	return tools;
}
