/* The tree for the fronts: one cg_root for the configured names, and per
 * server a folder rebuilt when its catalog generation moves on. */
#include "catalog.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../servers/hub.h"

/* A server's rendered folder; shared by readers, freed by the last. */
struct folder {
	struct cg_server *cg; /* owned */
	uint64_t generation;
	unsigned refs; /* protected by serve_catalog.lock */
};

struct serve_catalog {
	struct hub *hub;
	struct cg_root *root; /* owned */
	pthread_mutex_t lock; /* folders[], every folder's refs */
	struct folder **folders;
	size_t n;
};

static void folder_unref(struct serve_catalog *c, struct folder *f)
{
	bool last;

	if (!f)
		return;
	pthread_mutex_lock(&c->lock);
	last = --f->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (last) {
		cg_server_free(f->cg);
		free(f);
	}
}

struct serve_catalog *serve_catalog_new(struct hub *h)
{
	struct serve_catalog *c = calloc(1, sizeof(*c));
	const char **names = NULL;
	size_t i, n = hub_count(h);

	if (!c)
		return NULL;
	c->hub = h;
	pthread_mutex_init(&c->lock, NULL);
	names = calloc(n ? n : 1, sizeof(*names));
	c->folders = calloc(n ? n : 1, sizeof(*c->folders));
	if (!names || !c->folders)
		goto out_free;
	for (i = 0; i < n; i++)
		names[i] = hub_name(h, i);
	c->root = cg_root_new(names, n, CG_LANG_ALL, cg_templates_embedded());
	if (!c->root)
		goto out_free;
	c->n = n;
	free(names);
	return c;
out_free:
	free(names);
	serve_catalog_free(c);
	return NULL;
}

