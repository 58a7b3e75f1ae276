#include "lookup.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/clock.h"

/* Ceilings: inode numbers ever handed out, and top-level files cached. */
#define TREE_INODES_MAX (16u << 20)
#define TOP_CACHE_ENTRIES 4096

struct fusefs_tree *fusefs_tree_new(const struct fusefs_tree_opts *o)
{
	struct fusefs_tree *t = calloc(1, sizeof(*t));
	size_t i;

	if (!t)
		return NULL;
	t->root = o->root;
	t->on_listed = o->on_listed;
	t->listed_ctx = o->listed_ctx;
	t->uid = getuid();
	t->gid = getgid();
	clock_gettime(CLOCK_REALTIME, &t->mtime);
	atomic_init(&t->budget.used, 0);
	t->budget.max = o->cache_max;
	if (fusefs_inodes_init(&t->inodes, TREE_INODES_MAX))
		goto out_free;
	if (fusefs_cache_init(&t->top, &t->budget, TOP_CACHE_ENTRIES))
		goto out_inodes;
	t->nslots = cg_root_nservers(o->root);
	t->slots = calloc(t->nslots ? t->nslots : 1, sizeof(*t->slots));
	if (!t->slots)
		goto out_top;
	for (i = 0; i < t->nslots; i++)
		if (fusefs_slot_init(&t->slots[i], o->root, i, o->src, &t->budget, o->wait_s[i],
				     o->on_swap, o->swap_ctx))
			goto out_slots;
	return t;
out_slots:
	while (i-- > 0)
		fusefs_slot_destroy(&t->slots[i]);
	free(t->slots);
out_top:
	fusefs_cache_destroy(&t->top);
out_inodes:
	fusefs_inodes_destroy(&t->inodes);
out_free:
	free(t);
	return NULL;
}

void fusefs_tree_stop(struct fusefs_tree *t)
{
	size_t i;

	for (i = 0; i < t->nslots; i++)
		fusefs_slot_stop(&t->slots[i]);
}

void fusefs_tree_free(struct fusefs_tree *t)
{
	size_t i;

	if (!t)
		return;
	fusefs_tree_stop(t);
	for (i = 0; i < t->nslots; i++)
		fusefs_slot_destroy(&t->slots[i]);
	free(t->slots);
	fusefs_cache_destroy(&t->top);
	fusefs_inodes_destroy(&t->inodes);
	free(t);
}

static void fill(const struct fusefs_tree *t, const struct fusefs_node *node, bool dir, size_t size,
		 nlink_t nlink, const struct timespec *mtime, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = node->ino;
	st->st_mode = dir ? S_IFDIR | 0555 : S_IFREG | 0444;
	st->st_nlink = nlink;
	st->st_uid = t->uid;
	st->st_gid = t->gid;
	st->st_size = (off_t)size;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)((size + 511) / 512);
	st->st_atim = *mtime;
	st->st_mtim = *mtime;
	st->st_ctim = *mtime;
}

/* Join @dir's path and @name into @out. */
static int join(char *out, size_t n, const char *dir, const char *name)
{
	int len = dir[0] ? snprintf(out, n, "%s/%s", dir, name) : snprintf(out, n, "%s", name);

	if (len < 0 || (size_t)len >= n)
		return -ENAMETOOLONG;
	return len;
}

static int top_render(const void *ctx, const char *relpath, struct buf *out)
{
	return cg_root_render(ctx, relpath, out);
}

static int top_size(struct fusefs_tree *t, const char *relpath, size_t *size)
{
	return fusefs_cache_size(&t->top, relpath, top_render, t->root, size);
}

/* A directory of the top gets 2 links plus one per folder in it. */
static nlink_t top_links(const struct fusefs_tree *t, const char *path)
{
	const struct cg_entry *e;
	nlink_t links = 2;
	size_t i, n;

	if (cg_root_list(t->root, path, &e, &n))
		return links;
	for (i = 0; i < n; i++)
		links += e[i].is_dir;
	return links;
}

/* The node for entry @e of top directory @dir (numbered on first sight),
 * held. */
