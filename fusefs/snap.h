/* One server folder as the mount shows it at one moment: the codegen view of
 * one catalog generation (or of the failure to get one), when it arrived, and
 * the files rendered from it so far. Immutable but for its cache; refcounted
 * because handlers, the loader and the invalidation thread share it. */
#ifndef MCPFS_FUSEFS_SNAP_H
#define MCPFS_FUSEFS_SNAP_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../codegen/codegen.h"
#include "cache.h"

struct fusefs_snap {
	atomic_uint refs;
	struct cg_server *cg;	   /* owned */
	bool ok;		   /* built from a catalog; false: a README says why */
	bool provisional;	   /* the "still starting" stand-in */
	uint64_t generation;	   /* the catalog's (ok snapshots) */
	char *status;		   /* !ok: the one-line reason; owned */
	struct timespec mtime;	   /* when it was built: the folder's and files' times */
	struct fusefs_cache cache; /* rendered files by name */
};

/* New snapshot (one reference) of server @index of @r. @tools (the snapshot
 * takes a reference), or NULL with @status (one line) and @detail (may be
 * NULL). NULL on ENOMEM. */
struct fusefs_snap *fusefs_snap_new(const struct cg_root *r, size_t index,
				    struct catalog_text *tools, uint64_t generation,
				    const char *status, const char *detail, bool provisional,
				    struct fusefs_budget *budget);
struct fusefs_snap *fusefs_snap_ref(struct fusefs_snap *s);
void fusefs_snap_unref(struct fusefs_snap *s); /* accepts NULL */

/* Bytes of file @name of the folder, cached. 0 with *out a new reference, or
 * -errno (-ENOENT: no such file in this generation). */
int fusefs_snap_read(struct fusefs_snap *s, const char *name, struct fusefs_blob **out);
/* The size of file @name (rendered once). 0 or -errno (-ENOENT). */
int fusefs_snap_size(struct fusefs_snap *s, const char *name, size_t *size);

#endif
