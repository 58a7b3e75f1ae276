/* Going to the background only once the mount answers: the parent waits on
 * a pipe for the daemon's verdict, so `mcpfs mount` exits 0 only when the
 * tree can be read, and with the daemon's error line otherwise. */
#ifndef MCPFS_FUSEFS_DAEMON_H
#define MCPFS_FUSEFS_DAEMON_H

#include "../common/err.h"

/* Fork. In the parent, waits for the verdict and returns 1 with *status set
 * (and @err on failure). In the child (a new session), returns 0 with
 * *ready_fd the pipe to report on. -1 with @err when fork fails. Call before
 * any thread exists. */
int fusefs_daemon_fork(int *ready_fd, int *status, struct err *err);

/* Report the verdict on @fd (then closed): @status 0 means ready; otherwise
 * @text is the one-line error the parent prints. After a ready verdict stdin
 * and stdout become /dev/null and stderr @log_path (appended). */
void fusefs_daemon_report(int fd, int status, const char *text, const char *log_path);

#endif
