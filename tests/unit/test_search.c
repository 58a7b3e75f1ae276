/* The search index without servers: terms, stemming, the stopword table's
 * order, ranking and its determinism, replacing and removing a server,
 * detail levels, the floor, the regex limits, bad queries. */
#include <stdlib.h>
#include <string.h>

#include "../../search/search.h"
#include "../../search/synonyms_i.h"
#include "../../search/text_i.h"
#include "check.h"

struct terms {
	char out[512];
};

static int collect(void *ctx, const char *term, size_t len, unsigned flags)
{
	struct terms *t = ctx;
	size_t n = strlen(t->out);

	(void)len;
	(void)flags;
	snprintf(t->out + n, sizeof(t->out) - n, "%s%s", n ? " " : "", term);
	return 0;
}

/* Each term with its flags: "4242:d alice:c berlin:ac". */
static int collect_flags(void *ctx, const char *term, size_t len, unsigned flags)
{
	struct terms *t = ctx;
	size_t n = strlen(t->out);

	(void)len;
	snprintf(t->out + n, sizeof(t->out) - n, "%s%s%s%s%s%s", n ? " " : "", term,
		 flags ? ":" : "", flags & SEARCH_TERM_ARG ? "a" : "",
		 flags & SEARCH_TERM_CAP ? "c" : "", flags & SEARCH_TERM_DIGIT ? "d" : "");
	return 0;
}

static void on_syn(void *ctx, const char *syn)
{
	collect(ctx, syn, strlen(syn), 0);
}

static const char *terms(const char *s, bool stem, bool stop)
{
	static struct terms t;

	t.out[0] = '\0';
	search_terms(s, strlen(s), (stem ? SEARCH_TEXT_STEM : 0) | (stop ? SEARCH_TEXT_STOP : 0),
		     collect, &t);
	return t.out;
}

static void test_terms(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"getFileInfo", "get file info"},
	    {"HTMLParser", "html parser"},
	    {"list_directory-with_sizes", "list directory with sizes"},
	    {"s3Bucket base64", "s3 bucket base64"},
	    {"  ", ""},
	    {"Zürich café", "zürich café"},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(!strcmp(terms(cases[i].in, false, false), cases[i].want), "%s -> '%s'",
		      cases[i].in, terms(cases[i].in, false, false));
	CHECK(!strcmp(terms("the tools to get a file", false, true), "file"), "stopwords: '%s'",
	      terms("the tools to get a file", false, true));
	CHECK(!strcmp(terms("creating created creates create queries directories stopped deletion",
			    true, false),
		      "creat creat creat creat queri directori stop delet"),
	      "stems: '%s'",
	      terms("creating created creates create queries directories stopped deletion", true,
		    false));
	CHECK(!strcmp(terms("pass address status", true, false), "pass address status"),
	      "no stem: '%s'", terms("pass address status", true, false));
}

static void test_phrases_and_flags(void)
{
	static const struct {
		const char *in, *want;
	} joined[] = {
	    {"log in to the site", "login site"},
	    {"who am I Logged In as", "whoami login"},
	    {"add up two numbers", "sum two numbers"},	   /* the table's first pair */
	    {"comment on work items", "comment workitem"}, /* and its last */
	    {"turn off the lights", "disable lights"},
	    {"log the output", "log output"},
	    {"set", "set"},
	};
	static const char flagged[] =
	    "Kill pid 4242 for Alice, EC2 base64; notes about the Berlin office";
	static struct terms t;
	size_t i;

	for (i = 0; i < sizeof(joined) / sizeof(joined[0]); i++) {
		t.out[0] = '\0';
		search_terms(joined[i].in, strlen(joined[i].in),
			     SEARCH_TEXT_STOP | SEARCH_TEXT_PHRASES, collect, &t);
		CHECK(!strcmp(t.out, joined[i].want), "%s -> '%s'", joined[i].in, t.out);
	}
	CHECK(!strcmp(terms("log in to the site", false, true), "log site"), "no phrases: '%s'",
	      terms("log in to the site", false, true));
	t.out[0] = '\0';
	search_terms(flagged, strlen(flagged), SEARCH_TEXT_STOP, collect_flags, &t);
	CHECK(!strcmp(t.out, "kill pid 4242:d alice:c ec2 base64 notes berlin:ac office:a"),
	      "flags: '%s'", t.out);
}

