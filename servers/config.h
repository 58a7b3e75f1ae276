/* The MCP config users already have: {"mcpServers": {...}} or
 * {"servers": {... "type": "stdio"|"http"|"sse"}}, with ${VAR} expansion. */
#ifndef MCPFS_SERVERS_CONFIG_H
#define MCPFS_SERVERS_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"

enum server_transport {
	TRANSPORT_STDIO,
	TRANSPORT_HTTP, /* Streamable HTTP, falling back to legacy SSE as the spec says */
	TRANSPORT_SSE,	/* legacy HTTP+SSE only */
};

enum server_scope {
	SCOPE_SHARED,	/* one instance for everybody */
	SCOPE_CUSTOMER, /* one per customer: ${CUSTOMER}, ${WORKSPACE}, ${STATE} per instance */
};

enum server_network {
	SERVER_NET_DEFAULT, /* none for customer-scoped servers, the host's for shared ones */
	SERVER_NET_NONE,    /* a network namespace with only a loopback */
	SERVER_NET_HOST,    /* the host's network */
};

/* "sandbox" of a stdio server: false, or {"network", "ro", "rw", "memory",
 * "pids"} (README: "Server sandboxes"). */
struct server_sandbox_conf {
	bool off; /* "sandbox": false */
	enum server_network network;
	char **ro, **rw; /* host paths bound read-only / read-write, at the same path */
	size_t nro, nrw;
	size_t memory_mb, pids; /* 0: the defaults */
};

struct server_launcher; /* servers/launcher.h */

struct server_config {
	char *name; /* the config key, as written */
	enum server_transport transport;
	enum server_scope scope;
	/* stdio */
	char *command;
	char **args;
	size_t nargs;
	char **env;
	size_t nenv; /* "KEY=VALUE", added to a minimal inherited environment */
	char *cwd;   /* NULL: inherit */
	/* http, sse */
	char *url;
	char **headers;
	size_t nheaders; /* "Name: value" */
	char **oauth;
	size_t noauth;	  /* the "oauth" object as "key=value" (servers/oauth_client.h) */
	char *token_file; /* set by the hub, not the config: the instance's OAuth
			     store (servers/oauth_store.h); NULL: no OAuth */
	char *customer;	  /* set by the hub: the instance's customer; NULL: shared */
	char *workspace_dir, *state_dir; /* set by the hub: that customer's folders */
	struct server_sandbox_conf sandbox;
	/* set by the hub: how its process starts; NULL: plainly */
	const struct server_launcher *launcher;
	/* both */
	char **roots;
	size_t nroots;		  /* file:// URIs answered to roots/list */
	double timeout_s;	  /* per call; 0 means the default (60 s) */
	double connect_timeout_s; /* start + initialize; 0 means the default (30 s) */
	const char *log_level;	  /* "logLevel": sent as logging/setLevel; NULL: none.
				     One of config_log_levels, never allocated */
	size_t max_tools;	  /* catalog caps; 0 means the defaults below */
	size_t max_catalog_bytes;
	/* Set when the server cannot be used as configured (an unset ${VAR}):
	 * one line naming every missing variable. The other servers work. */
	char *disabled;
};

/* The levels of logging/setLevel (RFC 5424), NULL-terminated. */
extern const char *const config_log_levels[];

#define CONFIG_DEFAULT_MAX_TOOLS 20000
#define CONFIG_DEFAULT_MAX_CATALOG_BYTES (64u << 20)

struct config {
	struct server_config *servers; /* sorted by name */
	size_t nservers;
	char *origin;	/* the file it came from, or "(embedded default)" */
	json_t *pii;	/* the "pii" section as written (owned), or NULL; see pii/pii.h */
	json_t *policy; /* the "policy" section as written (owned), or NULL; policy/policy.h */
	char *customer; /* "customer": serve's customer without --customer (a valid id), or NULL */
};

/* Find and load the config: @explicit_path, then $MCPFS_CONFIG, ./mcpfs.json,
 * ~/.config/mcpfs/config.json, then the embedded default (servers/default.json).
 * Other hosts' files are read only when named: by @explicit_path, or in the
 * "imports" list of mcpfs's own config (names of config_sources(), or paths
 * relative to that file). A server whose ${VAR}s are unset is kept, with
 * server_config.disabled saying why.
 * Returns 0, or -1 with @err set to one line naming file, server and field
 * (status EXIT_USAGE). *out is set only on success. */
int config_load(struct config *out, const char *explicit_path, struct err *err);

/* Parse config text; @origin names it in errors. Same contract as config_load. */
int config_parse(struct config *out, const char *text, const char *origin, struct err *err);

void config_free(struct config *cfg);

/* A config file an MCP host keeps, as `mcpfs config` lists them and
 * "imports" names them. */
struct config_source {
	const char *name; /* "claude-desktop", "vscode", ... */
	const char *host; /* who writes it, for people */
	char path[4096];  /* where it is looked for on this machine */
	bool found;
};

/* The known sources, mcpfs's own first, each with the first of its places that
 * exists (else the first place). Returns how many were written to @out
 * (at most @max). */
size_t config_sources(struct config_source *out, size_t max);
/* The path of the source named @name if found. Returns 0 or -ENOENT. */
int config_source_path(const char *name, char *out, size_t n);

/* The server named @name, or NULL. Borrowed. */
const struct server_config *config_find(const struct config *cfg, const char *name);

/* A new copy of @sc with ${CUSTOMER} and ${WORKSPACE} expanded in command,
 * args, env and cwd; for customer-scoped servers. Free with server_config_free. */
struct server_config *server_config_instantiate(const struct server_config *sc,
						const char *customer, const char *workspace);
/* As server_config_instantiate, with ${STATE} expanded to @state too (the
 * two-argument form derives it as <dir of @workspace>/state, the layout of
 * workspaces/workspace.h). NULL arguments leave their variable as written. */
struct server_config *server_config_instantiate_state(const struct server_config *sc,
						      const char *customer, const char *workspace,
						      const char *state);
/* A new deep copy of @sc. Free with server_config_free. */
struct server_config *server_config_dup(const struct server_config *sc);
void server_config_free(struct server_config *sc);

/* The embedded default config text (servers/default.json), with
 * ${MCPFS_SERVERS_DIR} pointing at the installed npm servers. Borrowed. */
const char *config_default_text(void);

#endif
