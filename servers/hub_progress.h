/* Progress on a terminal while servers start: one line, redrawn in place,
 * naming the servers still starting and how many are done; cleared when none
 * is. Shown only when @fd is a terminal, so pipes and logs never see it. */
#ifndef MCPFS_SERVERS_HUB_PROGRESS_H
#define MCPFS_SERVERS_HUB_PROGRESS_H

struct hub;
struct hub_progress;

/* Watch @h (borrowed until hub_progress_stop) from a thread of its own,
 * drawing on @fd. NULL when @fd is not a terminal (or out of resources):
 * nothing is shown then. */
struct hub_progress *hub_progress_start(struct hub *h, int fd);
/* Stop watching and clear the line; accepts NULL. */
void hub_progress_stop(struct hub_progress *p);

#endif
