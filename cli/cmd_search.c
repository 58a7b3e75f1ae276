/* mcpfs search QUERY: the tools that fit a task, best first. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../search/search.h"
#include "cli.h"

/* Catalogs younger than this come from the on-disk cache, as for a bridge. */
#define SEARCH_CATALOG_MAX_AGE_S 3600

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mcpfs search QUERY [--limit N] [--detail name|summary|full] [--regex]\n"
		"                    [--json]\n\n"
		"Find the tools that fit QUERY, words saying what you want done (\"post a\n"
		"message to the team channel\"), over every configured server's catalog\n"
		"(cached catalogs are used; a server without one is started). Best first;\n"
		"a query no tool fits prints nothing but a hint on stderr.\n\n"
		"  --limit N     at most N results (default %d, at most %d)\n"
		"  --detail L    name: server.tool; summary: plus the title and one line\n"
		"                (default); full: plus the description, the Python import,\n"
		"                signature and arguments\n"
		"  --regex       QUERY is a regular expression (pcre2, caseless) matched\n"
		"                against names, titles and descriptions\n"
		"  --json        a JSON array of {server, tool, name, score, ...}\n\n"
		"exit status: 0 ok (also when nothing fits), 2 a bad query or option\n",
		SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX);
}

static void print_text(json_t *results, enum search_detail detail)
{
	json_t *r, *a;
	size_t i, j;

	json_array_foreach(results, i, r)
	{
		const char *name = json_string_value(json_object_get(r, "name"));
		const char *title = json_string_value(json_object_get(r, "title"));
		const char *sum = json_string_value(json_object_get(r, "summary"));

		if (detail == SEARCH_DETAIL_NAME) {
			printf("%s\n", name);
			continue;
		}
		printf("%s  %s%s%s\n", name, title ? title : "", title && sum && *sum ? ": " : "",
		       sum ? sum : "");
		if (detail != SEARCH_DETAIL_FULL)
			continue;
		printf("    %s\n    %s\n", json_string_value(json_object_get(r, "import")) ?: "",
		       json_string_value(json_object_get(r, "signature")) ?: "");
		json_array_foreach(json_object_get(r, "args"), j, a)
		{
			printf("      %s: %s%s%s%s\n",
			       json_string_value(json_object_get(a, "name")),
			       json_string_value(json_object_get(a, "type")),
			       json_is_true(json_object_get(a, "required")) ? "" : " (optional)",
			       *json_string_value(json_object_get(a, "description")) ? " - " : "",
			       json_string_value(json_object_get(a, "description")));
		}
	}
}

int cmd_search(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"limit", required_argument, NULL, 'l'}, {"detail", required_argument, NULL, 'd'},
	    {"regex", no_argument, NULL, 'r'},	     {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},	     {NULL, 0, NULL, 0},
	};
	struct search_opts so = {.detail = SEARCH_DETAIL_SUMMARY};
	struct search_hub *sh = NULL;
	struct err e = {0};
	const char *query;
	bool as_json = false;
	json_t *res = NULL, *skipped, *v;
	double limit;
	struct hub *h;
	int c, rc = 0;
	size_t i;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (cli_positive("search", "--limit", optarg, SEARCH_LIMIT_MAX, &limit))
				return EXIT_USAGE;
			so.limit = (size_t)limit;
			break;
		case 'd':
			if (search_detail_parse(optarg, &so.detail)) {
				cli_error("search: --detail is name, summary or full, not '%s'",
					  optarg);
				return EXIT_USAGE;
			}
			break;
		case 'r':
			so.regex = true;
			break;
		case 'j':
			as_json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		cli_error(optind == argc ? "search: a QUERY is needed"
					 : "search: one QUERY (quote it when it has spaces)");
		return EXIT_USAGE;
	}
	query = argv[optind];
	if (search_query_check(query, &e))
		return cli_fail(&e);
	h = cli_hub_new(cli, SEARCH_CATALOG_MAX_AGE_S);
	if (!h)
		return EXIT_USAGE;
	sh = search_hub_new(h);
	if (sh)
		res = search_hub_query(sh, query, &so, &e);
	else
		err_set(&e, EXIT_FAILED, "search: out of memory");
	if (!res) {
		rc = cli_fail(&e);
		goto out;
	}
	skipped = json_object_get(res, "skipped");
	json_array_foreach(skipped, i, v) cli_error(
	    "search: server %s left out: its catalog could not be had", json_string_value(v));
	if (json_object_get(res, "hint"))
		cli_error("search: %s", json_string_value(json_object_get(res, "hint")));
	if (as_json) {
		/* Scores are rounded to hundredths: print them so. */
		if (json_dumpf(json_object_get(res, "results"), stdout,
			       JSON_INDENT(2) | JSON_REAL_PRECISION(6)) ||
		    putchar('\n') == EOF)
			rc = EXIT_FAILED;
	} else
		print_text(json_object_get(res, "results"), so.detail);
out:
	fflush(stdout);
	json_decref(res);
	search_hub_free(sh);
	hub_free(h);
	return rc;
}
