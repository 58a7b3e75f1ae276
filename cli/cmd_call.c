/* mcpfs call SERVER TOOL [ARGS_JSON|-]: one tools/call. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Arguments read from stdin at most. */
#define CALL_MAX_STDIN (16u << 20)
#define CALL_MAX_REPEAT 1000000

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: mcpfs call SERVER TOOL [ARGS_JSON|-] [--timeout S] [--customer ID] [--json]\n"
	    "                  [--repeat N] [--session ID] [--pii on|off]\n\n"
	    "Call one tool. ARGS_JSON is a JSON object of arguments ('-' reads it from\n"
	    "stdin; none means {}). Text output prints text content as is and\n"
	    "summarizes images, audio and resources; progress shows on a terminal.\n\n"
	    "  --json         print the MCP CallToolResult\n"
	    "  --timeout S    give up after S seconds (sends notifications/cancelled)\n"
	    "  --customer ID  whose instance of a per-customer server (default: default)\n"
	    "  --repeat N     make the call N times in a row on one connection, print the\n"
	    "                 last result and the rate on stderr (a benchmark)\n"
	    "  --session ID   the session whose PII tokens the call uses and adds to\n"
	    "  --pii on|off   PII tokens for this call, over the config's \"pii\" section\n\n"
	    "exit status: 0 ok, 1 the tool reported an error, 2 bad arguments,\n"
	    "3 the server could not be reached or timed out\n");
}

static void on_progress(void *ctx, double progress, double total, const char *message)
{
	const char *label = ctx;

	if (total > 0)
		fprintf(stderr, "\r%s: %g/%g %s\033[K", label, progress, total,
			message ? message : "");
	else
		fprintf(stderr, "\r%s: %g %s\033[K", label, progress, message ? message : "");
	fflush(stderr);
}

static json_t *read_args(const char *text, struct err *e)
{
	json_error_t je;
	json_t *args;
	char *in = NULL;
	size_t n = 0, cap = 0;

	if (!text)
		return json_object();
	if (!strcmp(text, "-")) {
		for (;;) {
			char *p;
			size_t r;

			if (n + 4096 > cap) {
				cap = cap ? cap * 2 : 8192;
				if (cap > CALL_MAX_STDIN) {
					free(in);
					err_set(e, EXIT_USAGE,
						"call: ARGS_JSON on stdin is larger "
						"than %u bytes",
						CALL_MAX_STDIN);
					return NULL;
				}
				p = realloc(in, cap);
				if (!p) {
					free(in);
					err_set(e, EXIT_USAGE, "call: out of memory");
					return NULL;
				}
				in = p;
			}
			r = fread(in + n, 1, cap - n - 1, stdin);
			n += r;
			if (!r)
				break;
		}
		args = json_loadb(in ? in : "", n, 0, &je);
		free(in);
	} else {
		args = json_loads(text, 0, &je);
	}
	if (!args) {
		err_set(e, EXIT_USAGE, "call: ARGS_JSON is not valid JSON (%d:%d: %s)", je.line,
			je.column, je.text);
		return NULL;
	}
	if (!json_is_object(args)) {
		json_decref(args);
		err_set(e, EXIT_USAGE, "call: ARGS_JSON must be a JSON object");
		return NULL;
	}
	return args;
}

/* Bytes a base64 string decodes to. */
static size_t b64_bytes(const json_t *s)
{
	size_t n = json_string_length(s);
	const char *p = json_string_value(s);

	if (!p || n < 4)
		return 0;
	return n / 4 * 3 - (p[n - 1] == '=') - (p[n - 2] == '=');
}

static void print_text(FILE *f, const char *t)
{
	size_t n = strlen(t);

	fputs(t, f);
	if (!n || t[n - 1] != '\n')
		fputc('\n', f);
}

static void print_content(FILE *f, const json_t *item)
{
	const char *type = json_string_value(json_object_get(item, "type"));
	const char *mime = json_string_value(json_object_get(item, "mimeType"));
	const json_t *res = json_object_get(item, "resource");

	if (!type)
		type = "?";
	if (!strcmp(type, "text")) {
		print_text(f, json_string_value(json_object_get(item, "text")) ?: "");
	} else if (!strcmp(type, "image") || !strcmp(type, "audio")) {
		fprintf(f, "[%s: %s, %zu bytes]\n", type, mime ? mime : "?",
			b64_bytes(json_object_get(item, "data")));
	} else if (!strcmp(type, "resource_link")) {
		fprintf(f, "[resource link: %s%s%s]\n",
			json_string_value(json_object_get(item, "uri")) ?: "?",
			json_object_get(item, "name") ? " " : "",
			json_string_value(json_object_get(item, "name")) ?: "");
	} else if (!strcmp(type, "resource") && json_is_string(json_object_get(res, "text"))) {
		fprintf(f, "[resource: %s]\n",
			json_string_value(json_object_get(res, "uri")) ?: "?");
		print_text(f, json_string_value(json_object_get(res, "text")));
	} else if (!strcmp(type, "resource")) {
		fprintf(f, "[resource: %s, %s, %zu bytes]\n",
			json_string_value(json_object_get(res, "uri")) ?: "?",
			json_string_value(json_object_get(res, "mimeType")) ?: "?",
			b64_bytes(json_object_get(res, "blob")));
	} else {
		fprintf(f, "[%s content]\n", type);
	}
}

