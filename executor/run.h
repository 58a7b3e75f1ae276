/* One execution of agent code in the jail: the tree, the customer's
 * workspace, a bridge of its own, the jailed process, the timeout, output
 * capture, and the result object `mcpfs exec --json` prints. */
#ifndef MCPFS_EXECUTOR_RUN_H
#define MCPFS_EXECUTOR_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"
#include "bridge.h"

struct hub;
struct policy;
struct search_source;
struct ws;
struct config;
struct run_pool;

/* The longest wall-clock limit a run may ask for. */
#define RUN_MAX_TIMEOUT_S (24 * 3600)
/* A run's wall-clock and memory limits when it asks for none. */
#define RUN_DEFAULT_TIMEOUT_S 30.0
#define RUN_DEFAULT_MEMORY_MB 512

enum run_lang {
	RUN_LANG_PYTHON,
	RUN_LANG_TYPESCRIPT,
};

struct run_opts {
	const char *root;	  /* the data root; borrowed */
	const struct config *cfg; /* borrowed; its server names make the tree */
	struct hub *hub;	  /* borrowed; serves the bridge */
	const char *customer;	  /* NULL: "default" */
	const struct ws *ws;	  /* that customer's workspace, already open (ws_open with
				     create); borrowed. NULL: the run opens it */
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
	/* Told of each tool call the code made, as it is answered (progress);
	 * from a bridge thread, must not block. NULL: none. */
	bridge_call_fn on_tool_call;
	void *on_tool_call_ctx;
	/* borrowed; answers the bridge's tools/search; NULL: refused */
	const struct search_source *search;
	/* borrowed; answers what servers ask during the code's calls
	 * (bridge_opts.asker); NULL: mcpfs answers */
	const struct client_asker *asker;
	/* Rewrites the strings "stdout", "stderr", "output", "code" and
	 * "description" of the result and of the task record in place before
	 * they are returned or recorded (PII tokens: pii_engine_filter_output);
	 * on -1 they are withheld. NULL: none. */
	int (*output_filter)(void *ctx, const char *customer, const char *session, json_t *obj,
			     struct err *err);
	void *output_ctx;

	/* borrowed; the customer's tree shows what its rules let it call
	 * (policy/policy.h); NULL: everything */
	const struct policy *policy;
	/* borrowed: a parked jail of the customer's is taken from it when one
	 * fits (run_pool.h; only with capture); NULL: the run makes its own */
	struct run_pool *pool;
};

/* A run: one execution, an object with a cancel handle, so that one process
 * holds many at once (serve, tests), each from any thread.
 *
 *   r = run_new(&opts, err);     the handle; run_cancel works from now on
 *   run_start(r, err);           workspace, tree, bridge, jail: the code runs
 *   res = run_wait(r, &st, err); supervise to the end, result and record
 *   run_free(r);                 whatever state it is in
 *
 * @o and everything it points to are borrowed until run_free. Nothing of a
 * run is process-wide: no signal handling, no signalfd (a caller that wants
 * SIGINT to stop its run calls run_cancel, as `mcpfs exec` does). */
struct run;

/* NULL with @err when out of memory or descriptors. */
struct run *run_new(const struct run_opts *o, struct err *err);

/* Set up and start the code. Returns 0, or -1 with @err: the code never
 * ran (also when run_cancel came first). At most once. */
int run_start(struct run *r, struct err *err);

/* Stop the run: the jail and everything in it is killed, and run_wait
 * returns as usual with "interrupted" in limits. From any thread, at any
 * time between run_new and run_free; async-signal-safe (one write). */
void run_cancel(struct run *r);

/* Wait for the end of a started run (in the calling thread: it reads the
 * captured output and enforces the timeout). Returns a new result object
 * (exit_code, signal, timed_out, stdout, stderr, truncated, duration_ms,
 * tool_calls, limits, session_id, customer, run_id) and sets *status to the
 * exit status mcpfs should return: the code's (128+signal when killed).
 * Appends the task to the session log when opts.record. NULL with @err. */
json_t *run_wait(struct run *r, int *status, struct err *err);

/* Append the task to the session log, as run_wait does with opts.record,
 * for a caller that answers first (serve): after run_wait (without
 * opts.record) with its result @res, before run_free. */
void run_record(struct run *r, json_t *res);

/* Kill what is left (a run never waited for), remove its socket and folder,
 * free. Accepts NULL. */
void run_free(struct run *r);

/* For run_pool.c. Set up a run up to its jail, parked (jail_spec.park_file):
 * the workspace held, the tree, the run's lock, its pipes; no code, session
 * or bridge. @r's opts are borrowed during this call only: a parked run is
 * only ever adopted by run_start or freed (run_unpark). 0, or -1 with @err. */
int run_park(struct run *r, struct err *err);
/* The tree a parked run's jail holds. */
const char *run_parked_tree(const struct run *r);
/* Free a parked run that never ran: as run_free, but its workspace is not
 * stamped as used (workspaces/idle.h). Accepts NULL. */
void run_unpark(struct run *r);

/* run_new, run_start, run_wait and run_free in one, for a caller that never
 * cancels. NULL with @err when the code never ran. */
json_t *run_exec(const struct run_opts *o, int *status, struct err *err);

/* Leftovers of killed runs (run_sweep.c). Beside a run's folder
 * <root>/run/exec-<id> is exec-<id>RUN_LOCK_SUFFIX, locked while the run or
 * its jail lives; the lock is taken, and the folder made, under
 * RUN_SWEEP_LOCK (in the data root) held shared. */
#define RUN_SWEEP_LOCK "run/sweep.lock"
#define RUN_LOCK_SUFFIX ".lock"

/* Open the sweep lock of data root @root and flock(@how) it (LOCK_SH, LOCK_EX).
 * Returns the descriptor, or -errno. */
int run_sweep_lock(const char *root, int how);

/* Remove what runs of killed mcpfs processes left under @root: each run
 * folder whose lock is free, and that run's cgroups (beside this process's
 * own, or in @cgroup_parent, $MCPFS_CGROUP, under v2) once they hold no
 * process. Live runs, of this process or another, are never touched.
 * Returns how many runs' leftovers were removed, or -errno. */
int run_sweep(const char *root, const char *cgroup_parent);

/* A new collision-free id for a run or session: UTC time plus 64 random bits,
 * valid as a workspace id. @n >= 40. Returns 0 or -errno. */
int run_id_new(char *out, size_t n);

#endif
