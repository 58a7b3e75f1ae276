/* What a bridge's calls add up to: the first calls one by one (for the
 * session log) and every call summed per tool. Thread-safe. */
#ifndef MCPFS_EXECUTOR_BRIDGE_ACCOUNT_H
#define MCPFS_EXECUTOR_BRIDGE_ACCOUNT_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct bridge_account {
	pthread_mutex_t lock; /* everything below */
	json_t *records;      /* new array: the first max_records calls */
	size_t max_records;
	json_t *by_tool; /* new array: every call, summed per (server, tool) */
	json_t *by_name; /* new object: server -> tool -> its by_tool entry */
	size_t ncalls;
};

/* @max_records: 0 for the default (100,000). Returns 0 or -ENOMEM; on
 * failure bridge_account_free still frees what was made. */
int bridge_account_init(struct bridge_account *a, size_t max_records);
void bridge_account_free(struct bridge_account *a);

/* What the session record keeps of one call, beyond its name. */
struct bridge_call_audit {
	json_t *args;	      /* borrowed; kept as JSON text cut at BRIDGE_AUDIT_ARGS_MAX */
	const char *error;    /* the failure's text, or NULL */
	const char *decision; /* the policy's, or NULL */
	double start_ms;      /* of ms, spent on the server's start */
};

#define BRIDGE_AUDIT_ARGS_MAX 2048
#define BRIDGE_AUDIT_ERROR_MAX 1024

/* Count one call that has been answered; @audit may be NULL. */
void bridge_account_add(struct bridge_account *a, const char *server, const char *tool, bool ok,
			double ms, const struct bridge_call_audit *audit);

size_t bridge_account_ncalls(struct bridge_account *a);
/* New copies of the lists, as bridge_calls and bridge_calls_by_tool say. */
json_t *bridge_account_calls(struct bridge_account *a);
json_t *bridge_account_by_tool(struct bridge_account *a);

#endif
