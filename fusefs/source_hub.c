#include "source.h"

static json_t *hub_src_tools(void *ctx, const char *server, uint64_t *generation, struct err *err)
{
	return hub_tools(ctx, server, generation, err);
}

static void hub_src_info(void *ctx, const char *server, struct hub_server_info *out)
{
	hub_info(ctx, server, out);
}

static json_t *hub_src_notes(void *ctx, const char *server)
{
	return hub_notes(ctx, server);
}

void fusefs_source_hub(struct fusefs_source *src, struct hub *h)
{
	src->tools = hub_src_tools;
	src->info = hub_src_info;
	src->notes = hub_src_notes;
	src->ctx = h;
}
