#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

struct tree_snapshot *tree_snapshot_new(struct hub *h, unsigned langs, const struct cg_templates *t,
					struct err *err)
{
	return tree_snapshot_filtered(h, langs, t, NULL, err);
}

/* @server's tools (NULL: its catalog could not be had) through @f: the
 * array to render (new), or NULL with *@hide, or on failure (*@ok false). */
static json_t *filtered(const struct tree_filter *f, const char *server, json_t *tools, bool *hide,
			bool *ok)
{
	json_t *out;

	*hide = false;
	*ok = true;
	if (!f)
		return json_incref(tools);
	out = f->tools(f->ctx, server, tools, hide);
	*ok = out || *hide || !tools;
	return out;
}

struct tree_snapshot *tree_snapshot_filtered(struct hub *h, unsigned langs,
					     const struct cg_templates *t,
					     const struct tree_filter *f, struct err *err)
{
	struct tree_snapshot *s = calloc(1, sizeof(*s));
	struct hub_server_info info;
	struct err e = {0};
	const char **names = NULL;
	json_t **tools = NULL, *notes, *all;
	char **why = NULL;
	size_t i, k, n = hub_count(h), kept = 0;
	uint64_t gen;
	bool hide, ok;

	if (!s)
		goto out_oom;
	names = calloc(n ? n : 1, sizeof(*names));
	tools = calloc(n ? n : 1, sizeof(*tools));
	why = calloc(n ? n : 1, sizeof(*why));
	s->servers = calloc(n ? n : 1, sizeof(*s->servers));
	s->why = calloc(n ? n : 1, sizeof(*s->why));
	if (!names || !tools || !why || !s->servers || !s->why)
		goto out_oom;
	/* The catalogs first: a server the filter hides has no folder. */
	for (i = 0; i < n; i++) {
		err_clear(&e);
		all = hub_tools(h, hub_name(h, i), &gen, &e);
		tools[kept] = filtered(f, hub_name(h, i), all, &hide, &ok);
		json_decref(all);
		if (!ok)
			goto out_oom;
		if (hide) {
			json_decref(tools[kept]);
			tools[kept] = NULL;
			continue;
		}
		if (!all) {
			memset(&info, 0, sizeof(info));
			hub_info(h, hub_name(h, i), &info);
			why[kept] = strdup(e.text[0]	 ? e.text
					   : info.why[0] ? info.why
							 : "unreachable");
			if (!why[kept])
				goto out_oom;
		}
		names[kept++] = hub_name(h, i);
	}
	s->root = cg_root_new(names, kept, langs, t);
	if (!s->root)
		goto out_oom;
	for (k = 0; k < kept; k++) {
		if (tools[k]) {
			s->servers[k] = cg_server_new(s->root, k, tools[k], NULL, NULL);
			notes = hub_notes(h, names[k]);
			if (s->servers[k]) {
				cg_server_set_notes(s->servers[k], notes);
				s->ntools += json_array_size(tools[k]);
			}
			json_decref(notes);
		} else {
			memset(&info, 0, sizeof(info));
			hub_info(h, names[k], &info);
			s->why[k] = why[k];
			why[k] = NULL;
			s->servers[k] = cg_server_new(s->root, k, NULL, s->why[k],
						      info.log_tail[0] ? info.log_tail : NULL);
			s->nunreachable++;
		}
		s->nservers = k + 1;
		if (!s->servers[k])
			goto out_oom;
	}
	for (k = 0; k < n; k++) {
		json_decref(tools[k]);
		free(why[k]);
	}
	free(tools);
	free(why);
	free(names);
	return s;
out_oom:
	err_set(err, EXIT_FAILED, "tree snapshot: out of memory");
	for (k = 0; tools && k < n; k++)
		json_decref(tools[k]);
	for (k = 0; why && k < n; k++)
		free(why[k]);
	free(tools);
	free(why);
	free(names);
	tree_snapshot_free(s);
	return NULL;
}

void tree_snapshot_free(struct tree_snapshot *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nservers; i++) {
		cg_server_free(s->servers[i]);
		free(s->why[i]);
	}
	free(s->servers);
	free(s->why);
	cg_root_free(s->root);
	free(s);
}
