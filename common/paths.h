/* Where mcpfs keeps its data: --root, $MCPFS_ROOT, $XDG_DATA_HOME/mcpfs,
 * ~/.local/share/mcpfs. Layout under it:
 *   logs/<server>.log        server stderr and protocol faults
 *   cache/catalogs/          catalogs cached on disk for one-shot commands
 *   cache/trees/             trees generated for exec runs without a mount
 *   run/                     sockets and pid files of long-lived processes
 *   workspaces/<customer>/   per-customer data (workspaces/) */
#ifndef MCPFS_COMMON_PATHS_H
#define MCPFS_COMMON_PATHS_H

#include <stddef.h>

#include "err.h"

/* Resolve the data root into @out (absolute, created if missing). @flag is
 * --root or NULL. Returns 0 or -1 with @err. */
int paths_root(const char *flag, char *out, size_t n, struct err *err);

#endif
