/* A server's log file: its stderr and our protocol faults, appended, with one
 * rotation (<log>.1) when it passes a size cap, and a tail reader for errors. */
#ifndef MCPFS_SERVERS_SERVER_LOG_H
#define MCPFS_SERVERS_SERVER_LOG_H

#include <stddef.h>

/* A log past this many bytes is renamed to <path>.1 and started afresh. */
#define SERVER_LOG_MAX (1u << 20)

struct server_log;

/* New handle appending to @path (its folder is created). NULL if it cannot
 * be opened; callers then log nothing. */
struct server_log *server_log_open(const char *path);
/* Append @n bytes as they are (stderr is already line-structured). Thread-safe. */
void server_log_write(struct server_log *l, const char *data, size_t n);
/* Append one "mcpfs: <text>" line. Thread-safe; @l may be NULL. */
void server_log_printf(struct server_log *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void server_log_close(struct server_log *l); /* accepts NULL */

/* The last @max_lines lines of the log at @path into @out (NUL-terminated,
 * at most @n bytes, trailing newline removed); "" when there is none. */
void server_log_tail(const char *path, size_t max_lines, char *out, size_t n);

#endif
