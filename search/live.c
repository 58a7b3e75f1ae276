/* The index over a hub's servers, kept current. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../servers/hub.h"
#include "search.h"

struct live_server {
	uint64_t generation; /* of the catalog indexed; 0: none yet */
	bool tried;	     /* hub_tools was asked at least once */
	atomic_bool changed; /* set by the listener: re-read on the next query */
};

struct search_hub {
	struct hub *hub;
	struct search_index *ix;
	pthread_mutex_t lock;	     /* guards servers[] (one refresh at a time) */
	struct live_server *servers; /* one per hub server, hub order */
	size_t n;
	int listener; /* hub_listen handle, or <= 0 */
};

/* The hub's catalog listener: only marks the server, so it never blocks a
 * hub thread; the next query re-reads it. */
static void on_changed(void *ctx, const char *server, uint64_t generation)
{
	struct search_hub *sh = ctx;
	size_t i;

	(void)generation;
	for (i = 0; i < sh->n; i++)
		if (!strcmp(hub_name(sh->hub, i), server))
			atomic_store(&sh->servers[i].changed, true);
}

struct search_hub *search_hub_new(struct hub *h)
{
	struct search_hub *sh = calloc(1, sizeof(*sh));

	if (!sh)
		return NULL;
	sh->hub = h;
	sh->n = hub_count(h);
	sh->servers = calloc(sh->n ? sh->n : 1, sizeof(*sh->servers));
	sh->ix = search_index_new(0);
	if (!sh->servers || !sh->ix || pthread_mutex_init(&sh->lock, NULL)) {
		search_index_free(sh->ix);
		free(sh->servers);
		free(sh);
		return NULL;
	}
	sh->listener = hub_listen(h, &(struct hub_listener){on_changed, sh});
	if (sh->listener <= 0) {
		search_hub_free(sh);
		return NULL;
	}
	return sh;
}

void search_hub_free(struct search_hub *sh)
{
	if (!sh)
		return;
	if (sh->listener > 0)
		hub_unlisten(sh->hub, sh->listener);
	search_index_free(sh->ix);
	free(sh->servers);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}

/* Read every server not read yet, and every one the listener marked; a
 * server that could not be had is asked again only once its catalog
 * changes (it came back). The names of servers left out go to @skipped. */
static int refresh(struct search_hub *sh, json_t *skipped, struct err *err)
{
	struct err e = {0};
	uint64_t gen;
	json_t *tools;
	size_t i;

	for (i = 0; i < sh->n; i++) {
		const char *name = hub_name(sh->hub, i);
		struct live_server *s = &sh->servers[i];

		if (s->tried && !atomic_exchange(&s->changed, false)) {
			if (!s->generation)
				json_array_append_new(skipped, json_string(name));
			continue;
		}
		s->tried = true;
		gen = 0;
		err_clear(&e);
		tools = hub_tools(sh->hub, name, &gen, &e);
		if (!tools) {
			json_array_append_new(skipped, json_string(name));
			if (s->generation) {
				s->generation = 0;
				search_index_set(sh->ix, name, NULL);
			}
			continue;
		}
		if (search_index_set(sh->ix, name, tools)) {
			json_decref(tools);
			atomic_store(&s->changed, true);
			return err_set(err, EXIT_FAILED, "search: out of memory");
		}
		json_decref(tools);
		s->generation = gen ? gen : 1;
	}
	return 0;
}

json_t *search_hub_query(struct search_hub *sh, const char *query, const struct search_opts *o,
			 struct err *err)
{
	json_t *skipped, *out = NULL;

	if (search_query_check(query, err))
		return NULL;
	skipped = json_array();
	if (!skipped) {
		err_set(err, EXIT_FAILED, "search: out of memory");
		return NULL;
	}
	pthread_mutex_lock(&sh->lock);
	if (!refresh(sh, skipped, err))
		out = search_query(sh->ix, query, o, err);
	pthread_mutex_unlock(&sh->lock);
	if (out && json_array_size(skipped) && json_object_set(out, "skipped", skipped)) {
		json_decref(out);
		out = NULL;
		err_set(err, EXIT_FAILED, "search: out of memory");
	}
	json_decref(skipped);
	return out;
}

static json_t *source_query(void *ctx, const char *query, const struct search_opts *o,
			    struct err *err)
{
	return search_hub_query(ctx, query, o, err);
}

struct search_source search_hub_source(struct search_hub *sh)
{
	return (struct search_source){source_query, sh};
}
