/* The id rule: customer and session ids become folder and file names, so
 * they are [A-Za-z0-9][A-Za-z0-9._-]{0,63} (never "." or "..", never a "/").
 * Every part that takes an id from outside checks it here. */
#ifndef MCPFS_COMMON_ID_H
#define MCPFS_COMMON_ID_H

#include <stdbool.h>

#include "err.h"

#define ID_MAX 64

/* Is @id (NULL allowed) a valid id? On false, @err (may be NULL) says why in
 * one line (EXIT_USAGE), naming the id as @what ("customer", "session"). */
bool id_valid(const char *id, const char *what, struct err *err);

#endif
