#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../workspaces/session.h"
#include "cli.h"

struct session_args {
	bool json;
	const char *set; /* checkpoint --set JSON */
	char **pos;
	int npos;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mcpfs session list CUSTOMER [--json]\n"
		   "       mcpfs session show CUSTOMER SESSION [--json]\n"
		   "       mcpfs session checkpoint CUSTOMER SESSION [--set JSON] [--json]\n"
		   "       mcpfs session end CUSTOMER SESSION\n"
		   "       mcpfs session export CUSTOMER SESSION\n\n"
		   "A session groups the runs of one customer ('mcpfs exec --customer C\n"
		   "--session S'); its log is <root>/workspaces/C/sessions/S.json with\n"
		   "session_id, customer_uid, started_at, ended_at, tasks[], state_files and\n"
		   "checkpoint {step, last_task, context, timestamp}. An ended session takes\n"
		   "no more tasks. 'export' writes JSON lines for a log system: one per task\n"
		   "(\"type\": \"task\") and one per tool call (\"type\": \"call\": arguments,\n"
		   "outcome, error, policy decision, duration and server start apart).\n");
}

static int parse(int argc, char **argv, struct session_args *a)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"set", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	memset(a, 0, sizeof(*a));
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			a->json = true;
			break;
		case 's':
			a->set = optarg;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return cli_bad_option("session", argv);
		}
	}
	a->pos = argv + optind;
	a->npos = argc - optind;
	return 0;
}

static int do_list(const struct ws *ws, struct session_args *a)
{
	struct err e = {0};
	json_t *arr, *s;
	size_t i;

	arr = session_list(ws, &e);
	if (!arr)
		return cli_fail(&e);
	if (a->json)
		return cli_print_json(arr);
	json_array_foreach(arr, i, s)
	{
		long long tasks = (long long)json_integer_value(json_object_get(s, "tasks"));

		printf("%s  started %s  %s  %lld task%s\n",
		       json_string_value(json_object_get(s, "session_id")),
		       json_string_value(json_object_get(s, "started_at")),
		       json_is_string(json_object_get(s, "ended_at")) ? "ended" : "open", tasks,
		       tasks == 1 ? "" : "s");
	}
	json_decref(arr);
	return 0;
}

#define SHOW_EXCERPT 100 /* bytes of output and errors in the text form */
#define SHOW_FAILURES 5	 /* failed calls listed per task */

/* The first line of @s, at most SHOW_EXCERPT bytes. */
static void excerpt(const char *label, const char *s)
{
	int n = 0;

	while (s && *s == '\n')
		s++;
	if (!s || !*s)
		return;
	while (s[n] && s[n] != '\n' && n < SHOW_EXCERPT)
		n++;
	printf("      %s %.*s%s\n", label, n, s, s[n] ? " ..." : "");
}

static void show_task_details(json_t *t)
{
	json_t *c;
	size_t i, shown = 0;
	char label[600];

	excerpt("output:", json_string_value(json_object_get(t, "output")));
	excerpt("stderr:", json_string_value(json_object_get(t, "stderr")));
	json_array_foreach(json_object_get(t, "tool_calls"), i, c)
	{
		if (json_is_true(json_object_get(c, "ok")) || shown++ >= SHOW_FAILURES)
			continue;
		snprintf(label, sizeof(label),
			 "failed: %s.%s:", json_string_value(json_object_get(c, "server")),
			 json_string_value(json_object_get(c, "tool")));
		excerpt(label, json_string_value(json_object_get(c, "error")) ?: "(no error text)");
	}
}

static void show_checkpoint(json_t *cp)
{
	if (!json_is_object(cp)) {
		printf("checkpoint: none\n");
		return;
	}
	printf("checkpoint: step %lld, last task %s, at %s\n",
	       (long long)json_integer_value(json_object_get(cp, "step")),
	       json_string_value(json_object_get(cp, "last_task")) ?: "-",
	       json_string_value(json_object_get(cp, "timestamp")) ?: "-");
}

static int do_show(const struct ws *ws, struct session_args *a)
{
	struct err e = {0};
	json_t *log, *t;
	size_t i;

	log = session_load(ws, a->pos[1], &e);
	if (!log)
		return cli_fail(&e);
	if (a->json)
		return cli_print_json(log);
	printf("session:   %s\ncustomer:  %s\nstarted:   %s\nended:     %s\ntasks:     %zu\n",
	       json_string_value(json_object_get(log, "session_id")),
	       json_string_value(json_object_get(log, "customer_uid")),
	       json_string_value(json_object_get(log, "started_at")),
	       json_is_string(json_object_get(log, "ended_at"))
		   ? json_string_value(json_object_get(log, "ended_at"))
		   : "-",
	       json_array_size(json_object_get(log, "tasks")));
	json_array_foreach(json_object_get(log, "tasks"), i, t)
	{
		json_t *desc = json_object_get(t, "description");
		json_int_t calls, failed;

		session_task_calls(t, &calls, &failed);
		printf("  %s  %.1f s  %s  %lld tool calls, %lld failed  %s\n",
		       json_string_value(json_object_get(t, "task_id")),
		       json_number_value(json_object_get(t, "duration_ms")) / 1000.0,
		       json_string_value(json_object_get(t, "end_reason")) ?: "exit",
		       (long long)calls, (long long)failed,
		       json_is_string(desc) ? json_string_value(desc) : "");
		show_task_details(t);
	}
	show_checkpoint(json_object_get(log, "checkpoint"));
	json_decref(log);
	return 0;
}

