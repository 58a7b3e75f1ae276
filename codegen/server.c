/* One server's folder: README.md, the package indexes and three files per
 * tool, each rendered on demand. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "groups_i.h"
#include "json_out_i.h"
#include "names_i.h"
#include "offers_i.h"
#include "root_i.h"
#include "templates_i.h"
#include "text_i.h"
#include "tool_i.h"

#define README_MAX (64u << 20)
#define SUMMARY_MAX 160
/* A server's instructions in its README, at most: server-everything's are 1,575 bytes. */
#define INSTRUCTIONS_MAX 8192

/* A tool is kept compactly in the catalog (MessagePack) and rebuilt for
 * each file rendered: as a jansson tree it would cost ~4 KB for ~730 bytes
 * of JSON, for as long as the mount lives (issue 27). */
struct cg_tool {
	size_t index;	  /* in the catalog */
	const char *name; /* the catalog's */
	char *ident;	  /* owned */
};

struct cg_server {
	char *name;  /* owned, as configured */
	char *ident; /* owned */
	unsigned langs;
	const struct cg_templates *t; /* borrowed */
	struct catalog_text *catalog; /* a reference, or NULL */
	struct cg_tool *tools;	      /* owned, in catalog order */
	size_t ntools;
	struct cg_tool **by_ident; /* owned array of borrowed tools, sorted by ident */
	struct cg_entry *entries;  /* owned; names owned (entry_names), but the offer pages' */
	char **entry_names;
	size_t nnames;
	size_t nentries;
	char *status;  /* owned; non-NULL: the catalog could not be had */
	char *detail;  /* owned or NULL */
	json_t *notes; /* new reference or NULL: cg_server_set_notes */
	/* The last tool rebuilt: a walk or a listing renders a tool's three
	 * files one after the other, and a rebuild costs half a render. */
	struct memo {
		pthread_mutex_t lock;
		size_t index;
		json_t *json; /* a reference, or NULL */
	} * memo;	      /* owned */
};

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct cg_entry *)a)->name, ((const struct cg_entry *)b)->name);
}

static int add_entry(struct cg_server *s, const char *name, const char *ext)
{
	size_t len = strlen(name) + strlen(ext) + 1;
	char *p = malloc(len);

	if (!p)
		return -ENOMEM;
	snprintf(p, len, "%s%s", name, ext);
	s->entry_names[s->nnames++] = p;
	s->entries[s->nentries].name = p;
	s->entries[s->nentries].is_dir = false;
	s->nentries++;
	return 0;
}

/* @t's Tool object, rebuilt or the memo's: a new reference, or NULL when out
 * of memory. Shared between threads as the tree of a whole catalog was:
 * rendering only reads it. */
static json_t *tool_json(const struct cg_server *s, const struct cg_tool *t)
{
	json_t *json = NULL, *old;

	pthread_mutex_lock(&s->memo->lock);
	if (s->memo->json && s->memo->index == t->index)
		json = json_incref(s->memo->json);
	pthread_mutex_unlock(&s->memo->lock);
	if (json)
		return json;
	json = catalog_text_at(s->catalog, t->index);
	if (!json)
		return NULL;
	pthread_mutex_lock(&s->memo->lock);
	old = s->memo->json;
	s->memo->json = json_incref(json);
	s->memo->index = t->index;
	pthread_mutex_unlock(&s->memo->lock);
	json_decref(old);
	return json;
}

static int cmp_by_ident(const void *a, const void *b)
{
	return strcmp((*(struct cg_tool *const *)a)->ident, (*(struct cg_tool *const *)b)->ident);
}

