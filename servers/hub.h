/* Every configured server: lazy start, restart with backoff, the catalog per
 * server with a generation number, and the on-disk catalog cache that lets a
 * one-shot command answer without starting servers. */
#ifndef MCPFS_SERVERS_HUB_H
#define MCPFS_SERVERS_HUB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

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
	/* Called (from a hub thread, never while a hub lock is held) after a
	 * server's catalog changed; the consumer re-reads it. */
	void (*on_catalog_changed)(void *ctx, const char *server, uint64_t generation);
	void *ctx;
	/* A customer instance unused this long is stopped; 0: 300 s. */
	double idle_timeout_s;
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
void hub_free(struct hub *h); /* shuts every server down; accepts NULL */

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

/* What mcpfs noted of the server's catalog (servers/catalog_check.h): a new
 * object {"instructions"?: string, "skipped": [{"name", "why"}]}, or NULL
 * before a catalog is known. */
json_t *hub_notes(struct hub *h, const char *server);

struct hub_call_opts {
	double timeout_s;      /* <= 0: the server's configured timeout */
	double deadline_s;     /* clock_now_s() by which it ends, start included; 0: none */
	const char *customer;  /* for SCOPE_CUSTOMER servers: whose instance; else NULL */
	const char *workspace; /* that customer's workspace folder (${WORKSPACE}) */
	struct client_call_hooks hooks; /* progress, the result as it arrives; zeros: none */
};

/* tools/call on the server by its original MCP tool name; starts it if
 * needed, restarts a dead one (with backoff). @args borrowed; @o may be NULL.
 * Same result contract as client_call_tool. */
json_t *hub_call(struct hub *h, const char *server, const char *tool, json_t *args,
		 const struct hub_call_opts *o, struct err *err);

#endif
