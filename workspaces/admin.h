/* Provisioning and inspection of workspaces, for the command line. */
#ifndef MCPFS_WORKSPACES_ADMIN_H
#define MCPFS_WORKSPACES_ADMIN_H

#include <jansson.h>
#include <time.h>

#include "../common/err.h"
#include "quota.h"
#include "workspace.h"

/* ws_open with create, recording @q (NULL: the defaults, or what is already
 * recorded) and applying a changed quota. Returns 0 or -1 with @err. */
int ws_create(const char *root, const char *customer, const struct ws_quota *q, struct ws *out,
	      struct err *err);

/* The customers under @root: a new sorted array of id strings (entries that
 * are not valid ids or not real folders are left out), or NULL with @err. */
json_t *ws_list(const char *root, struct err *err);

/* Unmount the workspace and delete the customer's folder. Returns 0 or -1. */
int ws_remove(const struct ws *ws, struct err *err);

/* When the customer last ran something: the newest session log's mtime, or 0. */
time_t ws_last_use(const struct ws *ws);

/* The retention policy: session logs (and their lock files) not written for
 * @max_age_s, temp files of killed writers and half-saved skills older than
 * an hour. With @dry_run nothing is deleted. A new array of the paths (relative
 * to ws->dir) removed or, with @dry_run, that would be; NULL with @err. */
json_t *ws_gc(const struct ws *ws, double max_age_s, bool dry_run, struct err *err);

#endif
