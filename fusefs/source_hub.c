#include "source.h"

static json_t *hub_src_tools(void *ctx, const char *server, uint64_t *generation, struct err *err)
{
	const struct fusefs_hub_view *v = ctx;
	json_t *all = hub_tools(v->hub, server, generation, err), *shown;
	bool hide = false;

	if (!all || !v->filter)
		return all;
	shown = v->filter->tools(v->filter->ctx, server, all, &hide);
	json_decref(all);
	if (!shown)
		err_set(err, hide ? EXIT_USAGE : EXIT_FAILED, "server '%s': %s", server,
			hide ? "not open to this customer" : "out of memory");
	return shown;
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
