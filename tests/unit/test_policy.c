/* The policy's rules without a hub: parsing and its one-line errors,
 * patterns (servers with dots in their names, case, globs), the order of
 * the verdicts (deny, allow, readOnly, destructive, ask), MCP's annotation
 * defaults, which customer gets which rules, a server closed whole, the
 * tree's filter and key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../policy/policy_i.h"
#include "check.h"

static struct policy *parse(const char *text, struct err *e)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	struct policy *p;

	if (!j) {
		printf("bad test JSON: %s\n", je.text);
		exit(1);
	}
	err_clear(e);
	p = policy_new(j, "test.json", e);
	json_decref(j);
	return p;
}

static json_t *tool(const char *name, int ro, int destr)
{
	json_t *t = json_pack("{s:s,s:{}}", "name", name, "annotations");
	json_t *a = json_object_get(t, "annotations");

	if (ro >= 0)
		json_object_set_new(a, "readOnlyHint", json_boolean(ro));
	if (destr >= 0)
		json_object_set_new(a, "destructiveHint", json_boolean(destr));
	return t;
}

static enum policy_verdict decide(const struct policy *p, const char *customer, const char *server,
				  const char *name, int ro, int destr, char *why, size_t n)
{
	json_t *t = tool(name, ro, destr);
	enum policy_verdict v = policy_decide(policy_rules(p, customer), server, name, t, why, n);

	json_decref(t);
	return v;
}

static void test_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"[]", "\"policy\" must be an object"},
	    {"{\"acme\": 3}", "customer \"acme\" must be an object"},
	    {"{\"acme\": {\"allow\": \"github.*\"}}", "\"allow\" must be an array"},
	    {"{\"acme\": {\"deny\": [\"\"]}}", "\"deny\" holds an entry that is not a pattern"},
	    {"{\"acme\": {\"ask\": [\"a\\nb\"]}}", "\"ask\" holds an entry"},
	    {"{\"acme\": {\"destructive\": \"maybe\"}}", "\"destructive\" must be"},
	    {"{\"acme\": {\"readOnly\": 1}}", "\"readOnly\" must be true or false"},
	    {"{\"acme\": {\"askTimeout\": 0}}", "\"askTimeout\" must be seconds"},
	    {"{\"acme\": {\"callsPerMinute\": {\"x.*\": 0}}}", "\"callsPerMinute\" must map"},
	    {"{\"acme\": {\"maxRuns\": -1}}", "\"maxRuns\" must be a whole number"},
	    {"{\"acme\": {\"alow\": []}}", "\"alow\" is not a policy field"},
	};
	struct err e;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct policy *p = parse(cases[i].text, &e);

		CHECK(!p && e.status == EXIT_USAGE && strstr(e.text, cases[i].want) &&
			  strstr(e.text, "test.json") && !strchr(e.text, '\n'),
		      "%s: %s", cases[i].text, e.text);
		policy_free(p);
	}
	CHECK((policy_free(NULL), 1), "policy_free(NULL)");
}

static void test_patterns(void)
{
	CHECK(policy_pattern_match("github.*", "github", "delete_repo"), "server.*");
	CHECK(policy_pattern_match("github", "github", "x"), "a bare server name is all its tools");
	CHECK(!policy_pattern_match("git.*", "github", "x"), "no prefix match");
	CHECK(policy_pattern_match("github.delete_*", "github", "Delete_Repo"), "case folds");
	CHECK(!policy_pattern_match("github.delete_*", "github", "list_repos"), "tool glob");
	CHECK(policy_pattern_match("a.b.c", "a.b", "c"), "server a.b, tool c");
	CHECK(policy_pattern_match("a.b.c", "a", "b.c"), "server a, tool b.c");
	CHECK(!policy_pattern_match("a.b.c", "a.b", "b.c"), "no split fits");
	CHECK(policy_pattern_match("*", "any", "thing"), "* is everything");
	CHECK(policy_pattern_match("*.get_*", "x", "get_y"), "any server");
}

static void test_verdicts(void)
{
	struct err e;
	char why[512];
	struct policy *p =
	    parse("{\"default\": {\"deny\": [\"everything.get-env\"]},"
		  " \"acme\": {\"allow\": [\"memory.*\", \"everything.echo\"], \"deny\": "
		  "[\"memory.delete_relations\"],"
		  "           \"ask\": [\"memory.create_*\"], \"destructive\": \"ask\"},"
		  " \"beta\": {\"readOnly\": true},"
		  " \"gamma\": {\"destructive\": \"deny\"},"
		  " \"open\": {}}",
		  &e);

	CHECK(p, "parsed: %s", e.text);
	if (!p)
		return;
	/* deny wins over allow */
	CHECK(decide(p, "acme", "memory", "delete_relations", 0, 1, why, sizeof(why)) ==
		      POLICY_DENY &&
		  strstr(why, "deny \"memory.delete_relations\"") && strstr(why, "acme"),
	      "deny: %s", why);
	CHECK(decide(p, "acme", "everything", "get-sum", 1, 0, why, sizeof(why)) == POLICY_DENY &&
		  strstr(why, "no allow pattern"),
	      "not allowed: %s", why);
	CHECK(decide(p, "acme", "everything", "echo", 1, 0, why, sizeof(why)) == POLICY_ALLOW,
	      "allowed: %s", why);
	CHECK(decide(p, "acme", "memory", "create_entities", 0, 0, why, sizeof(why)) ==
		      POLICY_ASK &&
		  strstr(why, "ask \"memory.create_*\""),
	      "ask list: %s", why);
	CHECK(decide(p, "acme", "memory", "delete_entities", 0, 1, why, sizeof(why)) ==
		      POLICY_ASK &&
		  strstr(why, "destructive: ask"),
	      "destructive ask: %s", why);
	/* MCP's defaults: a tool that says nothing may destroy */
	CHECK(decide(p, "acme", "memory", "mystery", -1, -1, why, sizeof(why)) == POLICY_ASK,
	      "no annotations count as destructive: %s", why);
	CHECK(decide(p, "acme", "memory", "reader", 1, -1, why, sizeof(why)) == POLICY_ALLOW,
	      "readOnlyHint alone is not destructive: %s", why);
	CHECK(decide(p, "beta", "memory", "read_graph", 1, 0, why, sizeof(why)) == POLICY_ALLOW,
	      "readOnly allows read-only: %s", why);
	CHECK(decide(p, "beta", "memory", "create", 0, 0, why, sizeof(why)) == POLICY_DENY &&
		  strstr(why, "readOnly"),
	      "readOnly denies the rest: %s", why);
	CHECK(decide(p, "beta", "memory", "unmarked", -1, -1, why, sizeof(why)) == POLICY_DENY,
	      "readOnly denies the unmarked: %s", why);
	CHECK(decide(p, "gamma", "memory", "delete", 0, 1, why, sizeof(why)) == POLICY_DENY &&
		  strstr(why, "destructive: deny"),
	      "destructive deny: %s", why);
	CHECK(decide(p, "gamma", "memory", "add", 0, 0, why, sizeof(why)) == POLICY_ALLOW,
	      "destructiveHint false: %s", why);
	/* who gets which rules */
	CHECK(decide(p, "unlisted", "everything", "get-env", 1, 0, why, sizeof(why)) == POLICY_DENY,
	      "an unlisted customer gets default's: %s", why);
	CHECK(decide(p, NULL, "everything", "get-env", 1, 0, why, sizeof(why)) == POLICY_DENY,
	      "no customer is default");
	CHECK(decide(p, "open", "everything", "get-env", 1, 0, why, sizeof(why)) == POLICY_ALLOW,
	      "a listed customer's entry stands alone: %s", why);
	CHECK(!policy_restricts(policy_rules(p, "open")) &&
		  policy_restricts(policy_rules(p, "beta")),
	      "restricts");
	CHECK(!policy_rules(NULL, "acme") && !policy_restricts(NULL), "no policy, no rules");
	policy_free(p);
}

