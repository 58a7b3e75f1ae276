/* The mounted tree without FUSE: inode → (server, kind, name) → bytes, with
 * the attributes the kernel needs. Every answer comes from codegen (cg_root_*
 * for the top, a server snapshot's cg_server_* below), so the mount and
 * `mcpfs generate` agree byte for byte. Thread-safe; testable unmounted with
 * a fake source. */
#ifndef MCPFS_FUSEFS_LOOKUP_H
#define MCPFS_FUSEFS_LOOKUP_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "../codegen/codegen.h"
#include "cache.h"
#include "inodes.h"
#include "slot.h"
#include "source.h"

struct fusefs_tree_opts {
	const struct cg_root *root;	 /* borrowed; outlives the tree */
	const struct fusefs_source *src; /* borrowed; outlives the tree */
	const double *wait_s;		 /* per server (cg_root order): how long a
					    request waits for its first catalog */
	size_t cache_max;		 /* bytes of rendered files kept */
	fusefs_swap_fn on_swap;		 /* a visible folder changed */
	void *swap_ctx;
	/* Entries [first, first + count) of server folder @server (in @snap, a
	 * reference the callee owns) went to the kernel with their attributes
	 * (NULL: ignored). */
	void (*on_listed)(void *ctx, size_t server, struct fusefs_snap *snap, size_t first,
			  size_t count);
	void *listed_ctx;
};

struct fusefs_tree {
	const struct cg_root *root;
	struct fusefs_inodes inodes;
	struct fusefs_budget budget;
	struct fusefs_cache top;   /* the top-level files: they never change */
	struct fusefs_slot *slots; /* one per server, cg_root order; owned */
	size_t nslots;
	struct timespec mtime; /* mount time: the times of the top */
	void (*on_listed)(void *ctx, size_t server, struct fusefs_snap *snap, size_t first,
			  size_t count);
	void *listed_ctx;
	uid_t uid;
	gid_t gid;
};

struct fusefs_tree *fusefs_tree_new(const struct fusefs_tree_opts *o);
/* Joins the loader threads; call before freeing what the source uses. */
void fusefs_tree_stop(struct fusefs_tree *t);
/* Accepts NULL. Snapshots charge the tree's byte budget: whoever else holds
 * one (the invalidation queue) must have let go first. */
void fusefs_tree_free(struct fusefs_tree *t);

/* Each returns 0 or -errno (-ENOENT, -ENOTDIR, -EISDIR, -ENOMEM, -ENOSPC). */
int fusefs_tree_lookup(struct fusefs_tree *t, uint64_t parent, const char *name, struct stat *st);
int fusefs_tree_getattr(struct fusefs_tree *t, uint64_t ino, struct stat *st);
/* FORGET: the kernel dropped @nlookup references to @ino. */
void fusefs_tree_forget(struct fusefs_tree *t, uint64_t ino, uint64_t nlookup);
/* The bytes of file @ino: *out is a new reference. */
int fusefs_tree_read(struct fusefs_tree *t, uint64_t ino, struct fusefs_blob **out);
/* The kernel holds all of @ino's bytes now (a read reached the end, or they
 * were stored): drop ours, keep the size. A later read renders again. */
void fusefs_tree_release(struct fusefs_tree *t, uint64_t ino);

/* Called per entry with its name, attributes and the offset of the next
 * entry; returns nonzero to stop (the reply is full). */
typedef int (*fusefs_dirent_fn)(void *ctx, const char *name, const struct stat *st, off_t next);
/* Entries of directory @ino from offset @off: ".", "..", then the folder's.
 * Without @plus only st_ino and st_mode's type are set; with @plus every
 * attribute (files are rendered for their size), except for "." and "..". */
int fusefs_tree_readdir(struct fusefs_tree *t, uint64_t ino, off_t off, bool plus,
			fusefs_dirent_fn emit, void *ctx);

/* A readdirplus reply for directory @ino covering offsets [@off, @next) was
 * sent: the kernel now knows those files, so their rendered bytes can be
 * stored into its page cache (o->on_listed). */
void fusefs_tree_listed(struct fusefs_tree *t, uint64_t ino, off_t off, off_t next);

/* The server whose configured name is @name changed its catalog. */
void fusefs_tree_changed(struct fusefs_tree *t, const char *name);
/* Periodic health check of every loaded server (see fusefs_slot_poll). */
void fusefs_tree_poll(struct fusefs_tree *t);
/* The inode of servers/<ident of @server>[/@name] if it was ever given out, else 0. */
uint64_t fusefs_tree_server_ino(struct fusefs_tree *t, size_t server, const char *name);

#endif