static void test_synonyms(void)
{
	struct search_synonyms *s = search_synonyms_new();
	struct terms t = {{0}};

	/* The table holds stems, as the index does. */
	CHECK(s && search_synonyms_act(s, "delet") && search_synonyms_act(s, "appli") &&
		  !search_synonyms_act(s, "file") && !search_synonyms_act(s, "zzz"),
	      "acts and things");
	search_synonyms_each(s, "folder", on_syn, &t);
	CHECK(!strcmp(t.out, "directori dir"), "folder: '%s'", t.out);
	search_synonyms_free(s);
}

static void test_stopwords_sorted(void)
{
	/* bsearch needs the table sorted: every entry must find itself. */
	static const char *const words[] = {"a", "about", "the", "your", "with", "tools", "use"};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		CHECK(search_stopword(words[i]), "stopword %s", words[i]);
	CHECK(!search_stopword("file") && !search_stopword("list"), "content words");
}

static json_t *tool(const char *name, const char *desc)
{
	return json_pack("{s:s,s:s,s:{s:s,s:{s:{s:s,s:s}}}}", "name", name, "description", desc,
			 "inputSchema", "type", "object", "properties", "path", "type", "string",
			 "description", "Where the file is.");
}

static const char *first(json_t *res)
{
	return json_string_value(
	    json_object_get(json_array_get(json_object_get(res, "results"), 0), "name"));
}

static void test_rank_and_update(void)
{
	struct search_index *ix = search_index_new(0);
	json_t *fs = json_pack("[o,o,o]", tool("read_file", "Read a file from disk."),
			       tool("deleteFile", "Remove a file for good."),
			       tool("list_dir", "List the entries of a folder."));
	json_t *chat = json_pack("[o]", tool("post_message", "Post a message to a channel."));
	struct search_opts o = {.limit = 3};
	json_t *r1, *r2;
	char *dump;
	struct err e;

	CHECK(ix && search_index_set(ix, "fs", fs) == 0 && search_index_set(ix, "chat", chat) == 0,
	      "set");
	r1 = search_query(ix, "erase a document", &o, &e);
	CHECK(r1 && !strcmp(first(r1) ?: "", "fs.deleteFile"), "synonyms: %s", first(r1));
	r2 = search_query(ix, "erase a document", &o, &e);
	CHECK(json_equal(r1, r2), "the same answer twice");
	json_decref(r1);
	json_decref(r2);
	r1 = search_query(ix, "show what is in a directory", &o, &e);
	CHECK(r1 && !strcmp(first(r1) ?: "", "fs.list_dir"), "folder: %s", first(r1));
	json_decref(r1);
	r1 = search_query(ix, "book a flight to Paris", &o, &e);
	CHECK(r1 && json_array_size(json_object_get(r1, "results")) == 0 &&
		  json_is_string(json_object_get(r1, "hint")),
	      "no fit: nothing and a hint");
	json_decref(r1);
	/* Replace a server's tools, then remove the server. */
	json_decref(chat);
	chat = json_pack("[o]", tool("send_sms", "Send a text message."));
	search_index_set(ix, "chat", chat);
	r1 = search_query(ix, "post a message to a channel", &o, &e);
	dump = r1 ? json_dumps(r1, 0) : NULL;
	CHECK(dump && !strstr(dump, "post_message"), "replaced tools are gone: %s", dump);
	free(dump);
	json_decref(r1);
	search_index_set(ix, "chat", NULL);
	CHECK(search_index_ntools(ix) == 3, "removed server: %zu tools", search_index_ntools(ix));
	o.detail = SEARCH_DETAIL_FULL;
	r1 = search_query(ix, "read a file", &o, &e);
	r2 = json_array_get(json_object_get(r1, "results"), 0);
	CHECK(r2 && !strcmp(json_string_value(json_object_get(r2, "import")) ?: "",
			    "from servers.fs import read_file"),
	      "full: import");
	CHECK(r2 && strstr(json_string_value(json_object_get(r2, "signature")) ?: "",
			   "def read_file(*, path: str | None = None)"),
	      "full: signature %s", json_string_value(json_object_get(r2, "signature")));
	json_decref(r1);
	search_index_free(ix);
	json_decref(fs);
	json_decref(chat);
}

