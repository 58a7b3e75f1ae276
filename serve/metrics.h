/* Counters for /metrics, rendered in the Prometheus text format (0.0.4):
 * runs by outcome and their durations, tool calls by server and outcome,
 * active sessions, runs going and queued. Thread-safe. */
#ifndef MCPFS_SERVE_METRICS_H
#define MCPFS_SERVE_METRICS_H

#include <stdbool.h>

#include "../common/buf.h"

struct metrics;
struct sched;

/* How a run ended, the label of mcpfs_runs_total. */
enum metrics_outcome {
	METRICS_RUN_OK,	       /* exit status 0 */
	METRICS_RUN_FAILED,    /* the code exited non-zero or was killed */
	METRICS_RUN_TIMEOUT,   /* its time ran out */
	METRICS_RUN_CANCELLED, /* the client cancelled it */
	METRICS_RUN_ERROR,     /* the jail could not be set up, or the queue was full */
	METRICS_RUN_NOUTCOMES,
};

struct metrics *metrics_new(void);
void metrics_free(struct metrics *m); /* accepts NULL */

void metrics_run(struct metrics *m, enum metrics_outcome outcome, double seconds);
/* One tools/call to @server; allocation failure drops the count. */
void metrics_call(struct metrics *m, const char *server, bool ok);
void metrics_session(struct metrics *m, int delta);

/* Append the text to @out; @s (may be NULL) gives the run gauges. 0 or -errno. */
int metrics_render(struct metrics *m, struct sched *s, struct buf *out);

#endif