static int build_tools(struct cg_server *s)
{
	const char **names;
	char **idents;
	size_t i, n = 0, total = catalog_text_count(s->catalog);
	int rc = -ENOMEM;

	s->tools = calloc(total ? total : 1, sizeof(*s->tools));
	names = calloc(total ? total : 1, sizeof(*names));
	idents = calloc(total ? total : 1, sizeof(*idents));
	if (!s->tools || !names || !idents)
		goto out_free;
	/* A tool without a name cannot be called: it gets no files. */
	for (i = 0; i < total; i++) {
		if (!catalog_text_name(s->catalog, i))
			continue;
		s->tools[n].index = i;
		s->tools[n].name = catalog_text_name(s->catalog, i);
		names[n] = s->tools[n].name;
		n++;
	}
	s->ntools = n;
	if (cg_idents_assign(names, n, "tool", idents))
		goto out_free;
	for (i = 0; i < n; i++)
		s->tools[i].ident = idents[i];
	s->by_ident = calloc(n ? n : 1, sizeof(*s->by_ident));
	if (!s->by_ident)
		goto out_free;
	for (i = 0; i < n; i++)
		s->by_ident[i] = &s->tools[i];
	qsort(s->by_ident, n, sizeof(*s->by_ident), cmp_by_ident);
	rc = 0;
out_free:
	free(names);
	free(idents);
	return rc;
}

struct cg_server *cg_server_new(const struct cg_root *r, size_t server_index, json_t *tools,
				const char *status, const char *detail)
{
	struct catalog_text *text = NULL;
	struct cg_server *s;

	if (json_is_array(tools) && !(text = catalog_text_new(tools)))
		return NULL;
	s = cg_server_new_text(r, server_index, text, status, detail);
	catalog_text_free(text);
	return s;
}

struct cg_server *cg_server_new_text(const struct cg_root *r, size_t server_index,
				     struct catalog_text *tools, const char *status,
				     const char *detail)
{
	struct cg_server *s;
	size_t i, cap;

	if (server_index >= r->n)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->langs = r->langs;
	s->t = r->t;
	s->name = strdup(r->names[server_index]);
	s->ident = strdup(r->idents[server_index]);
	s->memo = calloc(1, sizeof(*s->memo));
	if (!s->name || !s->ident || !s->memo)
		goto out_free;
	pthread_mutex_init(&s->memo->lock, NULL);
	s->catalog = catalog_text_ref(tools);
	if (!tools) {
		s->status = strdup(status && *status ? status : "the catalog could not be had");
		if (!s->status || (detail && !(s->detail = strdup(detail))))
			goto out_free;
	} else if (build_tools(s)) {
		goto out_free;
	}
	/* README, the indexes, three files per tool, and room for the two
	 * pages cg_server_set_notes may add without allocating. */
	cap = 5 + 3 * s->ntools;
	s->entries = calloc(cap, sizeof(*s->entries));
	s->entry_names = calloc(cap, sizeof(*s->entry_names));
	if (!s->entries || !s->entry_names)
		goto out_free;
	if (add_entry(s, "README.md", ""))
		goto out_free;
	if (!s->status) {
		if ((s->langs & CG_LANG_PY) && add_entry(s, "__init__.py", ""))
			goto out_free;
		if ((s->langs & CG_LANG_TS) && add_entry(s, "index.ts", ""))
			goto out_free;
		for (i = 0; i < s->ntools; i++) {
			if ((s->langs & CG_LANG_PY) && add_entry(s, s->tools[i].ident, ".py"))
				goto out_free;
			if ((s->langs & CG_LANG_TS) && add_entry(s, s->tools[i].ident, ".ts"))
				goto out_free;
			if (add_entry(s, s->tools[i].ident, ".json"))
				goto out_free;
		}
	}
	qsort(s->entries, s->nentries, sizeof(*s->entries), cmp_entry);
	return s;
out_free:
	cg_server_free(s);
	return NULL;
}

void cg_server_free(struct cg_server *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; s->tools && i < s->ntools; i++)
		free(s->tools[i].ident);
	catalog_text_free(s->catalog);
	if (s->memo) {
		json_decref(s->memo->json);
		pthread_mutex_destroy(&s->memo->lock);
		free(s->memo);
	}
	for (i = 0; i < s->nnames; i++)
		free(s->entry_names[i]);
	free(s->tools);
	free(s->by_ident);
	free(s->entries);
	free(s->entry_names);
	free(s->name);
	free(s->ident);
	free(s->status);
	free(s->detail);
	json_decref(s->notes);
	free(s);
}

/* The entries that name no owned string: the pages of what the server
 * offers, told apart by address. */
static const char resources_file[] = CG_RESOURCES_FILE;
static const char prompts_file[] = CG_PROMPTS_FILE;

