/* The daemon's idle sweep (workspaces/idle.h): a thread that unmounts the
 * workspaces nobody used for the idle time, checking every tenth of it (at
 * most a minute apart, at least 0.1 s). */
#ifndef MCPFS_SERVE_SWEEP_H
#define MCPFS_SERVE_SWEEP_H

#include "../common/err.h"

struct serve_sweep;

/* Start sweeping @root (borrowed) for workspaces idle @idle_s (> 0) seconds.
 * NULL with @err. */
struct serve_sweep *serve_sweep_start(const char *root, double idle_s, struct err *err);
/* Stop and join the thread. Accepts NULL. */
void serve_sweep_stop(struct serve_sweep *s);

#endif
