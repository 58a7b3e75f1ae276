/* Per-customer workspaces under the data root:
 *   <root>/workspaces/<customer>/workspace/  the jail's working directory, persistent
 *   <root>/workspaces/<customer>/skills/     the customer's skills (/skills in the jail)
 *   <root>/workspaces/<customer>/sessions/   <session>.json session logs
 *   <root>/workspaces/<customer>/state/      server state (${STATE}), checkpoints */
#ifndef MCPFS_WORKSPACES_WORKSPACE_H
#define MCPFS_WORKSPACES_WORKSPACE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "../common/err.h"
#include "../common/id.h"

struct ws {
	char customer[ID_MAX + 1];
	char dir[PATH_MAX];	  /* <root>/workspaces/<customer> */
	char workspace[PATH_MAX]; /* dir/workspace */
	char skills[PATH_MAX];	  /* dir/skills */
	char sessions[PATH_MAX];  /* dir/sessions */
	char state[PATH_MAX];	  /* dir/state */
};

/* Fill @out with the customer's paths; with @create, make the folders
 * (idempotent). Refuses invalid ids and folders that are symlinks. When the
 * customer's quota is backed by an ext4 image (workspaces/quota.h), makes
 * sure it is mounted at workspace/. Returns 0 or -1 with @err. */
int ws_open(const char *root, const char *customer, bool create, struct ws *out, struct err *err);

/* Make workspace/ and skills/ (recursively, never following symlinks) owned
 * by the host @uid/@gid the jail maps its code to, so the code can write
 * there. Returns 0 or -1 with @err. */
int ws_chown(const struct ws *ws, uid_t uid, gid_t gid, struct err *err);

/* The operator-installed skills shared read-only by every customer:
 * <root>/skills-shared (created if missing). Returns 0 or -1 with @err. */
int ws_skills_shared(const char *root, char *out, size_t n, struct err *err);

#endif
