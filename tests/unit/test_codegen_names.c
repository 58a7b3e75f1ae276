/* Name rules, text escaping, and the cg_root / cg_server contracts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../codegen/codegen.h"
#include "../../codegen/groups_i.h"
#include "../../codegen/names_i.h"
#include "../../codegen/text_i.h"
#include "../../common/fsx.h"
#include "check.h"

static const struct {
	const char *name, *ident;
} bases[] = {
    {"get-sum", "get_sum"},
    {"getUser", "get_user"},
    {"GetUser", "get_user"},
    {"HTTPServer", "httpserver"},
    {"class", "class_"},
    {"from", "from_"},
    {"default", "default_"},
    {"__init__", "init"},
    {"index", "index_"},
    {"README", "readme_"},
    {"list", "list_"},
    {"await", "await_"},
    {"annotations", "annotations_"},
    {"3d-render", "tool_3d_render"},
    {"\xf0\x9f\x9a\x80", "tool_1f680"},
    {"../../etc/passwd", "etc_passwd"},
    {"a/b\\c", "a_b_c"},
    {"..", "tool_2e_2e"},
    {"", "tool"},
    {" spaces here ", "spaces_here"},
    {"caf\xc3\xa9 menu", "caf_menu"},
};

static void test_bases(void)
{
	char out[CG_IDENT_BUF], long_name[301];
	size_t i;

	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		cg_ident_base(bases[i].name, "tool", out);
		CHECK(!strcmp(out, bases[i].ident), "'%s' -> '%s', want '%s'", bases[i].name, out,
		      bases[i].ident);
	}
	memset(long_name, 'x', 300);
	long_name[300] = '\0';
	cg_ident_base(long_name, "tool", out);
	CHECK(strlen(out) == CG_IDENT_MAX, "300 characters cut to %d, got %zu", CG_IDENT_MAX,
	      strlen(out));
}

/* The same names in any order get the same identifiers. */
static void test_collisions(void)
{
	const char *names[] = {"get-user", "get_user", "GetUser", "get_user_2x", "get-user_2"};
	/* get-user_2 owns its base get_user_2 outright, so the suffixes skip it. */
	const char *want[] = {"get_user_4", "get_user", "get_user_3", "get_user_2x", "get_user_2"};
	const char *rev[5];
	char *out[5], *out2[5];
	size_t i;

	CHECK(cg_idents_assign(names, 5, "tool", out) == 0, "assign");
	for (i = 0; i < 5; i++)
		rev[i] = names[4 - i];
	CHECK(cg_idents_assign(rev, 5, "tool", out2) == 0, "assign reversed");
	for (i = 0; i < 5; i++) {
		CHECK(!strcmp(out[i], want[i]), "'%s' -> '%s', want '%s'", names[i], out[i],
		      want[i]);
		CHECK(!strcmp(out2[4 - i], out[i]), "order changed '%s': '%s' vs '%s'", names[i],
		      out2[4 - i], out[i]);
	}
	for (i = 0; i < 5; i++) {
		free(out[i]);
		free(out2[i]);
	}
}

static void test_langs(void)
{
	CHECK(cg_langs_parse("py,ts") == CG_LANG_ALL, "py,ts");
	CHECK(cg_langs_parse("python") == CG_LANG_PY, "python");
	CHECK(cg_langs_parse("typescript,py") == CG_LANG_ALL, "typescript,py");
	CHECK(cg_langs_parse("ts") == CG_LANG_TS, "ts");
	CHECK(cg_langs_parse("") == 0, "empty");
	CHECK(cg_langs_parse("py,") == 0, "trailing comma");
	CHECK(cg_langs_parse("cobol") == 0, "cobol");
}

