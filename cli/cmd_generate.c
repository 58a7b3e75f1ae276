/* mcpfs generate: connect to every server, write the static tree. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../codegen/codegen.h"
#include "../servers/hub_progress.h"
#include "../tree/snapshot.h"
#include "../tree/write.h"
#include "cli.h"

/* Servers start in parallel; one that is not up by then is reported. */
#define GENERATE_CONNECT_TIMEOUT_S 60.0

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mcpfs generate --out DIR [--lang py,ts] [--templates DIR] [--json]\n\n"
		"Connects to every configured server and writes the tree of importable code\n"
		"files to DIR (replacing a tree generated there before):\n"
		"  README.md, servers/<server>/README.md, servers/<server>/<tool>.py|.ts|.json\n\n"
		"options:\n"
		"  --out DIR        where the tree goes (created; an existing DIR must be a tree)\n"
		"  --lang LANGS     py, ts or py,ts (default py,ts)\n"
		"  --templates DIR  files here replace the embedded templates of the same name\n"
		"  --json           print the summary as JSON\n\n"
		"exit status: 0 written, 2 usage error, 3 a server could not be reached (the\n"
		"tree is written all the same: such a server's README.md says why, and\n"
		"stderr too)\n");
}

static int print_json(const char *out, const struct tree_snapshot *s,
		      const struct tree_write_stats *st)
{
	json_t *o, *bad = json_array();
	char *text;
	size_t i;

	for (i = 0; bad && i < s->nservers; i++)
		if (s->why[i])
			json_array_append_new(bad, json_pack("{s:s, s:s}", "server",
							     cg_root_server_name(s->root, i), "why",
							     s->why[i]));
	o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:o*}", "out", out, "servers",
		      (json_int_t)s->nservers, "tools", (json_int_t)s->ntools, "files",
		      (json_int_t)st->files, "bytes", (json_int_t)st->bytes, "unreachable", bad);
	text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!text) {
		cli_error("generate: out of memory");
		return EXIT_FAILED;
	}
	puts(text);
	free(text);
	return 0;
}

/* The tools mcpfs could not offer, one line each on stderr (the server's
 * README.md says so too). */
static void warn_skipped(struct hub *h, const char *server)
{
	json_t *notes = hub_notes(h, server), *s;
	size_t i;

	json_array_foreach(json_object_get(notes, "skipped"), i, s)
	    cli_error("generate: server '%s': skipped tool '%s': %s", server,
		      json_string_value(json_object_get(s, "name")),
		      json_string_value(json_object_get(s, "why")));
	json_decref(notes);
}

int cmd_generate(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"out", required_argument, NULL, 'o'},
	    {"lang", required_argument, NULL, 'l'},
	    {"templates", required_argument, NULL, 't'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *out = NULL, *tdir = NULL;
	struct cg_templates *loaded = NULL;
	const struct cg_templates *t;
	struct tree_write_stats st = {0};
	struct tree_snapshot *s = NULL;
	unsigned langs = CG_LANG_ALL;
	struct hub *h = NULL;
	struct hub_progress *pr;
	struct err e = {0};
	bool json = false;
	int c, rc = EXIT_USAGE;
	size_t i;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'l':
			langs = cg_langs_parse(optarg);
			if (!langs) {
				cli_error("generate: --lang '%s': want py, ts or py,ts", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			tdir = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option("generate", argv);
		}
	}
	if (optind < argc) {
		cli_error("generate: unexpected argument '%s'; see 'mcpfs generate --help'",
			  argv[optind]);
		return EXIT_USAGE;
	}
	if (!out) {
		cli_error("generate: --out DIR is required; see 'mcpfs generate --help'");
		return EXIT_USAGE;
	}
	t = cg_templates_embedded();
	if (tdir) {
		loaded = cg_templates_load(tdir, &e);
		if (!loaded)
			return cli_fail(&e);
		t = loaded;
	}
	h = cli_hub_new(cli, -1);
	if (!h)
		goto out_free;
	pr = hub_progress_start(h, STDERR_FILENO);
	hub_connect_all(h, GENERATE_CONNECT_TIMEOUT_S);
	hub_progress_stop(pr);
	s = tree_snapshot_new(h, langs, t, &e);
	if (!s) {
		rc = cli_fail(&e);
		goto out_free;
	}
	for (i = 0; i < s->nservers; i++)
		if (s->why[i])
			cli_error("generate: server %s unreachable: %s",
				  cg_root_server_name(s->root, i), s->why[i]);
	for (i = 0; i < s->nservers; i++)
		warn_skipped(h, cg_root_server_name(s->root, i));
	if (tree_write(s, out, 0, &st, &e) < 0) {
		rc = cli_fail(&e);
		goto out_free;
	}
	if (json) {
		rc = print_json(out, s, &st);
		if (rc)
			goto out_free;
	} else {
		printf("generated %s: %zu server%s, %zu tool%s, %zu file%s", out, s->nservers,
		       s->nservers == 1 ? "" : "s", s->ntools, s->ntools == 1 ? "" : "s", st.files,
		       st.files == 1 ? "" : "s");
		if (s->nunreachable)
			printf(" (%zu unreachable)", s->nunreachable);
		printf("\n");
	}
	rc = s->nunreachable ? EXIT_UNREACHABLE : 0;
out_free:
	tree_snapshot_free(s);
	hub_free(h);
	cg_templates_free(loaded);
	return rc;
}
