/* The bridge's accounting. Jailed code picks the server and tool names it
 * calls, so both lists are bounded: past BRIDGE_MAX_TOOLS distinct tools the
 * rest are summed under "*" / "*", and past max_records calls only the sums
 * grow. */
#define _GNU_SOURCE
#include "bridge_account.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BRIDGE_MAX_RECORDS 100000
#define BRIDGE_MAX_TOOLS 1000

int bridge_account_init(struct bridge_account *a, size_t max_records)
{
	memset(a, 0, sizeof(*a));
	pthread_mutex_init(&a->lock, NULL);
	a->max_records = max_records ? max_records : BRIDGE_MAX_RECORDS;
	a->records = json_array();
	a->by_tool = json_array();
	a->by_name = json_object();
	return a->records && a->by_tool && a->by_name ? 0 : -ENOMEM;
}

void bridge_account_free(struct bridge_account *a)
{
	json_decref(a->records);
	json_decref(a->by_tool);
	json_decref(a->by_name);
	pthread_mutex_destroy(&a->lock);
}

/* The summary entry of @server/@tool, made on first use; past
 * BRIDGE_MAX_TOOLS, the one of "*" / "*". NULL when out of memory. Called
 * with a->lock held. */
static json_t *tool_entry(struct bridge_account *a, const char *server, const char *tool)
{
	json_t *tools = json_object_get(a->by_name, server), *t;

	t = json_object_get(tools, tool);
	if (t)
		return t;
	if (json_array_size(a->by_tool) >= BRIDGE_MAX_TOOLS &&
	    (strcmp(server, "*") || strcmp(tool, "*")))
		return tool_entry(a, "*", "*");
	if (!tools) {
		tools = json_object();
		if (json_object_set_new(a->by_name, server, tools) < 0)
			return NULL;
	}
	t = json_pack("{s:s,s:s,s:I,s:I,s:f}", "server", server, "tool", tool, "calls",
		      (json_int_t)0, "failed", (json_int_t)0, "duration_ms", 0.0);
	if (json_array_append_new(a->by_tool, t) < 0 || json_object_set(tools, tool, t) < 0)
		return NULL;
	return t;
}

/* Count one call in the per-tool summary. Called with a->lock held. */
static void sum_call(struct bridge_account *a, const char *server, const char *tool, bool ok,
		     double ms)
{
	json_t *t = tool_entry(a, server, tool), *v;

	if (!t)
		return;
	v = json_object_get(t, "calls");
	json_integer_set(v, json_integer_value(v) + 1);
	v = json_object_get(t, "failed");
	json_integer_set(v, json_integer_value(v) + !ok);
	v = json_object_get(t, "duration_ms");
	json_real_set(v, json_real_value(v) + ms);
}

/* @s cut to at most @max bytes, not inside a UTF-8 sequence. */
static json_t *cut(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return json_string(s);
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return json_sprintf("%.*s...(%zu bytes)", (int)max, s, n);
}

/* The audit's members on @rec: arguments, error, decision, start_ms; the
 * duration without the server's start. */
static void audit_add(json_t *rec, double ms, const struct bridge_call_audit *au)
{
	char *args;

	if (!au)
		return;
	args = au->args ? json_dumps(au->args, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	json_object_set_new(rec, "arguments", cut(args ? args : "{}", BRIDGE_AUDIT_ARGS_MAX));
	free(args);
	if (au->error)
		json_object_set_new(rec, "error", cut(au->error, BRIDGE_AUDIT_ERROR_MAX));
	if (au->decision && au->decision[0])
		json_object_set_new(rec, "decision", json_string(au->decision));
	json_object_set_new(rec, "start_ms", json_real(au->start_ms));
	json_object_set_new(rec, "duration_ms",
			    json_real(ms > au->start_ms ? ms - au->start_ms : 0.0));
}

void bridge_account_add(struct bridge_account *a, const char *server, const char *tool, bool ok,
			double ms, const struct bridge_call_audit *audit)
{
	json_t *rec = json_pack("{s:s,s:s,s:f,s:b}", "server", server, "tool", tool, "duration_ms",
				ms, "ok", ok);

	if (rec)
		audit_add(rec, ms, audit);

	pthread_mutex_lock(&a->lock);
	a->ncalls++;
	if (rec && json_array_size(a->records) < a->max_records)
		json_array_append(a->records, rec);
	sum_call(a, server, tool, ok, ms);
	pthread_mutex_unlock(&a->lock);
	json_decref(rec);
}

size_t bridge_account_ncalls(struct bridge_account *a)
{
	size_t n;

	pthread_mutex_lock(&a->lock);
	n = a->ncalls;
	pthread_mutex_unlock(&a->lock);
	return n;
}

/* A copy of @list, one of the arrays a->lock guards. */
static json_t *copy_locked(struct bridge_account *a, json_t *list)
{
	json_t *copy;

	pthread_mutex_lock(&a->lock);
	copy = json_deep_copy(list);
	pthread_mutex_unlock(&a->lock);
	return copy;
}

json_t *bridge_account_calls(struct bridge_account *a)
{
	return copy_locked(a, a->records);
}

json_t *bridge_account_by_tool(struct bridge_account *a)
{
	return copy_locked(a, a->by_tool);
}
