#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

struct tree_snapshot *tree_snapshot_new(struct hub *h, unsigned langs, const struct cg_templates *t,
					struct err *err)
{
	struct tree_snapshot *s = calloc(1, sizeof(*s));
	struct hub_server_info info;
	struct err e = {0};
	const char **names = NULL;
	size_t i, n = hub_count(h);
	uint64_t gen;
	json_t *tools, *notes;

	if (!s)
		goto out_oom;
	names = calloc(n ? n : 1, sizeof(*names));
	s->servers = calloc(n ? n : 1, sizeof(*s->servers));
	s->why = calloc(n ? n : 1, sizeof(*s->why));
	if (!names || !s->servers || !s->why)
		goto out_oom;
	for (i = 0; i < n; i++)
		names[i] = hub_name(h, i);
	s->root = cg_root_new(names, n, langs, t);
	if (!s->root)
		goto out_oom;
	for (i = 0; i < n; i++) {
		err_clear(&e);
		tools = hub_tools(h, names[i], &gen, &e);
		if (tools) {
			s->servers[i] = cg_server_new(s->root, i, tools, NULL, NULL);
			notes = hub_notes(h, names[i]);
			if (s->servers[i]) {
				cg_server_set_notes(s->servers[i], notes);
				s->ntools += json_array_size(tools);
			}
			json_decref(notes);
		} else {
			memset(&info, 0, sizeof(info));
			hub_info(h, names[i], &info);
			s->why[i] = strdup(e.text[0]	 ? e.text
					   : info.why[0] ? info.why
							 : "unreachable");
			s->servers[i] = cg_server_new(s->root, i, NULL, s->why[i],
						      info.log_tail[0] ? info.log_tail : NULL);
			s->nunreachable++;
		}
		json_decref(tools);
		s->nservers = i + 1;
		if (!s->servers[i] || (!tools && !s->why[i]))
			goto out_oom;
	}
	free(names);
	return s;
out_oom:
	err_set(err, EXIT_FAILED, "tree snapshot: out of memory");
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
