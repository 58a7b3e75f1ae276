/* Signals as a fresh process has them, for a child about to exec. */
#ifndef MCPFS_COMMON_SIGRESET_H
#define MCPFS_COMMON_SIGRESET_H

/* Every handler back to its default (ignored ones too: exec would keep
 * SIG_IGN, and mcpfs ignores SIGPIPE) and no signal blocked. Async-signal-
 * safe. Returns 0, or -1 with errno when the mask could not be cleared. */
int sigreset_all(void);

#endif
