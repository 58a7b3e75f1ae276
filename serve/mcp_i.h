/* Inside the protocol core: a connection and its calls in flight, shared by
 * mcp.c, the tools (tools_*.c) and the engine's progress ticker. */
#ifndef MCPFS_SERVE_MCP_I_H
#define MCPFS_SERVE_MCP_I_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "../common/cancel.h"
#include "../servers/client.h"
#include "../workspaces/workspace.h"
#include "mcp.h"

struct mcp_ask;

/* One tools/call in flight. */
struct mcp_call {
	struct mcp_conn *conn; /* a reference held until the call ends */
	json_t *id;	       /* owned copy of the request id */
	json_t *token;	       /* owned copy of _meta.progressToken, or NULL */
	const struct serve_tool *tool;
	json_t *args;	      /* owned */
	struct cancel cancel; /* fired by notifications/cancelled and close */
	/* What servers ask during the run's calls goes to the host: ask.c. */
	struct client_asker asker;
	struct run *run; /* protected by conn->lock: the run going, or NULL */
	bool cancelled;	 /* protected by conn->lock */
	/* Progress, read by the engine's ticker under conn->lock. */
	bool progress;		   /* a run is going and the client asked for progress */
	atomic_uint tool_calls;	   /* calls the run made so far (the call hook) */
	unsigned tool_calls_sent;  /* as of the last progress sent */
	unsigned seq;		   /* progress notifications sent */
	unsigned progress_sending; /* taken by the ticker, not yet sent: the result waits */
	double started_s, sent_s;  /* clock_now_s() of the run's start, of the last progress */
	/* The latest progress a server gave on one of the run's tool calls,
	 * and whether it is yet to be sent (protected by conn->lock). */
	char tool_progress[256];
	bool tool_progress_new;
	struct mcp_call *next; /* protected by conn->lock */
};

struct mcp_conn {
	struct serve_engine *e;
	struct mcp_conn_ops ops;
	char customer[ID_MAX + 1];
	char session[ID_MAX + 1];
	char protocol[32];
	pthread_mutex_t lock; /* calls, refs, closed, initialized, the send order */
	pthread_cond_t idle;  /* broadcast when a call ends */
	struct mcp_call *calls;
	size_t ncalls;
	unsigned refs;
	bool closed, initialized, attached;
	unsigned afters;	   /* calls answered whose tool_out.after is still running */
	pthread_mutex_t send_lock; /* one send at a time */
	/* The host, as initialize said (protected by lock): its capabilities
	 * (new, or NULL), its clientInfo.name; and our requests to it. */
	json_t *host_caps;
	char host_name[128];
	struct mcp_ask *asks;
	unsigned asks_made;
};

/* Send through the transport unless the connection is closed. */
void mcp_send(struct mcp_conn *c, json_t *msg, const json_t *rel);
void mcp_conn_ref(struct mcp_conn *c);
void mcp_conn_unref(struct mcp_conn *c);

struct run;

/* @run (borrowed until mcp_call_run_end) belongs to @call: from now on a
 * cancel stops it (run_cancel). Returns false when the call was already
 * cancelled: the caller frees the run without starting it. */
bool mcp_call_run_begin(struct mcp_call *call, struct run *run);
/* The run is over (its result taken): it no longer belongs to the call. */
void mcp_call_run_end(struct mcp_call *call);
/* A client_asker's progress for @ctx, a struct mcp_call: the progress of
 * one of its run's tool calls, sent to the host with the run's next
 * progress notification (engine.c). */
void mcp_call_tool_progress(void *ctx, const char *server, const char *tool, double progress,
			    double total, const char *message);
/* The ticker sent one of @call's progress notifications it had taken. */
void mcp_call_progress_sent(struct mcp_call *call);
/* The client cancelled the call. */
bool mcp_call_cancelled(struct mcp_call *call);
/* Wait until the work of @call's connection's answered calls is done
 * (tool_out.after): what the client was told has happened is on disk. */
void mcp_call_wait_after(struct mcp_call *call);

/* A client_asker's ask for @ctx, a struct mcp_call: the request goes to the
 * host on the call's session when the host declared what it needs, and its
 * answer comes back (ask.c). */
json_t *mcp_call_ask(void *ctx, const char *method, json_t *params, struct cancel *cancel,
		     int *code, struct err *err);
/* @msg (a response, borrowed) answers a request of ours: true when it was
 * one waiting. */
bool mcp_conn_answered(struct mcp_conn *c, json_t *msg);
/* Called with c->lock held, once closed is set: our requests stop waiting. */
void mcp_asks_wake_locked(struct mcp_conn *c);

#endif
