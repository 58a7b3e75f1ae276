/* Every configured server: lazy start, restart with backoff, the catalog per
 * server with a generation number, and the on-disk catalog cache that lets a
 * one-shot command answer without starting servers. */
#ifndef MCPFS_SERVERS_HUB_H
#define MCPFS_SERVERS_HUB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/catalog_text.h"
#include "../common/err.h"
#include "client.h"
#include "config.h"

struct hub;

enum hub_state {
	HUB_IDLE, /* not started yet */
	HUB_STARTING,
	HUB_READY,
	HUB_FAILED, /* last start or connection failed; why in hub_server_info.why */
};

struct hub_opts {
	const char *state_dir;	/* <root>: logs in <root>/logs, catalog cache in <root>/cache */
	double cache_max_age_s; /* a cached catalog younger than this is used without
				   starting the server; <0: never use the cache */
	/* A customer instance unused this long is stopped; 0: 300 s. */
	double idle_timeout_s;
	/* How stdio servers start (a sandbox, servers/launcher.h); NULL:
	 * plainly. Borrowed: it must outlive the hub. */
	const struct server_launcher *launcher;
};

struct hub_server_info {
	const char *name; /* borrowed from the config */
	enum hub_state state;
	uint64_t generation; /* bumps on every catalog change; 0 before the first */
	size_t ntools;
	char why[512]; /* for HUB_FAILED: one line, plus the log's last lines in log_tail */
	char log_tail[2048];
	const char *log_path; /* borrowed */
};

/* @cfg is borrowed and must outlive the hub. */
struct hub *hub_new(const struct config *cfg, const struct hub_opts *opts);
/* Shuts every server down and drops the hooks and listeners left; accepts NULL. */
void hub_free(struct hub *h);

size_t hub_count(const struct hub *h);
const char *hub_name(const struct hub *h, size_t i); /* borrowed, config order */
void hub_info(struct hub *h, const char *server, struct hub_server_info *out);

/* Start every server in parallel (threads) and wait at most @timeout_s for
 * all; a slow one does not hold back the others. */
void hub_connect_all(struct hub *h, double timeout_s);

/* The server's tools (a new reference to the array of Tool objects) and its
 * generation. Starts the server if needed, unless a fresh cached catalog
 * exists. NULL with @err when it cannot be had. */
json_t *hub_tools(struct hub *h, const char *server, uint64_t *generation, struct err *err);
/* The same catalog in its compact form (common/catalog_text.h), not rebuilt:
 * a new reference, for a holder that keeps it (a mount's snapshot). */
struct catalog_text *hub_catalog(struct hub *h, const char *server, uint64_t *generation,
				 struct err *err);
/* One tool's Tool object as hub_tools would list it (new), found by its
 * exact name: rebuilds that tool alone, for what runs on every call. NULL with
 * @err when the catalog cannot be had, NULL alone when it lists no such tool. */
json_t *hub_tool(struct hub *h, const char *server, const char *tool, struct err *err);

/* What mcpfs noted of the server's catalog (servers/catalog_check.h): a new
 * object {"instructions"?: string, "skipped": [{"name", "why"}]}, or NULL
 * before a catalog is known. */
json_t *hub_notes(struct hub *h, const char *server);

/* What a call reports beside its result, for the caller's records. */
struct hub_call_note {
	double start_ms;		  /* waited for the server to start or free a connection */
	char decision[ERR_TEXT_MAX + 16]; /* the policy's, one line; "" when none was made */
};

struct hub_call_opts {
	double timeout_s;	/* <= 0: the server's configured timeout */
	double deadline_s;	/* clock_now_s() by which it ends, start included; 0: none */
	double start_timeout_s; /* bounds starting the server (initialize); 0: its config's */
	const char *customer;	/* for SCOPE_CUSTOMER servers: whose instance; else NULL */
	const char *workspace;	/* that customer's workspace folder (${WORKSPACE}) */
	const char *session;	/* the session the call belongs to; NULL: none */
	const char *origin;	/* who calls: "call", "bridge", "serve"; NULL: "call" */
	struct client_call_hooks hooks; /* progress, the result as it arrives; zeros: none */

