/* Who may call what: the config's "policy" section, per customer and a
 * default, decided for one tool (rules.c); the hub call hook that holds it
 * for every call and asks a person where the rules say so (hook.c). */
#ifndef MCPFS_POLICY_POLICY_H
#define MCPFS_POLICY_POLICY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"

struct hub;
struct policy;
struct policy_rules;

enum policy_verdict {
	POLICY_ALLOW,
	POLICY_ASK, /* allowed once a person approves */
	POLICY_DENY,
};

/* The rules of the config's "policy" section (@section borrowed, may be
 * NULL: everything allowed; @origin names the config in errors). NULL with
 * @err (EXIT_USAGE, one line naming the customer and field). */
struct policy *policy_new(const json_t *section, const char *origin, struct err *err);
/* Remove the hook first (hub_hook_remove or hub_free). Accepts NULL. */
void policy_free(struct policy *p);

/* @customer's rules (NULL customer: "default"): its own entry, else the
 * "default" entry; NULL when neither exists (everything allowed).
 * Borrowed from @p. */
const struct policy_rules *policy_rules(const struct policy *p, const char *customer);

/* True when @r may hide or hold back anything (not NULL and not empty). */
bool policy_restricts(const struct policy_rules *r);

/* The verdict on tool @tool of @server, whose MCP Tool object is @def
 * (borrowed; its annotations count), with one line why into @why. */
enum policy_verdict policy_decide(const struct policy_rules *r, const char *server,
				  const char *tool, const json_t *def, char *why, size_t n);

/* May @r reach @server's resources and prompts? Yes unless the server is
 * denied whole (a deny pattern `server` or `server.*`) or no allow pattern
 * names it. */
bool policy_server_open(const struct policy_rules *r, const char *server);

/* The tools of @server (@tools borrowed, an array of MCP Tool objects) that
 * @r does not deny: a new array (a new reference to @tools when @r hides
 * nothing), or NULL when out of memory. */
json_t *policy_filter_tools(const struct policy_rules *r, const char *server, json_t *tools);

/* A tree_filter.tools (tree/snapshot.h) over @ctx, a struct policy_rules:
 * a server closed to the customer is hidden, and its tools that the rules
 * deny. */
json_t *policy_tree_tools(void *ctx, const char *server, json_t *tools, bool *hide);

/* A text that differs whenever @r would show another tree (for the cache
 * key of a run's tree); "" when @r restricts nothing. Borrowed. */
const char *policy_rules_key(const struct policy_rules *r);

/* Seconds a person has to approve a call of @r; then it is declined. */
double policy_ask_timeout(const struct policy_rules *r);

/* Does @r hide @server's tool @tool (the server closed, the tool denied, or
 * not in @h's catalog)? For what is shown beside the tree: search results. */
bool policy_hides(const struct policy_rules *r, struct hub *h, const char *server,
		  const char *tool);

/* Drop from a search answer's "results" (@answer, changed in place; NULL
 * is fine) every {"server", "tool"} that policy_hides. */
void policy_filter_results(const struct policy_rules *r, struct hub *h, json_t *answer);

/* Take one of @r's maxRuns slots for a run of the customer whose folder is
 * @customer_dir, across processes: *@fd holds it until closed (-1 when @r
 * sets no limit). Returns 0, or -1 with @err when every slot is taken. */
int policy_run_slot(const struct policy_rules *r, const char *customer_dir, int *fd,
		    struct err *err);

/* Add the hook to @h (order HUB_ORDER_POLICY): every tools/call,
 * resources/read and prompts/get of a customer decided by its rules; a tool
 * the server does not list is refused (names are compared byte for byte);
 * `ask` goes to the call's asker (serve: the MCP host), else to the
 * terminal when policy_set_terminal allowed it, else is refused.
 * "callsPerMinute" windows live under the data root @root (policy/rates.c),
 * shared by every process on it. One hub per policy. Returns the handle
 * > 0, or -errno. */
int policy_attach(struct policy *p, struct hub *h, const char *root);

/* Let approvals be asked on /dev/tty when a call has no asker (`mcpfs exec`
 * on a terminal). */
void policy_set_terminal(struct policy *p, bool on);

#endif