static size_t nresults(struct search_index *ix, const char *q, size_t limit)
{
	struct search_opts o = {.limit = limit};
	struct err e;
	json_t *r = search_query(ix, q, &o, &e);
	size_t n = json_array_size(json_object_get(r, "results"));

	json_decref(r);
	return n;
}

/* The floor: a query whose thing no tool knows gets nothing, even when a
 * tool shares its act; names weigh less than the words of the task; the
 * answer does not depend on the limit. */
static void test_floor(void)
{
	static const unsigned variants[] = {0, SEARCH_F_ALL & ~SEARCH_F_ACTS,
					    SEARCH_F_ALL & ~SEARCH_F_VALUES};
	struct search_index *ix[3];
	json_t *t = json_pack("[o,o,o,o]", tool("start_process", "Start a new process."),
			      tool("open_nodes", "Open nodes of the graph by their names."),
			      tool("list_dir", "List the entries of a folder."),
			      tool("read_file", "Read a file from disk."));
	size_t i;

	for (i = 0; i < 3; i++) {
		ix[i] = search_index_new(variants[i]);
		search_index_set(ix[i], "s", t);
	}
	CHECK(nresults(ix[0], "start the lawnmower", 5) == 0, "an act alone fits nothing");
	CHECK(nresults(ix[1], "start the lawnmower", 5) > 0, "acts weighing full: a fit");
	CHECK(nresults(ix[0], "open the graph nodes of Alice, Bob, Carol and Dave", 5) > 0,
	      "names weigh less");
	CHECK(nresults(ix[2], "open the graph nodes of Alice, Bob, Carol and Dave", 5) == 0,
	      "names weighing full: no fit");
	CHECK(nresults(ix[0], "read a file", 1) == 1 && nresults(ix[0], "read a file", 5) >= 1,
	      "limit 1 and 5 agree");
	for (i = 0; i < 3; i++)
		search_index_free(ix[i]);
	json_decref(t);
}

/* The floor's check beside coverage: the tool that fits must score a share
 * of what the query could reach, not only mention its words deep in its
 * description. */
static void test_floor_reach(void)
{
	struct search_index *all = search_index_new(0),
			    *no_reach = search_index_new(SEARCH_F_ALL & ~SEARCH_F_REACH);
	json_t *t = json_pack(
	    "[o,o,o,o]",
	    tool("read_file",
		 "Read a file from disk. Returns its text with line numbers, or its bytes as "
		 "base64 when it is not text; a long file is cut at a limit the caller may raise. "
		 "Works on any file the server may read, in any language, whether it holds a "
		 "paragraph of prose or source code, and never will translate or change it."),
	    tool("list_dir", "List the entries of a folder."),
	    tool("start_process", "Start a new process."),
	    tool("open_nodes", "Open nodes of the graph by their names."));

	search_index_set(all, "s", t);
	search_index_set(no_reach, "s", t);
	CHECK(nresults(no_reach, "translate this paragraph into German", 5) > 0,
	      "coverage alone: a fit");
	CHECK(nresults(all, "translate this paragraph into German", 5) == 0,
	      "words deep in a description: no fit");
	CHECK(nresults(all, "read a file from disk", 5) > 0, "a fit in the name still fits");
	search_index_free(all);
	search_index_free(no_reach);
	json_decref(t);
}

static void test_bad_queries(void)
{
	struct search_index *ix = search_index_new(0);
	json_t *t = json_pack("[o]", tool("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "x"));
	struct search_opts re = {.regex = true};
	char *big = malloc(100 * 1024 + 1);
	struct err e = {0};

	search_index_set(ix, "s", t);
	memset(big, 'x', 100 * 1024);
	big[100 * 1024] = '\0';
	CHECK(!search_query(ix, "", NULL, &e) && e.status == EXIT_USAGE, "empty");
	CHECK(!search_query(ix, big, NULL, &e) && strstr(e.text, "at most"), "100 KB: %s", e.text);
	CHECK(!search_query(ix, "(", &re, &e) && strstr(e.text, "invalid regex"), "bad regex");
	CHECK(!search_query(ix, "^(a+)+$", &re, &e) && strstr(e.text, "match limit"),
	      "catastrophic regex: %s", e.text);
	search_index_free(ix);
	json_decref(t);
	free(big);
}

int main(void)
{
	test_terms();
	test_phrases_and_flags();
	test_synonyms();
	test_stopwords_sorted();
	test_rank_and_update();
	test_floor();
	test_floor_reach();
	test_bad_queries();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