/* One JSON line on stdout: @obj (stolen) with the session's ids first. */
static int export_line(json_t *log, const char *type, json_t *obj)
{
	json_t *line = json_pack("{s:s,s:O,s:O}", "type", type, "customer",
				 json_object_get(log, "customer_uid"), "session_id",
				 json_object_get(log, "session_id"));
	char *text;

	if (!line || !obj || json_object_update(line, obj) < 0) {
		json_decref(line);
		json_decref(obj);
		return -1;
	}
	json_decref(obj);
	text = json_dumps(line, JSON_COMPACT);
	json_decref(line);
	if (!text)
		return -1;
	puts(text);
	free(text);
	return 0;
}

static int do_export(const struct ws *ws, struct session_args *a)
{
	struct err e = {0};
	json_t *log, *t, *task, *c, *call;
	size_t i, k;
	int rc = 0;

	log = session_load(ws, a->pos[1], &e);
	if (!log)
		return cli_fail(&e);
	json_array_foreach(json_object_get(log, "tasks"), i, t)
	{
		task = json_deep_copy(t);
		json_object_del(task, "tool_calls");
		json_object_del(task, "code");
		json_array_foreach(json_object_get(t, "tool_calls"), k, c)
		{
			call = json_deep_copy(c);
			if (call)
				json_object_set(call, "task_id", json_object_get(t, "task_id"));
			rc |= export_line(log, "call", call);
		}
		rc |= export_line(log, "task", task);
	}
	json_decref(log);
	if (rc) {
		cli_error("session export: out of memory");
		return EXIT_FAILED;
	}
	return 0;
}

static int do_checkpoint(const struct ws *ws, struct session_args *a)
{
	struct err e = {0};
	json_error_t je;
	json_t *cp;
	char *s;

	if (a->set) {
		cp = json_loads(a->set, 0, &je);
		if (!json_is_object(cp)) {
			json_decref(cp);
			cli_error("session checkpoint --set: not a JSON object: %s",
				  cp ? "other type" : je.text);
			return EXIT_USAGE;
		}
		if (session_checkpoint_set(ws, a->pos[1], cp, &e) < 0) {
			json_decref(cp);
			return cli_fail(&e);
		}
		json_decref(cp);
	}
	cp = session_checkpoint_get(ws, a->pos[1], &e);
	if (!cp)
		return cli_fail(&e);
	if (a->json)
		return cli_print_json(cp);
	if (json_is_null(cp)) {
		printf("no checkpoint\n");
		json_decref(cp);
		return 0;
	}
	s = json_dumps(json_object_get(cp, "context"), JSON_COMPACT | JSON_ENCODE_ANY);
	printf("step:      %lld\nlast task: %s\ncontext:   %s\ntimestamp: %s\n",
	       (long long)json_integer_value(json_object_get(cp, "step")),
	       json_is_string(json_object_get(cp, "last_task"))
		   ? json_string_value(json_object_get(cp, "last_task"))
		   : "-",
	       s ? s : "null", json_string_value(json_object_get(cp, "timestamp")));
	free(s);
	json_decref(cp);
	return 0;
}

static int do_end(const struct ws *ws, struct session_args *a)
{
	struct err e = {0};

	if (session_end(ws, a->pos[1], &e) < 0)
		return cli_fail(&e);
	if (a->json)
		return cli_print_json(json_pack("{s:s, s:b}", "session_id", a->pos[1], "ended", 1));
	return 0;
}

static const struct verb {
	const char *name;
	int nargs; /* positional arguments: CUSTOMER [SESSION] */
	int (*run)(const struct ws *ws, struct session_args *a);
} verbs[] = {
    {"list", 1, do_list}, {"show", 2, do_show},	    {"checkpoint", 2, do_checkpoint},
    {"end", 2, do_end},	  {"export", 2, do_export},
};

int cmd_session(struct cli *cli, int argc, char **argv)
{
	struct session_args a;
	struct err e = {0};
	const char *root;
	struct ws ws;
	int i;
	int rc;

	i = cli_verb("session", argc, argv, &verbs[0].name, sizeof(verbs) / sizeof(verbs[0]),
		     sizeof(verbs[0]), usage, &rc);
	if (i < 0)
		return rc;
	rc = parse(argc - 1, argv + 1, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.npos != verbs[i].nargs) {
		cli_error("session %s: expected %s, got %d arguments", verbs[i].name,
			  verbs[i].nargs == 1 ? "CUSTOMER" : "CUSTOMER SESSION", a.npos);
		return EXIT_USAGE;
	}
	if (a.set && strcmp(verbs[i].name, "checkpoint")) {
		cli_error("session %s: --set is for 'checkpoint'", verbs[i].name);
		return EXIT_USAGE;
	}
	root = cli_root(cli);
	if (!root)
		return EXIT_USAGE;
	if (ws_open(root, a.pos[0], false, &ws, &e) < 0)
		return cli_fail(&e);
	if (verbs[i].nargs == 2 && !id_valid(a.pos[1], "session", &e))
		return cli_fail(&e);
	return verbs[i].run(&ws, &a);
}
