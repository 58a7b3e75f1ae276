/* PII in one process: the config, the compiled scanner, the open vaults (one
 * per customer and session) and the call hook that applies them to every
 * tools/call the hub makes. */
#ifndef MCPFS_PII_ENGINE_H
#define MCPFS_PII_ENGINE_H

#include <jansson.h>
#include <stdbool.h>

#include "../common/err.h"
#include "pii.h"

struct hub;
struct pii_engine;

/* The run's own switch over the config: follow it, or force PII on or off. */
enum pii_mode {
	PII_MODE_CONFIG,
	PII_MODE_ON,
	PII_MODE_OFF,
};

/* An engine over the config's "pii" section (@section borrowed, may be NULL;
 * @origin names the config in errors), with vaults under the data root
 * @root (borrowed; must outlive the engine). NULL with @err (EXIT_USAGE for
 * a bad section or pattern). */
struct pii_engine *pii_engine_new(const char *root, const json_t *section, const char *origin,
				  enum pii_mode mode, struct err *err);
/* Remove the engine's hooks first (hub_hook_remove or hub_free). Accepts NULL. */
void pii_engine_free(struct pii_engine *e);

/* Is PII on for @customer (NULL: "default")? */
bool pii_engine_active(const struct pii_engine *e, const char *customer);
/* The scanner (borrowed), or NULL when PII is on for no one. */
const struct pii_scanner *pii_engine_scanner(const struct pii_engine *e);
/* The vault of @customer's @session (NULL: one in memory for this process),
 * opened on first use and kept: <root>/workspaces/<customer>/sessions/
 * <session>.vault. Borrowed; NULL with @err. */
struct pii_vault *pii_engine_vault(struct pii_engine *e, const char *customer, const char *session,
				   struct err *err);

/* Add the engine's call hook to @h (order HUB_ORDER_PII): arguments
 * de-tokenized before the server, results and errors tokenized after it.
 * Returns the hook's handle > 0, or -errno. */
int pii_engine_hook(struct pii_engine *e, struct hub *h);

/* Tokenize the strings "stdout", "stderr", "output", "code",
 * "description", "arguments" and "error" (a call record's) of a run's result object or task record
 * (borrowed, changed in place) with @session's vault; @ctx is the engine. Returns 0, or -1 with
 * @err (the caller then withholds them). */
int pii_engine_filter_output(void *ctx, const char *customer, const char *session, json_t *result,
			     struct err *err);

#endif
