#include "source.h"

#include <malloc.h>

/* The hub's catalog itself, or the part of it the filter shows: either way
 * the hub's one copy of the catalog, not another. */
static struct catalog_text *hub_src_tools(void *ctx, const char *server, uint64_t *generation,
					  struct err *err)
{
	const struct fusefs_hub_view *v = ctx;
	struct catalog_text *text = hub_catalog(v->hub, server, generation, err), *out = NULL;
	json_t *all, *shown = NULL;
	bool hide = false;

	if (!text || !v->filter)
		return text;
	all = catalog_text_tools(text);
	if (all)
		shown = v->filter->tools(v->filter->ctx, server, all, &hide);
	if (shown)
		out = catalog_text_subset(text, all, shown);
	json_decref(shown);
	json_decref(all);
	catalog_text_free(text);
	/* The whole tree parsed for the filter (~4 KB a tool) is freed: its
	 * pages go back, not kept as this thread's arena. */
	malloc_trim(0);
	if (!out)
		err_set(err, hide ? EXIT_USAGE : EXIT_FAILED, "server '%s': %s", server,
			hide ? "not open to this customer" : "out of memory");
	return out;
}

static void hub_src_info(void *ctx, const char *server, struct hub_server_info *out)
{
	hub_info(((const struct fusefs_hub_view *)ctx)->hub, server, out);
}

static json_t *hub_src_notes(void *ctx, const char *server)
{
	return hub_notes(((const struct fusefs_hub_view *)ctx)->hub, server);
}

void fusefs_source_hub(struct fusefs_source *src, const struct fusefs_hub_view *v)
{
	src->tools = hub_src_tools;
	src->info = hub_src_info;
	src->notes = hub_src_notes;
	src->ctx = (void *)v;
}
