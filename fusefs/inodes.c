#include "inodes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The by_ino key of @ino: hex digits, so the string map can hold it. */
static size_t ino_key(uint64_t ino, char *out, size_t n)
{
	return (size_t)snprintf(out, n, "%" PRIx64, ino);
}

static struct fusefs_node *node_new(const char *path, size_t n, enum fusefs_kind kind, long server,
				    uint64_t parent)
{
	struct fusefs_node *node = calloc(1, sizeof(*node) + n + 1);
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
	return node;
}

/* Called with the lock held. Steals @node on every path. */
static int insert(struct fusefs_inodes *t, struct fusefs_node *node)
{
	size_t k;
	int rc;

	if (t->by_ino.count >= t->max) {
		free(node);
		return -ENOSPC;
	}
	node->ino = t->next_ino;
	k = ino_key(node->ino, node->ino_key, sizeof(node->ino_key));
	rc = strmap_put(&t->by_ino, node->ino_key, k, node, NULL);
	if (!rc) {
		rc = strmap_put(&t->by_path, node->path, node->pathlen, node, NULL);
		if (rc)
			strmap_del(&t->by_ino, node->ino_key, k);
	}
	if (rc) {
		free(node);
		return rc;
	}
	t->next_ino++;
	return 0;
}

/* Called with the lock held: free @node if nothing keeps it. */
static void reclaim(struct fusefs_inodes *t, struct fusefs_node *node)
{
	if (node->refs || node->nlookup)
		return;
	strmap_del(&t->by_path, node->path, node->pathlen);
	strmap_del(&t->by_ino, node->ino_key, strlen(node->ino_key));
	free(node);
}

int fusefs_inodes_init(struct fusefs_inodes *t, size_t max)
{
	struct fusefs_node *top;
	int rc;

	memset(t, 0, sizeof(*t));
	t->max = max;
	t->next_ino = FUSEFS_ROOT_INO;
	strmap_init_borrowed(&t->by_path, max);
	strmap_init_borrowed(&t->by_ino, max);
	rc = -pthread_mutex_init(&t->lock, NULL);
	if (rc)
		return rc;
	top = node_new("", 0, FUSEFS_TOP_DIR, -1, FUSEFS_ROOT_INO);
	if (!top) {
		pthread_mutex_destroy(&t->lock);
		return -ENOMEM;
	}
	top->refs = 1; /* the root is never forgotten */
	rc = insert(t, top);
	if (rc)
		fusefs_inodes_destroy(t);
	return rc;
}

void fusefs_inodes_destroy(struct fusefs_inodes *t)
{
	size_t i;

	for (i = 0; i < t->by_ino.cap; i++)
		if (t->by_ino.slots[i].key)
			free(t->by_ino.slots[i].value);
	strmap_free(&t->by_ino);
	strmap_free(&t->by_path);
	pthread_mutex_destroy(&t->lock);
	memset(t, 0, sizeof(*t));
}

struct fusefs_node *fusefs_inodes_get(struct fusefs_inodes *t, uint64_t ino)
{
	struct fusefs_node *node;
	char key[32];

	pthread_mutex_lock(&t->lock);
	node = strmap_get(&t->by_ino, key, ino_key(ino, key, sizeof(key)));
	if (node)
		node->refs++;
	pthread_mutex_unlock(&t->lock);
	return node;
}

struct fusefs_node *fusefs_inodes_find(struct fusefs_inodes *t, const char *path, size_t n)
{
	struct fusefs_node *node;

	pthread_mutex_lock(&t->lock);
	node = strmap_get(&t->by_path, path, n);
	if (node)
		node->refs++;
	pthread_mutex_unlock(&t->lock);
	return node;
}

struct fusefs_node *fusefs_inodes_add(struct fusefs_inodes *t, const char *path, size_t n,
				      enum fusefs_kind kind, long server, uint64_t parent)
{
	struct fusefs_node *node, *fresh;
	int rc;

	pthread_mutex_lock(&t->lock);
	node = strmap_get(&t->by_path, path, n);
	if (!node) {
		fresh = node_new(path, n, kind, server, parent);
		rc = fresh ? insert(t, fresh) : -ENOMEM;
		if (rc)
			errno = -rc;
		else
			node = fresh;
	}
	if (node)
		node->refs++;
	pthread_mutex_unlock(&t->lock);
	return node;
}

void fusefs_inodes_put(struct fusefs_inodes *t, struct fusefs_node *node)
{
	if (!node)
		return;
	pthread_mutex_lock(&t->lock);
	node->refs--;
	reclaim(t, node);
	pthread_mutex_unlock(&t->lock);
}

void fusefs_inodes_lookup(struct fusefs_inodes *t, struct fusefs_node *node)
{
	pthread_mutex_lock(&t->lock);
	node->nlookup++;
	pthread_mutex_unlock(&t->lock);
}

void fusefs_inodes_forget(struct fusefs_inodes *t, uint64_t ino, uint64_t nlookup)
{
	struct fusefs_node *node;
	char key[32];

	pthread_mutex_lock(&t->lock);
	node = strmap_get(&t->by_ino, key, ino_key(ino, key, sizeof(key)));
	if (node) {
		node->nlookup = nlookup < node->nlookup ? node->nlookup - nlookup : 0;
		reclaim(t, node);
	}
	pthread_mutex_unlock(&t->lock);
}

size_t fusefs_inodes_count(struct fusefs_inodes *t)
{
	size_t n;

	pthread_mutex_lock(&t->lock);
	n = t->by_ino.count;
	pthread_mutex_unlock(&t->lock);
	return n;
}

long fusefs_inodes_known(struct fusefs_inodes *t, struct fusefs_known **out)
{
	struct fusefs_known *k;
	struct fusefs_node *node;
	long n = 0;
	bool ok;
	size_t i;

	pthread_mutex_lock(&t->lock);
	k = calloc(t->by_ino.count, sizeof(*k)); /* at least the top */
	ok = k != NULL;
	for (i = 0; ok && i < t->by_ino.cap; i++) {
		node = t->by_ino.slots[i].value;
		if (!t->by_ino.slots[i].key || !node->nlookup ||
		    (node->kind != FUSEFS_SERVER_DIR && node->kind != FUSEFS_SERVER_FILE))
			continue;
		k[n].name = strdup(node->name);
		ok = k[n].name != NULL;
		k[n].ino = node->ino;
		k[n].parent = node->parent;
		k[n].kind = node->kind;
		n += ok;
	}
	pthread_mutex_unlock(&t->lock);
	if (!ok) {
		fusefs_known_free(k, n);
		return -ENOMEM;
	}
	*out = k;
	return n;
}

void fusefs_known_free(struct fusefs_known *k, long n)
{
	long i;

	if (!k)
		return;
	for (i = 0; i < n; i++)
		free(k[i].name);
	free(k);
}
