#include "inodes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct fusefs_node *node_new(const char *path, size_t n, enum fusefs_kind kind, long server,
				    uint64_t parent)
{
	struct fusefs_node *node = malloc(sizeof(*node) + n + 1);
	const char *slash;

	if (!node)
		return NULL;
	memcpy(node->path, path, n);
	node->path[n] = '\0';
	node->pathlen = n;
	slash = strrchr(node->path, '/');
	node->name = slash ? slash + 1 : node->path;
	node->kind = kind;
	node->server = server;
	node->parent = parent;
	node->ino = 0;
	return node;
}

/* Called with the write lock held. Steals @node on every path. */
static int insert(struct fusefs_inodes *t, struct fusefs_node *node)
{
	struct fusefs_node **nodes;
	size_t cap;
	int rc;

	if (t->n >= t->max) {
		free(node);
		return -ENOSPC;
	}
	if (t->n == t->cap) {
		cap = t->cap ? t->cap * 2 : 256;
		nodes = realloc(t->nodes, cap * sizeof(*nodes));
		if (!nodes) {
			free(node);
			return -ENOMEM;
		}
		t->nodes = nodes;
		t->cap = cap;
	}
	rc = strmap_put(&t->by_path, node->path, node->pathlen, node, NULL);
	if (rc) {
		free(node);
		return rc;
	}
	node->ino = t->n + 1;
	t->nodes[t->n++] = node;
	return 0;
}

int fusefs_inodes_init(struct fusefs_inodes *t, size_t max)
{
	struct fusefs_node *top;
	int rc;

	memset(t, 0, sizeof(*t));
	t->max = max;
	strmap_init(&t->by_path, max);
	rc = -pthread_rwlock_init(&t->lock, NULL);
	if (rc)
		return rc;
	top = node_new("", 0, FUSEFS_TOP_DIR, -1, FUSEFS_ROOT_INO);
	if (!top) {
		pthread_rwlock_destroy(&t->lock);
		return -ENOMEM;
	}
	rc = insert(t, top);
	if (rc)
		fusefs_inodes_destroy(t);
	return rc;
}

void fusefs_inodes_destroy(struct fusefs_inodes *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->nodes[i]);
	free(t->nodes);
	strmap_free(&t->by_path);
	pthread_rwlock_destroy(&t->lock);
	memset(t, 0, sizeof(*t));
}

const struct fusefs_node *fusefs_inodes_get(struct fusefs_inodes *t, uint64_t ino)
{
	const struct fusefs_node *node = NULL;

	pthread_rwlock_rdlock(&t->lock);
	if (ino >= 1 && ino <= t->n)
		node = t->nodes[ino - 1];
	pthread_rwlock_unlock(&t->lock);
	return node;
}

const struct fusefs_node *fusefs_inodes_find(struct fusefs_inodes *t, const char *path, size_t n)
{
	const struct fusefs_node *node;

	pthread_rwlock_rdlock(&t->lock);
	node = strmap_get(&t->by_path, path, n);
	pthread_rwlock_unlock(&t->lock);
	return node;
}

const struct fusefs_node *fusefs_inodes_add(struct fusefs_inodes *t, const char *path, size_t n,
					    enum fusefs_kind kind, long server, uint64_t parent)
{
	const struct fusefs_node *node = fusefs_inodes_find(t, path, n);
	struct fusefs_node *fresh;
	int rc;

	if (node)
		return node;
	fresh = node_new(path, n, kind, server, parent);
	if (!fresh) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_rwlock_wrlock(&t->lock);
	/* Another thread may have added it between the two locks. */
	node = strmap_get(&t->by_path, path, n);
	if (node) {
		free(fresh);
	} else {
		node = fresh;
		rc = insert(t, fresh);
		if (rc) {
			node = NULL;
			errno = -rc;
		}
	}
	pthread_rwlock_unlock(&t->lock);
	return node;
}
