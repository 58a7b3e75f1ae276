/* One execution of agent code in the jail: the tree, the customer's
 * workspace, a bridge of its own, the jailed process, the timeout, output
 * capture, and the result object `mcpfs exec --json` prints. */
#ifndef MCPFS_EXECUTOR_RUN_H
#define MCPFS_EXECUTOR_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"

struct hub;
struct config;

/* The longest wall-clock limit a run may ask for. */
#define RUN_MAX_TIMEOUT_S (24 * 3600)

enum run_lang {
	RUN_LANG_PYTHON,
	RUN_LANG_TYPESCRIPT,
};

struct run_opts {
	const char *root;	  /* the data root; borrowed */
	const struct config *cfg; /* borrowed; its server names make the tree */
	struct hub *hub;	  /* borrowed; serves the bridge */
	const char *customer;	  /* NULL: "default" */
	const char *session;	  /* NULL: a new id */
	const char *description;  /* for the task record; NULL: none */
	bool record;		  /* append the task to the session log */
	enum run_lang lang;
	const char *code; /* the program's bytes; borrowed */
	size_t code_len;
	double timeout_s;	   /* wall clock, at most RUN_MAX_TIMEOUT_S; <= 0: 30 s */
	unsigned memory_mb;	   /* cgroup memory limit; 0: 512 */
	bool capture;		   /* capture stdout/stderr into the result (else pass through) */
	int stdin_fd;		   /* without capture: the code's stdin; -1: /dev/null */
	const char *cgroup_parent; /* jail_spec.cgroup_parent ($MCPFS_CGROUP); NULL: none */
	/* Rewrites the strings "stdout", "stderr", "output", "code" and
	 * "description" of the result and of the task record in place before
	 * they are returned or recorded (PII tokens: pii_engine_filter_output);
	 * on -1 they are withheld. NULL: none. */
	int (*output_filter)(void *ctx, const char *customer, const char *session, json_t *result,
			     struct err *err);
	void *output_ctx;
};

/* Run the code. Returns a new result object (exit_code, signal, timed_out,
 * stdout, stderr, truncated, duration_ms, tool_calls, limits, session_id,
 * customer, run_id) and sets *status to the exit status mcpfs should return: the
 * code's (128+signal when killed). NULL with @err when the jail could not be
 * set up: the code never ran.
 *
 * The caller blocks SIGINT, SIGTERM and SIGHUP in every thread (before it
 * starts any): the run turns them into killing the jail and returns as
 * usual, with "interrupted" in limits, so nothing is left behind. */
json_t *run_exec(const struct run_opts *o, int *status, struct err *err);

/* A new collision-free id for a run or session: UTC time plus 64 random bits,
 * valid as a workspace id. @n >= 40. Returns 0 or -errno. */
int run_id_new(char *out, size_t n);

#endif