static void test_escapes(void)
{
	const char evil[] = "a \"\"\" b */ c ` ${d} \\ \r\n e\xe2\x80\xa8 f \"";
	struct buf b;

	buf_init(&b, 1 << 20);
	CHECK(cg_py_doc(&b, evil, "    ") == 0 && !strstr(b.data, "\"\"\"") &&
		  !strcmp(b.data + b.len - 2, "\\\"") && !strchr(b.data, '\r'),
	      "py docstring: %s", b.data);
	buf_reset(&b);
	CHECK(cg_py_doc_n(&b, "x\0y", 3, "") == 0 && !strcmp(b.data, "x\\x00y"), "NUL: %s", b.data);
	buf_reset(&b);
	CHECK(cg_ts_doc(&b, evil, "") == 0 && !strstr(b.data, "*/") && !strchr(b.data, '\r'),
	      "jsdoc: %s", b.data);
	buf_reset(&b);
	CHECK(cg_py_str(&b, "q\"\\\n\xc3\xa9") == 0 && !strcmp(b.data, "\"q\\\"\\\\\\n\\xe9\""),
	      "py str: %s", b.data);
	buf_reset(&b);
	CHECK(cg_ts_str(&b, "q\"\xf0\x9f\x9a\x80") == 0 &&
		  !strcmp(b.data, "\"q\\\"\\ud83d\\ude80\""),
	      "ts str: %s", b.data);
	buf_reset(&b);
	CHECK(cg_md_line(&b, "one\n`two`\tthree", 100) == 0 && !strcmp(b.data, "one 'two' three"),
	      "md: %s", b.data);
	buf_reset(&b);
	CHECK(cg_md_line(&b, "abcdefghij", 4) == 0 && !strcmp(b.data, "abcd..."), "md cut: %s",
	      b.data);
	CHECK(cg_first_sentence("One. Two.") == 4, "first sentence");
	buf_free(&b);
}

static void test_root_and_server(void)
{
	const char *names[] = {"everything", "Weird Name", "class"};
	const struct cg_entry *e;
	struct cg_server *ok, *bad;
	struct cg_root *r;
	struct buf b;
	json_t *tools;
	size_t n;

	r = cg_root_new(names, 3, CG_LANG_ALL, cg_templates_embedded());
	CHECK(r != NULL, "cg_root_new");
	if (!r)
		return;
	CHECK(!strcmp(cg_root_server_ident(r, 1), "weird_name"), "ident %s",
	      cg_root_server_ident(r, 1));
	CHECK(!strcmp(cg_root_server_ident(r, 2), "class_"), "ident %s",
	      cg_root_server_ident(r, 2));
	CHECK(cg_root_find(r, "weird_name") == 1 && cg_root_find(r, "nope") == -1, "find");
	CHECK(cg_root_list(r, "", &e, &n) == 0 && n == 2, "top entries");
	CHECK(cg_root_list(r, "servers", &e, &n) == 0 && n == 6 &&
		  !strcmp(e[3].name, "everything") && e[3].is_dir,
	      "servers entries");
	CHECK(cg_root_list(r, "x", &e, &n) == -ENOENT, "unknown folder");
	buf_init(&b, 1 << 20);
	CHECK(cg_root_render(r, "README.md", &b) == 0 &&
		  strstr(b.data, "- `weird_name` (configured as \"Weird Name\")"),
	      "root README");
	buf_reset(&b);
	CHECK(cg_root_render(r, "servers/_runtime.py", &b) == 0 && strstr(b.data, "def call_tool"),
	      "runtime");
	CHECK(cg_root_render(r, "servers/nope.py", &b) == -ENOENT, "unknown file");

	tools = json_loads("[{\"name\":\"get-sum\",\"inputSchema\":{\"type\":\"object\"}},"
			   "{\"description\":\"no name\"},{\"name\":\"x\"}]",
			   0, NULL);
	ok = cg_server_new(r, 0, tools, NULL, NULL);
	CHECK(ok != NULL, "server");
	if (ok) {
		CHECK(cg_server_list(ok, &e, &n) == 0 && n == 9, "entries %zu", n);
		CHECK(!strcmp(e[0].name, "README.md") && !strcmp(e[1].name, "__init__.py") &&
			  !strcmp(e[2].name, "get_sum.json"),
		      "sorted entries");
		CHECK(!strcmp(cg_server_tool_name(ok, "get_sum"), "get-sum"), "tool name");
		CHECK(cg_server_tool_name(ok, "get") == NULL, "prefix is no match");
		buf_reset(&b);
		CHECK(cg_server_render(ok, "get_sum.ts", &b) == 0 &&
			  strstr(b.data, "export async function get_sum("),
		      "ts");
		CHECK(cg_server_render(ok, "get_sum.rb", &b) == -ENOENT, "unknown extension");
		CHECK(cg_server_render(ok, "nope.py", &b) == -ENOENT, "unknown tool");
	}
	bad = cg_server_new(r, 1, NULL, "spawn failed", "line one\n```\nline three");
	CHECK(bad != NULL, "failed server");
	if (bad) {
		CHECK(cg_server_list(bad, &e, &n) == 0 && n == 1, "only a README");
		buf_reset(&b);
		CHECK(cg_server_render(bad, "README.md", &b) == 0 &&
			  strstr(b.data, "spawn failed") && strstr(b.data, "    line three"),
		      "failed README: %s", b.data);
		CHECK(cg_server_render(bad, "__init__.py", &b) == -ENOENT, "no package");
	}
	CHECK(cg_server_new(r, 7, tools, NULL, NULL) == NULL, "index out of range");
	cg_server_free(ok);
	cg_server_free(bad);
	json_decref(tools);
	buf_free(&b);
	cg_root_free(r);
}

