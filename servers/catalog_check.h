/* A server's catalog as mcpfs keeps it: the tools a consumer can use, and
 * notes on the rest. One bad tool never takes out its server: a tool that is
 * not an object, has no usable name, repeats an earlier tool's name, or was
 * cut for nesting past the decoder's limit is skipped, and the notes say which
 * and why. The notes also keep what the server said of itself at initialize
 * ("instructions"), for the server's README, and what it offers beside its
 * tools: resources, resource templates and prompts. */
#ifndef MCPFS_SERVERS_CATALOG_CHECK_H
#define MCPFS_SERVERS_CATALOG_CHECK_H

#include <jansson.h>

#include "../common/err.h"
#include "client.h"

/* The kept tools of @tools (stolen): a new array holding the same Tool
 * objects. *@skipped gets a new array of {"name", "why"} (empty when none).
 * NULL only when out of memory (then *@skipped is NULL). */
json_t *catalog_check(json_t *tools, json_t **skipped);

/* tools/list on @c, checked: the new array of kept tools, and *@notes a new
 * object {"instructions"?: string, "skipped": [...], "resources"?: [...],
 * "resource_templates"?: [...], "prompts"?: [...]}: the other lists, each
 * present when the server declares its capability (resources, prompts) and
 * the list could be had, as the server sent its items; and "unlisted"?:
 * [{"name", "why"}], a list that failed (named by its method) or an item
 * left out of one. NULL with @err. */
json_t *catalog_list(struct client *c, json_t **notes, struct err *err);

#endif