static void test_servers_and_tree(void)
{
	struct err e;
	struct policy *p = parse("{\"acme\": {\"allow\": [\"memory.read_*\", \"files\"],"
				 "           \"deny\": [\"secrets.*\", \"everything.get-env\"]},"
				 " \"beta\": {\"deny\": [\"memory\"]}}",
				 &e);
	json_t *tools = json_array(), *out;
	bool hide;

	CHECK(p, "parsed: %s", e.text);
	if (!p)
		return;
	json_array_append_new(tools, tool("read_graph", 1, 0));
	json_array_append_new(tools, tool("delete_entities", 0, 1));
	CHECK(policy_server_open(policy_rules(p, "acme"), "memory"), "named by an allow pattern");
	CHECK(policy_server_open(policy_rules(p, "acme"), "files"), "a bare name");
	CHECK(!policy_server_open(policy_rules(p, "acme"), "secrets"), "denied whole");
	CHECK(!policy_server_open(policy_rules(p, "acme"), "everything"), "named by no allow");
	CHECK(!policy_server_open(policy_rules(p, "beta"), "memory"), "a bare deny closes it");
	CHECK(policy_server_open(policy_rules(p, "beta"), "everything"), "the rest is open");
	CHECK(policy_server_open(NULL, "x"), "no rules: open");

	out = policy_tree_tools((void *)policy_rules(p, "acme"), "memory", tools, &hide);
	CHECK(out && !hide && json_array_size(out) == 1 &&
		  !strcmp(json_string_value(json_object_get(json_array_get(out, 0), "name")),
			  "read_graph"),
	      "only read_graph is shown");
	json_decref(out);
	out = policy_tree_tools((void *)policy_rules(p, "beta"), "memory", tools, &hide);
	CHECK(!out && hide, "a closed server is hidden");
	out = policy_tree_tools((void *)policy_rules(p, "acme"), "memory", NULL, &hide);
	CHECK(!out && !hide, "an unreachable open server stays");
	out = policy_filter_tools(NULL, "memory", tools);
	CHECK(out == tools, "no rules: the same array");
	json_decref(out);
	CHECK(!policy_rules_key(NULL)[0] && policy_rules_key(policy_rules(p, "acme"))[0] &&
		  strcmp(policy_rules_key(policy_rules(p, "acme")),
			 policy_rules_key(policy_rules(p, "beta"))),
	      "tree keys differ");
	json_decref(tools);
	policy_free(p);
}

int main(void)
{
	test_errors();
	test_patterns();
	test_verdicts();
	test_servers_and_tree();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