static void print_result(const json_t *result)
{
	const json_t *content = json_object_get(result, "content");
	const json_t *structured = json_object_get(result, "structuredContent");
	json_t *item;
	char *text;
	size_t i;

	json_array_foreach(content, i, item) print_content(stdout, item);
	if (!json_array_size(content) && structured) {
		text = json_dumps(structured, JSON_INDENT(2) | JSON_ENCODE_ANY);
		if (text)
			puts(text);
		free(text);
	}
}

/* The first text content of a failed result, for the one-line error. */
static const char *error_text(const json_t *result)
{
	const json_t *content = json_object_get(result, "content");
	json_t *item;
	size_t i;

	json_array_foreach(content, i, item) if (
	    json_is_string(json_object_get(
		item, "text"))) return json_string_value(json_object_get(item, "text"));
	return "the tool reported an error";
}

/* One call, through a running daemon (@fd >= 0, its servers warm) or the
 * hub of this process. */
static json_t *call_one(struct hub *h, int fd, const char *server, const char *tool, json_t *args,
			const struct hub_call_opts *o, struct err *e)
{
	json_t *p;

	if (fd < 0)
		return hub_call(h, server, tool, args, o, e);
	p = json_pack("{s:s,s:s,s:O,s:f,s:f}", "server", server, "tool", tool, "arguments", args,
		      "timeout_s", o->timeout_s, "start_timeout_s", o->start_timeout_s);
	if (p && o->customer)
		json_object_set_new(p, "customer", json_string(o->customer));
	return cli_daemon_request(fd, "call", p, e);
}

int cmd_call(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},		{"timeout", required_argument, NULL, 't'},
	    {"customer", required_argument, NULL, 'C'}, {"repeat", required_argument, NULL, 'n'},
	    {"session", required_argument, NULL, 's'},	{"pii", required_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},		{NULL, 0, NULL, 0},
	};
	struct hub_call_opts o = {.origin = "call"};
	char label[300], *end;
	json_t *args, *result;
	const char *server, *tool;
	struct err e = {0};
	bool as_json = false;
	struct timespec t0, t1;
	long repeat = 1, i;
	struct hub *h;
	int c, rc, fd;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = true;
			break;
		case 't':
			if (cli_positive("call", "--timeout", optarg, 86400, &o.timeout_s))
				return EXIT_USAGE;
			break;
		case 'C':
			o.customer = optarg;
			break;
		case 's':
			o.session = optarg;
			break;
		case 'p':
			if (cli_pii_mode(cli, "call", optarg) < 0)
				return EXIT_USAGE;
			break;
		case 'n':
			repeat = strtol(optarg, &end, 10);
			if (*end || repeat < 1 || repeat > CALL_MAX_REPEAT) {
				cli_error("call: --repeat wants a count from 1 to %d",
					  CALL_MAX_REPEAT);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option("call", argv);
		}
	}
	if (argc - optind < 2 || argc - optind > 3) {
		return cli_bad_args("call");
	}
	server = argv[optind];
	tool = argv[optind + 1];
	args = read_args(argc - optind == 3 ? argv[optind + 2] : NULL, &e);
	if (!args)
		return cli_fail(&e);
	if (!cli_config(cli)) {
		json_decref(args);
		return EXIT_USAGE;
	}
	fd = cli_daemon_connect(cli);
	h = fd < 0 ? cli_hub_new(cli, 0) : NULL;
	if (fd < 0 && !h) {
		json_decref(args);
		return EXIT_USAGE;
	}
	snprintf(label, sizeof(label), "%s/%s", server, tool);
	if (isatty(STDERR_FILENO)) {
		o.hooks.progress = on_progress;
		o.hooks.progress_ctx = label;
	}
	/* The first call starts the server; --repeat times the ones after it.
	 * --timeout bounds the server's start (initialize) too. */
	o.start_timeout_s = o.timeout_s;
	result = call_one(h, fd, server, tool, args, &o, &e);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 1; result && i < repeat; i++) {
		json_decref(result);
		result = call_one(h, fd, server, tool, args, &o, &e);
	}
	if (fd >= 0)
		close(fd);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (result && repeat > 1) {
		double s =
		    (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

		fprintf(stderr, "%ld calls in %.3f s: %.0f calls/s\n", repeat - 1, s,
			(double)(repeat - 1) / s);
	}
	if (o.hooks.progress)
		fputs("\r\033[K", stderr);
	json_decref(args);
	if (!result) {
		hub_free(h);
		return cli_fail(&e);
	}
	rc = json_is_true(json_object_get(result, "isError")) ? EXIT_FAILED : 0;
	if (as_json) {
		cli_print_json(json_incref(result));
	} else if (!rc) {
		print_result(result);
	}
	if (rc)
		cli_error("%s: %s", label, error_text(result));
	json_decref(result);
	/* Servers may take seconds to stop: show the answer first. */
	fflush(stdout);
	hub_free(h);
	return rc;
}
