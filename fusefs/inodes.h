/* Inode numbers: a table from path (relative to the mount's top) to node and
 * from inode number to node. A node lives while the kernel knows it (its
 * lookup count: every entry reply adds one, FORGET takes them back) or a
 * handler holds it; then it goes, so a mount whose catalogs change for weeks
 * keeps only what the kernel still caches. Numbers are never reused: a path
 * the kernel forgot gets a new one when seen again. Thread-safe (one mutex:
 * each operation is a hash probe). */
#ifndef MCPFS_FUSEFS_INODES_H
#define MCPFS_FUSEFS_INODES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/strmap.h"

#define FUSEFS_ROOT_INO 1 /* FUSE_ROOT_ID: the top, path "" */

enum fusefs_kind {
	FUSEFS_TOP_DIR,	    /* "" or "servers" */
	FUSEFS_TOP_FILE,    /* README.md, servers/_runtime.py, ... */
	FUSEFS_SERVER_DIR,  /* servers/<ident> */
	FUSEFS_SERVER_FILE, /* servers/<ident>/<name> */
};

/* Fields other than the counts are immutable once added. */
struct fusefs_node {
	uint64_t ino;
	uint64_t parent; /* the top is its own parent */
	enum fusefs_kind kind;
	long server;	  /* cg_root index for FUSEFS_SERVER_*; -1 otherwise */
	uint64_t nlookup; /* the kernel's lookup count; table lock */
	unsigned refs;	  /* handlers holding it; table lock */
	const char *name; /* last component, inside path ("" for the top) */
	char ino_key[17]; /* ino in hex: its by_ino key */
	size_t pathlen;
	char path[]; /* NUL-terminated */
};

struct fusefs_inodes {
	pthread_mutex_t lock;
	/* Both keyed by strings the node holds, not copies: a walk of a
	 * 10,000-tool mount makes 30,000 nodes (issue 27). */
	struct strmap by_path; /* path → node; lock */
	struct strmap by_ino;  /* ino in hex → the same node; lock; owns the nodes */
	uint64_t next_ino;     /* lock */
	size_t max;	       /* ceiling on live nodes */
};

/* Adds the top as FUSEFS_ROOT_INO, held for the table's life. 0 or -errno. */
int fusefs_inodes_init(struct fusefs_inodes *t, size_t max);
void fusefs_inodes_destroy(struct fusefs_inodes *t);

/* Each returns the node held (release it with fusefs_inodes_put), or NULL:
 * the node for inode @ino; for @path (@n bytes) if it has one now; for @path,
 * added with the given kind, server and parent when new (NULL with errno:
 * ENOMEM, or ENOSPC past the ceiling). */
struct fusefs_node *fusefs_inodes_get(struct fusefs_inodes *t, uint64_t ino);
struct fusefs_node *fusefs_inodes_find(struct fusefs_inodes *t, const char *path, size_t n);
struct fusefs_node *fusefs_inodes_add(struct fusefs_inodes *t, const char *path, size_t n,
				      enum fusefs_kind kind, long server, uint64_t parent);
/* Let go of a held node (accepts NULL). */
void fusefs_inodes_put(struct fusefs_inodes *t, struct fusefs_node *node);
/* The node (held) is going to the kernel in an entry reply: count it. */
void fusefs_inodes_lookup(struct fusefs_inodes *t, struct fusefs_node *node);
/* FORGET: the kernel drops @nlookup of its count on @ino. */
void fusefs_inodes_forget(struct fusefs_inodes *t, uint64_t ino, uint64_t nlookup);
/* Live nodes. */
size_t fusefs_inodes_count(struct fusefs_inodes *t);

/* A server folder or file the kernel holds: inode @ino, named @name in
 * folder @parent. */
struct fusefs_known {
	uint64_t ino;
	uint64_t parent;
	enum fusefs_kind kind;
	char *name; /* owned */
};
/* Copies of every server folder and file whose lookup count is above 0 (the
 * kernel may cache it): sets *out to an array and returns its length, or
 * -ENOMEM (*out untouched). Free it with fusefs_known_free. */
long fusefs_inodes_known(struct fusefs_inodes *t, struct fusefs_known **out);
void fusefs_known_free(struct fusefs_known *k, long n); /* accepts NULL */

#endif