static struct fusefs_node *top_child(struct fusefs_tree *t, const struct fusefs_node *dir,
				     const struct cg_entry *e)
{
	enum fusefs_kind kind = e->is_dir ? FUSEFS_TOP_DIR : FUSEFS_TOP_FILE;
	char path[PATH_MAX];
	long server = -1;
	int len = join(path, sizeof(path), dir->path, e->name);

	if (len < 0) {
		errno = -len;
		return NULL;
	}
	if (e->is_dir && !strcmp(dir->path, "servers")) {
		server = cg_root_find(t->root, e->name);
		if (server >= 0)
			kind = FUSEFS_SERVER_DIR;
	}
	return fusefs_inodes_add(&t->inodes, path, (size_t)len, kind, server, dir->ino);
}

static int node_stat(struct fusefs_tree *t, const struct fusefs_node *node, struct stat *st)
{
	struct fusefs_snap *snap;
	size_t size = 0;
	int rc = 0;

	switch (node->kind) {
	case FUSEFS_TOP_DIR:
		fill(t, node, true, 0, top_links(t, node->path), &t->mtime, st);
		break;
	case FUSEFS_TOP_FILE:
		rc = top_size(t, node->path, &size);
		if (!rc)
			fill(t, node, false, size, 1, &t->mtime, st);
		break;
	case FUSEFS_SERVER_DIR:
		/* Never waits: `ls -l servers` must not start a server. */
		snap = fusefs_slot_peek(&t->slots[node->server]);
		fill(t, node, true, 0, 2, snap ? &snap->mtime : &t->mtime, st);
		fusefs_snap_unref(snap);
		break;
	case FUSEFS_SERVER_FILE:
		snap = fusefs_slot_get(&t->slots[node->server]);
		if (!snap)
			return -ENOMEM;
		rc = fusefs_snap_size(snap, node->name, &size);
		if (!rc)
			fill(t, node, false, size, 1, &snap->mtime, st);
		fusefs_snap_unref(snap);
		break;
	}
	return rc;
}

int fusefs_tree_getattr(struct fusefs_tree *t, uint64_t ino, struct stat *st)
{
	struct fusefs_node *node = fusefs_inodes_get(&t->inodes, ino);
	int rc = node ? node_stat(t, node, st) : -ENOENT;

	fusefs_inodes_put(&t->inodes, node);
	return rc;
}

static int lookup_top(struct fusefs_tree *t, const struct fusefs_node *dir, const char *name,
		      struct stat *st)
{
	struct fusefs_node *node;
	const struct cg_entry *e;
	size_t i, n;
	int rc;

	if (cg_root_list(t->root, dir->path, &e, &n))
		return -ENOENT;
	for (i = 0; i < n; i++)
		if (!strcmp(e[i].name, name))
			break;
	if (i == n)
		return -ENOENT;
	node = top_child(t, dir, &e[i]);
	if (!node)
		return -errno;
	rc = node_stat(t, node, st);
	if (!rc)
		fusefs_inodes_lookup(&t->inodes, node);
	fusefs_inodes_put(&t->inodes, node);
	return rc;
}

static int lookup_server(struct fusefs_tree *t, const struct fusefs_node *dir, const char *name,
			 struct stat *st)
{
	struct fusefs_node *node;
	struct fusefs_snap *snap;
	char path[PATH_MAX];
	size_t size = 0;
	int len, rc;

	len = join(path, sizeof(path), dir->path, name);
	if (len < 0)
		return len;
	snap = fusefs_slot_get(&t->slots[dir->server]);
	if (!snap)
		return -ENOMEM;
	/* Rendering answers both "is it there" and "how big is it". */
	rc = fusefs_snap_size(snap, name, &size);
	if (!rc) {
		node = fusefs_inodes_add(&t->inodes, path, (size_t)len, FUSEFS_SERVER_FILE,
					 dir->server, dir->ino);
		if (node) {
			fill(t, node, false, size, 1, &snap->mtime, st);
			fusefs_inodes_lookup(&t->inodes, node);
			fusefs_inodes_put(&t->inodes, node);
		} else {
			rc = -errno;
		}
	}
	fusefs_snap_unref(snap);
	return rc;
}