static void test_templates(void)
{
	char dir[] = "/tmp/mcpfs-test-templates-XXXXXX", path[256];
	struct cg_templates *t;
	const char *names[] = {"s"};
	struct cg_root *r;
	struct err e = {0};
	struct buf b;

	CHECK(cg_templates_load("/nonexistent/templates", &e) == NULL && e.status == EXIT_USAGE,
	      "missing folder");
	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/README.md.tmpl", dir);
	fsx_write_atomic(path, "MINE {{servers}}{{unknown}}", 27, 0644);
	t = cg_templates_load(dir, &e);
	CHECK(t != NULL, "load: %s", e.text);
	r = t ? cg_root_new(names, 1, CG_LANG_PY, t) : NULL;
	buf_init(&b, 1 << 20);
	CHECK(r && cg_root_render(r, "README.md", &b) == 0 &&
		  !strcmp(b.data, "MINE - `s`\n{{unknown}}"),
	      "override: %s", b.data);
	buf_reset(&b);
	CHECK(r && cg_root_render(r, "servers/_runtime.py", &b) == 0, "others stay embedded");
	CHECK(r && cg_root_render(r, "servers/_runtime.ts", &b) == -ENOENT, "no ts for py only");
	buf_free(&b);
	cg_root_free(r);
	cg_templates_free(t);
	cg_templates_free((struct cg_templates *)cg_templates_embedded());
	unlink(path);
	rmdir(dir);
}

/* A server of more than CG_README_LIST_MAX tools: its README groups them by
 * first word and stays a few KB; one at the limit lists every tool. */
static void test_large_readme(void)
{
	const char *names[] = {"big"};
	const char *words[] = {"issue", "repo", "user"};
	const char *verbs[] = {"get", "list", "create", "delete", "update", "search", "sync"};
	json_t *tools = json_array();
	struct cg_server *s;
	struct cg_root *r;
	struct buf b;
	char name[64];
	size_t i;

	r = cg_root_new(names, 1, CG_LANG_ALL, cg_templates_embedded());
	CHECK(r != NULL && tools, "root");
	if (!r || !tools)
		goto out;
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "%s_%s_%zu", words[i % 3], verbs[i % 7], i);
		json_array_append_new(
		    tools, json_pack("{s:s,s:s}", "name", name, "description", "A tool."));
	}
	json_array_append_new(tools, json_pack("{s:s}", "name", "ping"));
	buf_init(&b, 1 << 20);
	s = cg_server_new(r, 0, tools, NULL, NULL);
	CHECK(s && cg_server_render(s, "README.md", &b) == 0, "render a grouped README");
	if (s && b.data) {
		CHECK(b.len < 2048, "README of 3,001 tools is %zu bytes", b.len);
		CHECK(strstr(b.data, "3001 tools.") &&
			  strstr(b.data, "- `issue_*` (1000): create, delete, get, list, search, "
					 "sync, …\n") &&
			  strstr(b.data, "- `ping`\n") && strstr(b.data, "mcpfs search") &&
			  !strstr(b.data, "issue_get_0`"),
		      "groups: %s", b.data);
	}
	cg_server_free(s);
	/* At the limit: every tool on a line of its own, as before. */
	while (json_array_size(tools) > CG_README_LIST_MAX)
		json_array_remove(tools, 0);
	buf_reset(&b);
	s = cg_server_new(r, 0, tools, NULL, NULL);
	CHECK(s && cg_server_render(s, "README.md", &b) == 0 && b.data &&
		  strstr(b.data, "- `ping`\n") && strstr(b.data, "- `user_delete_2999`: A tool.") &&
		  !strstr(b.data, "mcpfs search"),
	      "a list at the limit");
	cg_server_free(s);
	buf_free(&b);
out:
	json_decref(tools);
	cg_root_free(r);
}

int main(void)
{
	test_bases();
	test_collisions();
	test_langs();
	test_escapes();
	test_root_and_server();
	test_large_readme();
	test_templates();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