	struct hub_call_note *note; /* filled in when not NULL */
};

/* tools/call on the server by its original MCP tool name; starts it if
 * needed, restarts a dead one (with backoff). @args borrowed; @o may be NULL.
 * Same result contract as client_call_tool. */
json_t *hub_call(struct hub *h, const char *server, const char *tool, json_t *args,
		 const struct hub_call_opts *o, struct err *err);

/* resources/read of @uri on @server, as hub_call makes a tools/call (the
 * hooks see method "resources/read", the URI as tool, {"uri"} as
 * arguments): the new ReadResourceResult, or NULL with @err, EXIT_USAGE
 * when the server declared no resources. */
json_t *hub_read_resource(struct hub *h, const char *server, const char *uri,
			  const struct hub_call_opts *o, struct err *err);

/* prompts/get of prompt @name with @args (borrowed, an object; NULL: {}),
 * likewise (method "prompts/get"): the new GetPromptResult, or NULL with
 * @err, EXIT_USAGE when the server declared no prompts. */
json_t *hub_get_prompt(struct hub *h, const char *server, const char *name, json_t *args,
		       const struct hub_call_opts *o, struct err *err);

/* What a hook sees of one call. */
struct hub_call {
	const char *server, *tool;	  /* the configured server name, the MCP tool name (for
					     resources/read the URI, for prompts/get the prompt) */
	const char *method;		  /* "tools/call", "resources/read" or "prompts/get" */
	const struct hub_call_opts *opts; /* never NULL: customer, session, origin */
	double started_ms;		  /* clock_now_ms() when the call began */
};

/* Where a hook sits in the chain: lower is outer. */
enum {
	HUB_ORDER_ACCOUNTING = 0,
	HUB_ORDER_POLICY = 100,
	HUB_ORDER_PII = 200,
};

/* A call hook. Every tools/call, resources/read and prompts/get passes the
 * chain, whoever makes it (`mcpfs call`, the bridge, `serve`): befores in ascending order, then the
 * server, then the afters in descending order; a hook's after runs only if its before ran, and then
 * always, on success, failure or refusal. before: may replace *args (a new reference; the hub
 * releases the old one; never NULL) or refuse the call: -1 with @err set, whose text the caller
 * sees; the server is then never called. Else 0.
 * after: *result is owned and may be replaced, or released and set to NULL
 * with @err set to fail the call; it is NULL with @err already set when the
 * call failed. Returns 0 (-1 is the same as *result NULL with @err).
 * An after may run on a server connection's reader thread (the result's fast
 * path): it must not block or call the hub. Either function may be NULL. */
struct hub_hook {
	int order;
	int (*before)(void *ctx, const struct hub_call *call, json_t **args, struct err *err);
	int (*after)(void *ctx, const struct hub_call *call, json_t **result, struct err *err);
	void *ctx;
};

/* Returns a handle > 0, or -errno (-ENOSPC past HUB_MAX_HOOKS). */
int hub_hook_add(struct hub *h, const struct hub_hook *hook);
/* Waits until no call uses the hook; then its ctx may go. */
void hub_hook_remove(struct hub *h, int handle);

/* A catalog listener: called from a hub thread, with no hub lock held,
 * after a server's catalog changed; the listener re-reads it (hub_tools).
 * It must not add or remove listeners. */
struct hub_listener {
	void (*catalog_changed)(void *ctx, const char *server, uint64_t generation);
	void *ctx;
};

/* Returns a handle > 0, or -errno. */
int hub_listen(struct hub *h, const struct hub_listener *l);
/* Waits for a notification in progress; then its ctx may go. */
void hub_unlisten(struct hub *h, int handle);

#endif
