/* Per-customer workspaces under the data root:
 *   <root>/workspaces/<customer>/workspace/  the jail's working directory, persistent
 *   <root>/workspaces/<customer>/skills/     the customer's skills (/skills in the jail)
 *   <root>/workspaces/<customer>/sessions/   <session>.json session logs
 *   <root>/workspaces/<customer>/state/      server state (${STATE}), checkpoints */
#ifndef MCPFS_WORKSPACES_WORKSPACE_H
#define MCPFS_WORKSPACES_WORKSPACE_H

#include <limits.h>
#include <stdbool.h>

#include "../common/err.h"

#define WS_ID_MAX 64

struct ws {
	char customer[WS_ID_MAX + 1];
	char dir[PATH_MAX];       /* <root>/workspaces/<customer> */
	char workspace[PATH_MAX]; /* dir/workspace */
	char skills[PATH_MAX];    /* dir/skills */
	char sessions[PATH_MAX];  /* dir/sessions */
	char state[PATH_MAX];     /* dir/state */
};

/* A customer or session id: [A-Za-z0-9][A-Za-z0-9._-]{0,63}, not "." or "..".
 * On false, @err says why in one line (EXIT_USAGE). */
bool ws_id_valid(const char *id, const char *what, struct err *err);

/* Fill @out with the customer's paths; with @create, make the folders
 * (idempotent). Refuses invalid ids and folders that are symlinks. Returns 0
 * or -1 with @err. */
int ws_open(const char *root, const char *customer, bool create, struct ws *out, struct err *err);

#endif
