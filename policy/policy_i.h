/* The parsed rules, shared by rules.c (parsing, deciding) and hook.c (the
 * call hook). Internal to policy/. */
#ifndef MCPFS_POLICY_POLICY_I_H
#define MCPFS_POLICY_POLICY_I_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

struct pattern_list {
	char **v; /* owned */
	size_t n;
};

/* One "callsPerMinute" entry: calls matching @pattern share one window. */
struct policy_rate {
	char *pattern;	  /* owned */
	unsigned per_min; /* > 0 */
};

struct policy_rules {
	char *customer; /* owned: the entry's name ("default" for the fallback) */
	struct pattern_list allow, deny, ask;
	bool has_allow;			 /* "allow" given: only what it names */
	enum policy_verdict destructive; /* for tools that may destroy (MCP's defaults) */
	bool read_only;			 /* only tools with readOnlyHint */
	double ask_timeout_s;
	bool ask_session; /* a person may approve a tool for the rest of the session */
	struct policy_rate *rates;
	size_t nrates;
	unsigned max_runs; /* 0: no limit */
	char *key;	   /* owned: the entry as canonical JSON, "" when it restricts nothing */
};

struct policy {
	struct policy_rules *rules; /* owned */
	size_t n;
	const struct policy_rules *fallback; /* "default" in rules, or NULL */
	/* hook.c */
	struct hub *hub;  /* borrowed, once attached */
	char *rates_root; /* owned, once attached: the data root of the rate windows */
	bool terminal;
	pthread_mutex_t lock;	    /* approved, windows */
	struct policy_state *state; /* owned; made by policy_attach */
};

/* Does @pattern name @server's tool @tool? ('.' splits server from tool
 * wherever both sides match; no '.': every tool of the server.) */
bool policy_pattern_match(const char *pattern, const char *server, const char *tool);

/* rates.c: a call of @server's @tool takes a slot in every "callsPerMinute"
 * window of @r naming it, or in none: 0, or -1 with @err (the limit hit). */
int policy_rates_take(const char *root, const struct policy_rules *r, const char *server,
		      const char *tool, struct err *err);

struct policy_state;
/* hook.c: approvals. Accepts NULL. */
void policy_state_free(struct policy_state *s);

#endif
