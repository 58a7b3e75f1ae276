/* The bridge's parts: the connection and threading part (bridge.c), the
 * method table (bridge_methods.c) and the accounting (bridge_account.c).
 * Internal to executor/. */
#ifndef MCPFS_EXECUTOR_BRIDGE_I_H
#define MCPFS_EXECUTOR_BRIDGE_I_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/cancel.h"
#include "../common/err.h"
#include "bridge.h"
#include "bridge_account.h"

/* Ceilings: connections at once, workers (one reading per connection plus
 * those making calls), requests waiting per connection. */
#define BRIDGE_MAX_CONNS 256
#define BRIDGE_MAX_WORKERS (BRIDGE_MAX_CONNS + 64)
#define BRIDGE_MAX_PENDING_PER_CONN 1024
/* Budgets, so that mcpfs's own memory stays bounded whatever jailed code
 * sends (the run's cgroup does not cover mcpfs): the bytes a run's requests
 * and replies may hold at once (input buffers, parsed requests, replies
 * being written), the tool calls a run may have in flight (each result is
 * held whole until it is answered), and how much and how long a connection
 * may talk before it authenticates. */
#define BRIDGE_DEFAULT_BUDGET (64u << 20)
#define BRIDGE_MAX_CALLS 32
#define BRIDGE_UNAUTH_BYTES 4096
#define BRIDGE_UNAUTH_MS 5000.0

enum {
	RPC_PARSE = -32700,
	RPC_INVALID = -32600,
	RPC_NO_METHOD = -32601,
	RPC_PARAMS = -32602,
	RPC_FAILED = -32000,
	RPC_TOO_LARGE = -32001,
	RPC_BUSY = -32002
};

struct conn {
	struct bridge *b;
	int fd;
	uint64_t id;	       /* names it to the watcher's epoll; never reused */
	pthread_mutex_t wlock; /* serializes replies on fd */
	/* The read side, used only by the worker holding it (handed from
	 * worker to worker, never shared). */
	char *in;
	size_t cap, len;
	double served_ms; /* when its last request was served, else 0 */
	bool spin;	  /* the next request is expected soon: poll for it */
	size_t charged;	  /* of the budget, for in */
	atomic_bool authed;
	double born_ms;	   /* accepted at; the watcher closes it unauthenticated */
	bool expired;	   /* the watcher closed it; protected by b->lock */
	uint64_t tickets;  /* parks so far; protected by b->lock */
	uint64_t parked;   /* the park's ticket while its reader serves, else 0; b->lock */
	unsigned refs;	   /* the read side + call jobs; protected by b->lock */
	unsigned pending;  /* request and reply jobs queued or running; b->lock */
	struct conn *next; /* b->conns; protected by b->lock */
};

struct job {
	struct conn *c; /* holds a reference */
	json_t *req;	/* new: a request to serve */
	json_t *reply;	/* new: an error its reader could not send at once */
	size_t cost;	/* of the budget, for req */
	struct job *next;
};

struct bridge {
	struct hub *hub;
	char *path, *token, *customer, *workspace, *session;
	const struct ws *ws;
	double call_timeout_s, deadline_s;
	struct cancel cancel; /* fired by bridge_stop: calls in flight give up */
	struct bridge_account account;
	bridge_call_fn on_call; /* bridge_opts.on_call */
	void *on_call_ctx;
	const struct search_source *search; /* bridge_opts.search */
	const struct client_asker *asker;   /* bridge_opts.asker */
	size_t max_result;
	int lfd;
	int epfd; /* the watcher's: the listening socket, stop_pipe, parked connections */
	int stop_pipe[2];
	pthread_t acceptor;
	bool acceptor_started;
	bool stopped;	      /* bridge_stop ran; only the owner's thread touches it */
	atomic_bool spinning; /* a reader is polling (spin_for_request) */

	pthread_mutex_t lock; /* everything below */
	pthread_cond_t work;  /* a job was queued, or stopping */
	pthread_cond_t idle;  /* a job finished or a connection ended */
	struct job *head, *tail;
	unsigned nworkers, nidle, nqueued, njobs_running;
	pthread_t workers[BRIDGE_MAX_WORKERS];
	struct conn *conns;
	unsigned nconns;
	uint64_t next_id;
	bool stopping;
	size_t budget, used; /* bytes; bridge_charge */
	unsigned calls;	     /* tools/call in flight */
	pthread_cond_t slot; /* a call ended, or stopping */
	unsigned nunauthed;  /* connections not yet authenticated */
};

/* A request being served: where its reply goes. */
struct request {
	struct conn *c;
	json_t *id;	 /* borrowed; NULL for a notification */
	uint64_t ticket; /* the park of the read side its worker holds, else 0 */
	bool kept;	 /* pass_result gave that read side back to the worker */
	bool replied;	 /* the reply already went out (pass_result) */
};

/* A method of the bridge's protocol (bridge.h). */
struct bridge_method {
	const char *name;
	/* Returns a new result (json null allowed), or NULL with *code and
	 * @err. May reply itself (rq->replied), as tools/call's fast path does. */
	json_t *(*run)(struct bridge *b, struct request *rq, json_t *params, int *code,
		       struct err *err);
};

/* Take @n bytes of the run's budget: false, taking nothing, when they are
 * not there. bridge_uncharge gives them back. */
bool bridge_charge(struct bridge *b, size_t n);
void bridge_uncharge(struct bridge *b, size_t n);

/* The method called @name, or NULL. */
const struct bridge_method *bridge_method_find(const char *name);

/* A string member without an embedded NUL (which C would silently cut), or NULL. */
const char *bridge_plain_string(json_t *obj, const char *key);

/* Send @res (borrowed) as the result for @id. Returns 0, -E2BIG when an
 * error went out instead (over the cap), or -errno. */
int bridge_reply_result(struct conn *c, json_t *id, json_t *res);

/* A client_call_hooks.result for @rq (ctx): the result goes back to the
 * code from the server connection's reader thread (see bridge.c). */
void bridge_pass_result(void *ctx, json_t *result);

/* Send @msg (borrowed) now if the connection has room and nobody else is
 * writing, else not at all: for what may be dropped (progress). Never
 * blocks. Returns 0 or a negative errno. */
int bridge_try_send(struct conn *c, json_t *msg);

#endif
