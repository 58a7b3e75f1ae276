/* One found tool as JSON, at a detail level. */
#include <math.h>
#include <string.h>

#include "index_i.h"

#define SUMMARY_MAX 200

/* The description's first line (else the title), cut at SUMMARY_MAX bytes
 * on a UTF-8 boundary. New string. */
static json_t *summary_new(json_t *tool)
{
	const char *d = json_string_value(json_object_get(tool, "description"));
	size_t k;

	if (!d || !*d)
		d = json_string_value(json_object_get(tool, "title"));
	if (!d)
		d = "";
	d += strspn(d, " \t\r\n");
	k = strcspn(d, "\r\n");
	if (k > SUMMARY_MAX) {
		k = SUMMARY_MAX;
		while (k > 0 && ((unsigned char)d[k] & 0xC0) == 0x80)
			k--;
	}
	return json_stringn(d, k);
}

json_t *search_result(struct search_index *ix, const struct search_hit *hit,
		      enum search_detail detail)
{
	const struct search_doc *d = &ix->docs[hit->doc];
	const struct search_server *s = &ix->servers[d->server];
	json_t *r, *title, *api;

	/* Two decimals: enough to rank by, and stable across builds. */
	r = json_pack("{s:s,s:s,s:s++,s:f}", "server", s->name, "tool", d->name, "name", s->name,
		      ".", d->name, "score", round(hit->score * 100.0) / 100.0);
	if (!r || detail == SEARCH_DETAIL_NAME)
		return r;
	title = json_object_get(d->tool_json, "title");
	if (!json_is_string(title))
		title = json_object_get(json_object_get(d->tool_json, "annotations"), "title");
	if (json_is_string(title) && json_object_set(r, "title", title))
		goto out_fail;
	if (json_object_set_new(r, "summary", summary_new(d->tool_json)))
		goto out_fail;
	if (detail == SEARCH_DETAIL_SUMMARY)
		return r;
	if (json_object_set_new(
		r, "description",
		json_string(json_string_value(json_object_get(d->tool_json, "description")) ?: "")))
		goto out_fail;
	api = cg_tool_py_api(ix->root, d->server, s->tools, d->tool_json);
	if (!api || json_object_update(r, api)) {
		json_decref(api);
		goto out_fail;
	}
	json_decref(api);
	return r;
out_fail:
	json_decref(r);
	return NULL;
}