int fusefs_tree_lookup(struct fusefs_tree *t, uint64_t parent, const char *name, struct stat *st)
{
	struct fusefs_node *dir = fusefs_inodes_get(&t->inodes, parent);
	int rc = -ENOTDIR;

	if (!dir)
		return -ENOENT;
	switch (dir->kind) {
	case FUSEFS_TOP_DIR:
		rc = lookup_top(t, dir, name, st);
		break;
	case FUSEFS_SERVER_DIR:
		rc = lookup_server(t, dir, name, st);
		break;
	case FUSEFS_TOP_FILE:
	case FUSEFS_SERVER_FILE:
		break;
	}
	fusefs_inodes_put(&t->inodes, dir);
	return rc;
}

void fusefs_tree_forget(struct fusefs_tree *t, uint64_t ino, uint64_t nlookup)
{
	fusefs_inodes_forget(&t->inodes, ino, nlookup);
}

void fusefs_tree_release(struct fusefs_tree *t, uint64_t ino)
{
	struct fusefs_node *node = fusefs_inodes_get(&t->inodes, ino);
	struct fusefs_snap *snap;

	if (!node)
		return;
	switch (node->kind) {
	case FUSEFS_TOP_FILE:
		fusefs_cache_drop(&t->top, node->path);
		break;
	case FUSEFS_SERVER_FILE:
		snap = fusefs_slot_peek(&t->slots[node->server]);
		if (snap)
			fusefs_cache_drop(&snap->cache, node->name);
		fusefs_snap_unref(snap);
		break;
	case FUSEFS_TOP_DIR:
	case FUSEFS_SERVER_DIR:
		break;
	}
	fusefs_inodes_put(&t->inodes, node);
}

int fusefs_tree_read(struct fusefs_tree *t, uint64_t ino, struct fusefs_blob **out)
{
	struct fusefs_node *node = fusefs_inodes_get(&t->inodes, ino);
	struct fusefs_snap *snap;
	int rc = -EISDIR;

	if (!node)
		return -ENOENT;
	switch (node->kind) {
	case FUSEFS_TOP_FILE:
		rc = fusefs_cache_render(&t->top, node->path, top_render, t->root, out);
		break;
	case FUSEFS_SERVER_FILE:
		snap = fusefs_slot_get(&t->slots[node->server]);
		rc = snap ? fusefs_snap_read(snap, node->name, out) : -ENOMEM;
		fusefs_snap_unref(snap);
		break;
	case FUSEFS_TOP_DIR:
	case FUSEFS_SERVER_DIR:
		break;
	}
	fusefs_inodes_put(&t->inodes, node);
	return rc;
}

/* Emit "." and ".." when @off is before them; returns 1 when the reply is full. */
static int dots(const struct fusefs_node *dir, off_t *off, fusefs_dirent_fn emit, void *ctx)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFDIR;
	if (*off == 0) {
		st.st_ino = dir->ino;
		if (emit(ctx, ".", &st, 1))
			return 1;
		*off = 1;
	}
	if (*off == 1) {
		st.st_ino = dir->parent;
		if (emit(ctx, "..", &st, 2))
			return 1;
		*off = 2;
	}
	return 0;
}

static int readdir_top(struct fusefs_tree *t, const struct fusefs_node *dir, off_t off, bool plus,
		       fusefs_dirent_fn emit, void *ctx)
{
	struct fusefs_node *node;
	const struct cg_entry *e;
	struct stat st;
	size_t i, n;
	int rc = 0;

	if (cg_root_list(t->root, dir->path, &e, &n))
		return -ENOENT;
	memset(&st, 0, sizeof(st));
	for (i = (size_t)off - 2; i < n && !rc; i++) {
		node = top_child(t, dir, &e[i]);
		if (!node)
			return -errno;
		if (plus) {
			rc = node_stat(t, node, &st);
		} else {
			st.st_ino = node->ino;
			st.st_mode = e[i].is_dir ? S_IFDIR : S_IFREG;
		}
		if (!rc && emit(ctx, e[i].name, &st, (off_t)i + 3))
			rc = 1;
		else if (!rc && plus)
			fusefs_inodes_lookup(&t->inodes, node);
		fusefs_inodes_put(&t->inodes, node);
	}
	return rc > 0 ? 0 : rc;
}