void serve_catalog_free(struct serve_catalog *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		folder_unref(c, c->folders[i]);
	free(c->folders);
	cg_root_free(c->root);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

const struct cg_root *serve_catalog_root(const struct serve_catalog *c)
{
	return c->root;
}

/* Server @i's folder as of the hub's current catalog: a reference the caller
 * drops with folder_unref. A server that cannot be reached gets a folder
 * whose README says why, which is not kept: the next read tries again. */
static struct folder *folder_get(struct serve_catalog *c, size_t i, struct err *err)
{
	const char *name = cg_root_server_name(c->root, i);
	struct hub_server_info info = {0};
	struct folder *f;
	struct err e = {0};
	uint64_t gen = 0;
	struct catalog_text *tools;
	json_t *notes;

	hub_info(c->hub, name, &info);
	pthread_mutex_lock(&c->lock);
	f = c->folders[i];
	if (f && f->generation == info.generation && info.generation) {
		f->refs++;
		pthread_mutex_unlock(&c->lock);
		return f;
	}
	pthread_mutex_unlock(&c->lock);
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	/* The hub's compact catalog itself: the folder shares it, rebuilds
	 * nothing. */
	tools = hub_catalog(c->hub, name, &gen, &e);
	if (!tools) {
		hub_info(c->hub, name, &info);
		f->cg = cg_server_new_text(c->root, i, NULL, e.text[0] ? e.text : info.why,
					   info.log_tail[0] ? info.log_tail : NULL);
		if (err)
			*err = e;
	} else {
		f->cg = cg_server_new_text(c->root, i, tools, NULL, NULL);
		notes = f->cg ? hub_notes(c->hub, name) : NULL;
		if (notes)
			cg_server_set_notes(f->cg, notes);
		json_decref(notes);
	}
	catalog_text_free(tools);
	if (!f->cg) {
		free(f);
		return NULL;
	}
	f->generation = tools ? gen : 0;
	f->refs = 1;
	if (!tools)
		return f;
	pthread_mutex_lock(&c->lock);
	if (!c->folders[i] || c->folders[i]->generation < gen) {
		struct folder *old = c->folders[i];

		f->refs++;
		c->folders[i] = f;
		if (old && --old->refs == 0) {
			cg_server_free(old->cg);
			free(old);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return f;
}

/* Split "servers/<ident>/<name>" into the server index and <name>. */
static long split(const struct serve_catalog *c, const char *relpath, const char **name)
{
	char ident[256];
	const char *p, *slash;
	size_t len;

	if (strncmp(relpath, "servers/", 8))
		return -1;
	p = relpath + 8;
	slash = strchr(p, '/');
	if (!slash || strchr(slash + 1, '/') || !slash[1])
		return -1;
	len = (size_t)(slash - p);
	if (len == 0 || len >= sizeof(ident))
		return -1;
	memcpy(ident, p, len);
	ident[len] = '\0';
	*name = slash + 1;
	return cg_root_find(c->root, ident);
}

int serve_catalog_render(struct serve_catalog *c, const char *relpath, struct buf *out)
{
	const char *name;
	struct folder *f;
	long i;
	int rc;

	rc = cg_root_render(c->root, relpath, out);
	if (rc != -ENOENT)
		return rc;
	i = split(c, relpath, &name);
	if (i < 0)
		return -ENOENT;
	f = folder_get(c, (size_t)i, NULL);
	if (!f)
		return -ENOMEM;
	rc = cg_server_render(f->cg, name, out);
	folder_unref(c, f);
	return rc;
}

/* Append the files under top folder @dir ("" or "servers") to @arr. */
static int top_files(const struct serve_catalog *c, const char *dir, json_t *arr)
{
	const struct cg_entry *e;
	char path[512];
	size_t i, n;

	if (cg_root_list(c->root, dir, &e, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (e[i].is_dir)
			continue;
		snprintf(path, sizeof(path), "%s%s%s", dir, dir[0] ? "/" : "", e[i].name);
		if (json_array_append_new(arr, json_string(path)))
			return -ENOMEM;
	}
	return 0;
}

json_t *serve_catalog_files(struct serve_catalog *c)
{
	const struct cg_entry *e;
	json_t *arr = json_array();
	struct folder *f;
	char path[1024];
	size_t i, k, n;

	if (!arr || top_files(c, "", arr) || top_files(c, "servers", arr))
		goto out_oom;
	for (i = 0; i < c->n; i++) {
		f = folder_get(c, i, NULL);
		if (!f)
			goto out_oom;
		cg_server_list(f->cg, &e, &n);
		for (k = 0; k < n; k++) {
			snprintf(path, sizeof(path), "servers/%s/%s",
				 cg_root_server_ident(c->root, i), e[k].name);
			if (json_array_append_new(arr, json_string(path))) {
				folder_unref(c, f);
				goto out_oom;
			}
		}
		folder_unref(c, f);
	}
	return arr;
out_oom:
	json_decref(arr);
	return NULL;
}

long serve_catalog_server(const struct serve_catalog *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(cg_root_server_name(c->root, i), name))
			return (long)i;
	return cg_root_find(c->root, name);
}

int serve_catalog_tool_ident(struct serve_catalog *c, size_t i, const char *tool, char *out,
			     size_t n, struct err *err)
{
	const struct cg_entry *e;
	struct folder *f = folder_get(c, i, err);
	const char *dot, *orig;
	char stem[512];
	size_t k, ne, len;
	int rc = -ENOENT;

	if (!f)
		return -ENOMEM;
	if (!f->generation) {
		folder_unref(c, f);
		return -EHOSTUNREACH;
	}
	cg_server_list(f->cg, &e, &ne);
	for (k = 0; k < ne && rc; k++) {
		dot = strrchr(e[k].name, '.');
		if (!dot || strcmp(dot, ".json"))
			continue;
		len = (size_t)(dot - e[k].name);
		if (len >= sizeof(stem))
			continue;
		memcpy(stem, e[k].name, len);
		stem[len] = '\0';
		orig = cg_server_tool_name(f->cg, stem);
		if (!orig || (strcmp(orig, tool) && strcmp(stem, tool)))
			continue;
		if (len >= n)
			rc = -ENAMETOOLONG;
		else {
			memcpy(out, stem, len + 1);
			rc = 0;
		}
	}
	folder_unref(c, f);
	return rc;
}