static bool is_offer_entry(const struct cg_entry *e)
{
	return e->name == resources_file || e->name == prompts_file;
}

void cg_server_set_notes(struct cg_server *s, json_t *notes)
{
	size_t i, n = 0;

	json_decref(s->notes);
	s->notes = json_incref(notes);
	if (s->status)
		return;
	/* The pages come and go with the notes; their room was kept. */
	for (i = 0; i < s->nentries; i++)
		if (!is_offer_entry(&s->entries[i]))
			s->entries[n++] = s->entries[i];
	if (cg_offers_resources(notes))
		s->entries[n++] = (struct cg_entry){resources_file, false};
	if (cg_offers_prompts(notes))
		s->entries[n++] = (struct cg_entry){prompts_file, false};
	s->nentries = n;
	qsort(s->entries, s->nentries, sizeof(*s->entries), cmp_entry);
}

int cg_server_list(const struct cg_server *s, const struct cg_entry **out, size_t *n)
{
	*out = s->entries;
	*n = s->nentries;
	return 0;
}

static const struct cg_tool *find_tool(const struct cg_server *s, const char *ident, size_t len)
{
	size_t lo = 0, hi = s->ntools, mid;
	const char *id;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		id = s->by_ident[mid]->ident;
		c = strncmp(id, ident, len);
		if (!c && id[len])
			c = 1;
		if (!c)
			return s->by_ident[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *cg_server_tool_name(const struct cg_server *s, const char *ident)
{
	const struct cg_tool *t = find_tool(s, ident, strlen(ident));

	return t ? t->name : NULL;
}

static int readme_failed(const struct cg_server *s, struct buf *out)
{
	static const char no_log[] = "    (no log lines)\n";
	struct buf status, detail, line, name;
	const char *p, *nl;
	int rc;

	buf_init(&status, README_MAX);
	buf_init(&detail, README_MAX);
	buf_init(&line, README_MAX);
	buf_init(&name, README_MAX);
	cg_md_line(&status, s->status, 1000);
	/* The log tail as an indented block: no fence it could close. */
	for (p = s->detail; p && *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		buf_reset(&line);
		buf_append(&line, p, nl ? (size_t)(nl - p) : strlen(p));
		buf_fail(&detail, buf_error(&line));
		buf_puts(&detail, "    ");
		cg_md_line(&detail, line.data ? line.data : "", 400);
		buf_putc(&detail, '\n');
	}
	cg_md_line(&name, s->name, 200);
	rc = buf_first_error(&status, &detail, &name, NULL);
	if (!rc) {
		const struct cg_kv kv[] = {
		    {"name", name.data, name.len},
		    {"ident", s->ident, strlen(s->ident)},
		    {"status", status.data, status.len},
		    {"detail", detail.data ? detail.data : no_log,
		     detail.data ? detail.len : strlen(no_log)},
		};

		rc = cg_tmpl_fill(s->t, "server_failed.md.tmpl", kv, sizeof(kv) / sizeof(kv[0]),
				  out);
	}
	buf_free(&status);
	buf_free(&detail);
	buf_free(&line);
	buf_free(&name);
	return rc;
}

/* One tool's line of the README: "- `ident` (`name`): title: first sentence". */
static void readme_tool(struct buf *list, const struct cg_server *s, const struct cg_tool *t)
{
	json_t *json = tool_json(s, t);
	size_t title_len, desc_len;
	const char *title = cg_tool_title(json, &title_len);
	const char *desc = cg_tool_description(json, &desc_len);

	if (!json)
		buf_fail(list, -ENOMEM);

	buf_printf(list, "- `%s`", t->ident);
	if (strcmp(t->ident, t->name)) {
		buf_puts(list, " (`");
		cg_md_line(list, t->name, 200);
		buf_puts(list, "`)");
	}
	if (title || desc_len)
		buf_putc(list, ':');
	if (title) {
		buf_putc(list, ' ');
		cg_md_line_n(list, title, title_len, 100);
		if (desc_len)
			buf_putc(list, ':');
	}
	if (desc_len) {
		buf_putc(list, ' ');
		cg_md_line_n(list, desc, cg_first_sentence(desc), SUMMARY_MAX);
	}
	buf_putc(list, '\n');
	json_decref(json);
}

static void readme_groups(struct buf *list, const struct cg_server *s)
{
	const char **idents = malloc(s->ntools * sizeof(*idents));
	size_t i;

	if (!idents) {
		buf_fail(list, -ENOMEM);
		return;
	}
	for (i = 0; i < s->ntools; i++)
		idents[i] = s->by_ident[i]->ident;
	cg_readme_groups(list, s->ident, idents, s->ntools);
	free(idents);
}

/* What the server said of itself at initialize, as a quote: a model reads
 * it before the tools. Lines are kept, each made one safe Markdown line. */
static void readme_instructions(struct buf *out, const json_t *notes)
{
	const char *text = json_string_value(json_object_get(notes, "instructions"));
	size_t len = json_string_length(json_object_get(notes, "instructions")), k, used = 0;
	const char *p, *end;

	if (!text || !len)
		return;
	buf_puts(out, "The server's instructions:\n\n");
	for (p = text, end = text + len; p < end && used < INSTRUCTIONS_MAX; p += k + 1) {
		k = strcspn(p, "\n");
		if (p + k > end)
			k = (size_t)(end - p);
		buf_puts(out, k ? "> " : ">");
		cg_md_line_n(out, p, k, INSTRUCTIONS_MAX - used);
		buf_putc(out, '\n');
		used += k + 1;
	}
	if (used < len)
		buf_puts(out, "> (cut: the rest is in the server's initialize result)\n");
	buf_putc(out, '\n');
}

/* The tools mcpfs could not offer, and the lists or items of them it could
 * not have, and why (servers/catalog_check.h). */
static void readme_skipped(struct buf *out, const json_t *notes)
{
	const json_t *skipped = json_object_get(notes, "skipped"), *v;
	const json_t *unlisted = json_object_get(notes, "unlisted");
	size_t i, n = json_array_size(skipped);

	if (!n && !json_array_size(unlisted))
		return;
	buf_puts(out, "\nSkipped (the server lists these, but mcpfs cannot offer them):\n\n");
	for (i = 0; i < n + json_array_size(unlisted); i++) {
		v = i < n ? json_array_get(skipped, i) : json_array_get(unlisted, i - n);
		buf_puts(out, "- `");
		cg_md_line(out, json_string_value(json_object_get(v, "name")) ?: "?", 200);
		buf_puts(out, "`: ");
		cg_md_line(out, json_string_value(json_object_get(v, "why")) ?: "", 400);
		buf_putc(out, '\n');
	}
}

static int readme(const struct cg_server *s, struct buf *out)
{
	struct buf list, name, instructions, skipped, offers;
	char count[32];
	size_t i;
	int rc;

	if (s->status)
		return readme_failed(s, out);
	buf_init(&list, README_MAX);
	buf_init(&name, README_MAX);
	buf_init(&instructions, README_MAX);
	buf_init(&skipped, README_MAX);
	buf_init(&offers, README_MAX);
	if (s->ntools > CG_README_LIST_MAX)
		readme_groups(&list, s);
	else
		for (i = 0; i < s->ntools; i++)
			readme_tool(&list, s, s->by_ident[i]);
	if (!s->ntools)
		buf_puts(&list, "(this server lists no tools)\n");
	cg_md_line(&name, s->name, 200);
	readme_instructions(&instructions, s->notes);
	readme_skipped(&skipped, s->notes);
	cg_offers_readme(&offers, s->notes);
	snprintf(count, sizeof(count), "%zu", s->ntools);
	rc = buf_first_error(&list, &name, &instructions, &skipped, &offers, NULL);
	if (!rc) {
		const struct cg_kv kv[] = {
		    {"name", name.data, name.len},
		    {"ident", s->ident, strlen(s->ident)},
		    {"count", count, strlen(count)},
		    {"tool_word", s->ntools == 1 ? "tool" : "tools", s->ntools == 1 ? 4 : 5},
		    {"tools", list.data, list.len},
		    {"instructions", instructions.data, instructions.len},
		    {"skipped", skipped.data, skipped.len},
		    {"offers", offers.data, offers.len},
		};

		rc = cg_tmpl_fill(s->t, "server.md.tmpl", kv, sizeof(kv) / sizeof(kv[0]), out);
	}
	buf_free(&list);
	buf_free(&name);
	buf_free(&instructions);
	buf_free(&skipped);
	buf_free(&offers);
	return rc;
}

static int init_py(const struct cg_server *s, struct buf *out)
{
	struct buf imports, all, name;
	size_t i;
	int rc;

	buf_init(&imports, README_MAX);
	buf_init(&all, README_MAX);
	buf_init(&name, README_MAX);
	for (i = 0; i < s->ntools; i++) {
		const char *id = s->by_ident[i]->ident;

		buf_printf(&imports, "    from .%s import %s as %s\n", id, id, id);
		buf_printf(&all, "    \"%s\",\n", id);
	}
	if (!s->ntools)
		buf_puts(&imports, "    pass\n");
	cg_py_doc(&name, s->name, "");
	rc = buf_first_error(&imports, &all, &name, NULL);
	if (!rc) {
		const struct cg_kv kv[] = {
		    {"name", name.data, name.len},
		    {"imports", imports.data, imports.len},
		    {"all", all.data, all.len},
		};

		rc = cg_tmpl_fill(s->t, "server__init__.py.tmpl", kv, sizeof(kv) / sizeof(kv[0]),
				  out);
	}
	buf_free(&imports);
	buf_free(&all);
	buf_free(&name);
	return rc;
}

static int index_ts(const struct cg_server *s, struct buf *out)
{
	struct buf exports, text, doc;
	size_t i;
	int rc;

	buf_init(&exports, README_MAX);
	buf_init(&text, README_MAX);
	buf_init(&doc, README_MAX);
	for (i = 0; i < s->ntools; i++) {
		const char *id = s->by_ident[i]->ident;

		buf_printf(&exports, "export { %s } from \"./%s.ts\";\n", id, id);
	}
	buf_printf(&text, "Tools of the MCP server %s: see README.md.", s->name);
	buf_fail(&doc, buf_error(&text));
	cg_ts_doc(&doc, text.data ? text.data : "", "");
	rc = buf_first_error(&exports, &doc, NULL);
	if (!rc) {
		const struct cg_kv kv[] = {
		    {"doc", doc.data, doc.len},
		    {"exports", exports.data, exports.len},
		};

		rc = cg_tmpl_fill(s->t, "index.ts.tmpl", kv, sizeof(kv) / sizeof(kv[0]), out);
	}
	buf_free(&exports);
	buf_free(&text);
	buf_free(&doc);
	return rc;
}

int cg_server_render(const struct cg_server *s, const char *name, struct buf *out)
{
	const char *dot = strrchr(name, '.');
	const struct cg_tool *t;
	struct cg_tool_in in;
	json_t *json;
	int rc = -ENOENT;

	if (!strcmp(name, "README.md"))
		return readme(s, out);
	if (s->status || !dot)
		return -ENOENT;
	if (!strcmp(name, CG_RESOURCES_FILE))
		return cg_render_resources(s->t, s->name, s->notes, out);
	if (!strcmp(name, CG_PROMPTS_FILE))
		return cg_render_prompts(s->t, s->name, s->notes, out);
	if ((s->langs & CG_LANG_PY) && !strcmp(name, "__init__.py"))
		return init_py(s, out);
	if ((s->langs & CG_LANG_TS) && !strcmp(name, "index.ts"))
		return index_ts(s, out);
	t = find_tool(s, name, (size_t)(dot - name));
	if (!t)
		return -ENOENT;
	json = tool_json(s, t);
	if (!json)
		return -ENOMEM;
	in = (struct cg_tool_in){s->name, s->ident, t->name, t->ident, json, s->t};
	if ((s->langs & CG_LANG_PY) && !strcmp(dot, ".py"))
		rc = cg_render_tool_py(&in, out);
	else if ((s->langs & CG_LANG_TS) && !strcmp(dot, ".ts"))
		rc = cg_render_tool_ts(&in, out);
	else if (!strcmp(dot, ".json"))
		rc = cg_json_pretty(out, json);
	json_decref(json);
	return rc;
}