static int readdir_server(struct fusefs_tree *t, const struct fusefs_node *dir, off_t off,
			  bool plus, fusefs_dirent_fn emit, void *ctx)
{
	struct fusefs_node *node;
	const struct cg_entry *e;
	struct fusefs_snap *snap;
	char path[PATH_MAX];
	struct stat st;
	size_t i, n, size;
	int len, rc = 0;

	snap = fusefs_slot_get(&t->slots[dir->server]);
	if (!snap)
		return -ENOMEM;
	if (cg_server_list(snap->cg, &e, &n)) {
		rc = -ENOENT;
		goto out_unref;
	}
	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG;
	for (i = (size_t)off - 2; i < n; i++) {
		len = join(path, sizeof(path), dir->path, e[i].name);
		if (len < 0) {
			rc = len;
			break;
		}
		node = fusefs_inodes_add(&t->inodes, path, (size_t)len, FUSEFS_SERVER_FILE,
					 dir->server, dir->ino);
		if (!node) {
			rc = -errno;
			break;
		}
		st.st_ino = node->ino;
		if (plus) {
			rc = fusefs_snap_size(snap, e[i].name, &size);
			if (rc) {
				fusefs_inodes_put(&t->inodes, node);
				break;
			}
			fill(t, node, false, size, 1, &snap->mtime, &st);
		}
		if (emit(ctx, e[i].name, &st, (off_t)i + 3)) {
			fusefs_inodes_put(&t->inodes, node);
			break;
		}
		/* In the reply: a readdirplus entry counts as a lookup. */
		if (plus)
			fusefs_inodes_lookup(&t->inodes, node);
		fusefs_inodes_put(&t->inodes, node);
	}
out_unref:
	fusefs_snap_unref(snap);
	return rc;
}

int fusefs_tree_readdir(struct fusefs_tree *t, uint64_t ino, off_t off, bool plus,
			fusefs_dirent_fn emit, void *ctx)
{
	struct fusefs_node *dir = fusefs_inodes_get(&t->inodes, ino);
	int rc = 0;

	if (!dir)
		return -ENOENT;
	if (dir->kind == FUSEFS_TOP_FILE || dir->kind == FUSEFS_SERVER_FILE)
		rc = -ENOTDIR;
	else if (off < 0)
		rc = -EINVAL;
	else if (dots(dir, &off, emit, ctx))
		rc = 0;
	else if (dir->kind == FUSEFS_SERVER_DIR)
		rc = readdir_server(t, dir, off, plus, emit, ctx);
	else
		rc = readdir_top(t, dir, off, plus, emit, ctx);
	fusefs_inodes_put(&t->inodes, dir);
	return rc;
}

void fusefs_tree_listed(struct fusefs_tree *t, uint64_t ino, off_t off, off_t next)
{
	struct fusefs_node *dir = fusefs_inodes_get(&t->inodes, ino);
	struct fusefs_snap *snap;
	size_t first = off > 2 ? (size_t)off - 2 : 0;

	if (t->on_listed && dir && dir->kind == FUSEFS_SERVER_DIR && next > 2 &&
	    (size_t)next - 2 > first) {
		snap = fusefs_slot_peek(&t->slots[dir->server]);
		if (snap)
			t->on_listed(t->listed_ctx, (size_t)dir->server, snap, first,
				     (size_t)next - 2 - first);
	}
	fusefs_inodes_put(&t->inodes, dir);
}

void fusefs_tree_changed(struct fusefs_tree *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nslots; i++)
		if (!strcmp(t->slots[i].name, name))
			fusefs_slot_reload(&t->slots[i]);
}

void fusefs_tree_poll(struct fusefs_tree *t)
{
	double now = clock_now_s();
	size_t i;

	for (i = 0; i < t->nslots; i++)
		fusefs_slot_poll(&t->slots[i], now);
}

uint64_t fusefs_tree_server_ino(struct fusefs_tree *t, size_t server, const char *name)
{
	struct fusefs_node *node;
	char path[PATH_MAX];
	uint64_t ino;
	int len;

	if (name)
		len = snprintf(path, sizeof(path), "servers/%s/%s",
			       cg_root_server_ident(t->root, server), name);
	else
		len = snprintf(path, sizeof(path), "servers/%s",
			       cg_root_server_ident(t->root, server));
	if (len < 0 || (size_t)len >= sizeof(path))
		return 0;
	node = fusefs_inodes_find(&t->inodes, path, (size_t)len);
	ino = node ? node->ino : 0;
	fusefs_inodes_put(&t->inodes, node);
	return ino;
}
