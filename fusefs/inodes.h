/* Stable inode numbers: a table from path (relative to the mount's top) to
 * inode number, filled on first sight and never shrunk, so a path keeps its
 * number for the life of the mount and the kernel's forget needs no
 * bookkeeping. Thread-safe (a rwlock inside). */
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

/* Immutable once added; lives as long as the table. */
struct fusefs_node {
	uint64_t ino;
	uint64_t parent; /* the top is its own parent */
	enum fusefs_kind kind;
	long server;	  /* cg_root index for FUSEFS_SERVER_*; -1 otherwise */
	const char *name; /* last component, inside path ("" for the top) */
	size_t pathlen;
	char path[]; /* NUL-terminated */
};

struct fusefs_inodes {
	pthread_rwlock_t lock;
	struct strmap by_path;	    /* path → node; lock */
	struct fusefs_node **nodes; /* nodes[ino - 1], owned; lock */
	size_t n, cap;		    /* lock */
	size_t max;		    /* ceiling on n */
};

/* Adds the top as FUSEFS_ROOT_INO. Returns 0 or -errno. */
int fusefs_inodes_init(struct fusefs_inodes *t, size_t max);
void fusefs_inodes_destroy(struct fusefs_inodes *t);

/* The node for inode @ino, or NULL. Borrowed: valid while the table lives. */
const struct fusefs_node *fusefs_inodes_get(struct fusefs_inodes *t, uint64_t ino);
/* The node for @path (@n bytes), or NULL when it never got a number. */
const struct fusefs_node *fusefs_inodes_find(struct fusefs_inodes *t, const char *path, size_t n);
/* The node for @path, added with the given kind, server and parent when new.
 * NULL with errno (ENOMEM, or ENOSPC past the ceiling). */
const struct fusefs_node *fusefs_inodes_add(struct fusefs_inodes *t, const char *path, size_t n,
					    enum fusefs_kind kind, long server, uint64_t parent);

#endif
