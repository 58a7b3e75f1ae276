#include "metrics.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* Servers counted one by one; past this, the rest are summed under "*". */
#define METRICS_SERVERS_MAX 256

static const double buckets[] = {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

static const char *const outcome_names[METRICS_RUN_NOUTCOMES] = {
    [METRICS_RUN_OK] = "ok",	       [METRICS_RUN_FAILED] = "failed",
    [METRICS_RUN_TIMEOUT] = "timeout", [METRICS_RUN_CANCELLED] = "cancelled",
    [METRICS_RUN_ERROR] = "error",
};

struct server_calls {
	char *server;
	uint64_t ok, failed;
	struct server_calls *next;
};

struct metrics {
	pthread_mutex_t lock; /* everything below */
	uint64_t runs[METRICS_RUN_NOUTCOMES];
	uint64_t le[NBUCKETS]; /* runs that took at most buckets[i] (not cumulative) */
	uint64_t count;
	double sum;
	struct server_calls *calls;
	size_t ncalls;
	long sessions;
};

struct metrics *metrics_new(void)
{
	struct metrics *m = calloc(1, sizeof(*m));

	if (m)
		pthread_mutex_init(&m->lock, NULL);
	return m;
}

void metrics_free(struct metrics *m)
{
	struct server_calls *c;

	if (!m)
		return;
	while ((c = m->calls)) {
		m->calls = c->next;
		free(c->server);
		free(c);
	}
	pthread_mutex_destroy(&m->lock);
	free(m);
}

void metrics_run(struct metrics *m, enum metrics_outcome outcome, double seconds)
{
	size_t i;

	pthread_mutex_lock(&m->lock);
	m->runs[outcome]++;
	m->count++;
	m->sum += seconds;
	for (i = 0; i < NBUCKETS; i++)
		if (seconds <= buckets[i]) {
			m->le[i]++;
			break;
		}
	pthread_mutex_unlock(&m->lock);
}

void metrics_call(struct metrics *m, const char *server, bool ok)
{
	struct server_calls *c;

	pthread_mutex_lock(&m->lock);
	if (m->ncalls >= METRICS_SERVERS_MAX)
		server = "*";
	for (c = m->calls; c; c = c->next)
		if (!strcmp(c->server, server))
			break;
	if (!c && (c = calloc(1, sizeof(*c)))) {
		c->server = strdup(server);
		if (c->server) {
			c->next = m->calls;
			m->calls = c;
			m->ncalls++;
		} else {
			free(c);
			c = NULL;
		}
	}
	if (c && ok)
		c->ok++;
	else if (c)
		c->failed++;
	pthread_mutex_unlock(&m->lock);
}

void metrics_session(struct metrics *m, int delta)
{
	pthread_mutex_lock(&m->lock);
	m->sessions += delta;
	pthread_mutex_unlock(&m->lock);
}

/* @s as a label value: backslash, quote and newline escaped. */
static void label(struct buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			buf_putc(out, '\\');
		if (*s == '\n')
			buf_puts(out, "\\n");
		else
			buf_putc(out, *s);
	}
}

int metrics_render(struct metrics *m, struct sched *s, struct buf *out)
{
	struct server_calls *c;
	size_t running = 0, queued = 0, i;
	uint64_t cum = 0;

	if (s)
		sched_stats(s, &running, &queued);
	pthread_mutex_lock(&m->lock);
	buf_puts(out, "# HELP mcpfs_runs_total Runs of agent code by how they ended.\n"
		      "# TYPE mcpfs_runs_total counter\n");
	for (i = 0; i < METRICS_RUN_NOUTCOMES; i++)
		buf_printf(out, "mcpfs_runs_total{outcome=\"%s\"} %llu\n", outcome_names[i],
			   (unsigned long long)m->runs[i]);
	buf_puts(out, "# HELP mcpfs_run_duration_seconds Wall-clock time of runs.\n"
		      "# TYPE mcpfs_run_duration_seconds histogram\n");
	for (i = 0; i < NBUCKETS; i++) {
		cum += m->le[i];
		buf_printf(out, "mcpfs_run_duration_seconds_bucket{le=\"%g\"} %llu\n", buckets[i],
			   (unsigned long long)cum);
	}
	buf_printf(out,
		   "mcpfs_run_duration_seconds_bucket{le=\"+Inf\"} %llu\n"
		   "mcpfs_run_duration_seconds_sum %.6f\n"
		   "mcpfs_run_duration_seconds_count %llu\n",
		   (unsigned long long)m->count, m->sum, (unsigned long long)m->count);
	buf_puts(out, "# HELP mcpfs_tool_calls_total Tool calls by server and outcome.\n"
		      "# TYPE mcpfs_tool_calls_total counter\n");
	for (c = m->calls; c; c = c->next) {
		buf_puts(out, "mcpfs_tool_calls_total{server=\"");
		label(out, c->server);
		buf_printf(out, "\",outcome=\"ok\"} %llu\n", (unsigned long long)c->ok);
		buf_puts(out, "mcpfs_tool_calls_total{server=\"");
		label(out, c->server);
		buf_printf(out, "\",outcome=\"error\"} %llu\n", (unsigned long long)c->failed);
	}
	buf_printf(out,
		   "# HELP mcpfs_sessions_active MCP sessions open now.\n"
		   "# TYPE mcpfs_sessions_active gauge\n"
		   "mcpfs_sessions_active %ld\n"
		   "# HELP mcpfs_runs_running Runs going now.\n"
		   "# TYPE mcpfs_runs_running gauge\n"
		   "mcpfs_runs_running %zu\n"
		   "# HELP mcpfs_runs_queued Runs waiting for a slot (the queue depth).\n"
		   "# TYPE mcpfs_runs_queued gauge\n"
		   "mcpfs_runs_queued %zu\n",
		   m->sessions, running, queued);
	pthread_mutex_unlock(&m->lock);
	return out->len == out->max ? -E2BIG : 0;
}
