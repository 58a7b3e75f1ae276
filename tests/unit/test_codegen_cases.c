/* Codegen cases as data: tests/codegen/<case>/tool.json rendered as the tool
 * "<case>" of server "srv" must give exactly expected.py, expected.ts and
 * expected.json. MCPFS_UPDATE_EXPECTED=1 writes the expected files instead
 * (review the diff before keeping it). Also: rendering twice gives the same
 * bytes, and no rendering of a case depends on another. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../codegen/codegen.h"
#include "../../common/fsx.h"

#define CASES MCPFS_SRCDIR "/tests/codegen"

static int passed, failed;

static void check(int ok, const char *what, const char *name)
{
	if (ok) {
		passed++;
	} else {
		failed++;
		printf("FAIL %s: %s\n", name, what);
	}
}

static int render(const struct cg_server *s, const char *file, struct buf *b)
{
	buf_init(b, 64u << 20);
	return cg_server_render(s, file, b);
}

static void compare(const struct cg_server *s, const char *dir, const char *ident, const char *ext,
		    const char *name)
{
	char file[512], path[4096];
	struct buf a, b;
	char *want = NULL;
	size_t len = 0;
	int rc;

	snprintf(file, sizeof(file), "%s.%s", ident, ext);
	snprintf(path, sizeof(path), "%s/expected.%s", dir, ext);
	rc = render(s, file, &a);
	check(rc == 0, file, name);
	rc = render(s, file, &b);
	check(rc == 0 && a.len == b.len && !memcmp(a.data, b.data, a.len), "renders twice the same",
	      name);
	if (getenv("MCPFS_UPDATE_EXPECTED")) {
		fsx_write_atomic(path, a.data, a.len, 0644);
	} else {
		rc = fsx_read(path, 64u << 20, &want, &len);
		check(rc == 0, path, name);
		if (rc == 0 && (len != a.len || memcmp(want, a.data, len))) {
			check(0, "output differs from expected (MCPFS_UPDATE_EXPECTED=1 rewrites)",
			      path);
			printf("---- got:\n%s\n----\n", a.data);
		} else if (rc == 0) {
			check(1, path, name);
		}
	}
	free(want);
	buf_free(&a);
	buf_free(&b);
}

static void run_case(const char *name)
{
	const char *server = "srv";
	char dir[4096], path[4200];
	struct cg_server *s;
	struct cg_root *r;
	const char *ident;
	json_error_t je;
	json_t *tool, *tools;

	snprintf(dir, sizeof(dir), "%s/%s", CASES, name);
	snprintf(path, sizeof(path), "%s/tool.json", dir);
	/* NUL inside strings is part of what the cases test. */
	tool = json_load_file(path, JSON_ALLOW_NUL, &je);
	check(tool != NULL, je.text, name);
	if (!tool)
		return;
	tools = json_pack("[o]", tool);
	r = cg_root_new(&server, 1, CG_LANG_ALL, cg_templates_embedded());
	s = r ? cg_server_new(r, 0, tools, NULL, NULL) : NULL;
	check(s != NULL, "cg_server_new", name);
	if (s) {
		const struct cg_entry *e;
		size_t n, i;

		cg_server_list(s, &e, &n);
		/* README.md, __init__.py, index.ts and the tool's three files. */
		check(n == 6, "six entries", name);
		ident = NULL;
		for (i = 0; i < n; i++)
			if (strstr(e[i].name, ".json"))
				ident = e[i].name;
		check(ident != NULL, "a .json entry", name);
		if (ident) {
			char id[256];

			snprintf(id, sizeof(id), "%.*s", (int)(strlen(ident) - 5), ident);
			check(cg_server_tool_name(s, id) != NULL, "tool name lookup", name);
			compare(s, dir, id, "py", name);
			compare(s, dir, id, "ts", name);
			compare(s, dir, id, "json", name);
		}
	}
	cg_server_free(s);
	cg_root_free(r);
	json_decref(tools);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	char *names[256];
	size_t n = 0, i;
	struct dirent *d;
	DIR *dir = opendir(CASES);

	if (!dir) {
		printf("opendir(%s): %s\n0 passed, 1 failed\n", CASES, strerror(errno));
		return 1;
	}
	while ((d = readdir(dir)) && n < 256)
		if (d->d_name[0] != '.')
			names[n++] = strdup(d->d_name);
	closedir(dir);
	qsort(names, n, sizeof(names[0]), cmp_names);
	check(n >= 8, "at least eight cases", CASES);
	for (i = 0; i < n; i++) {
		run_case(names[i]);
		free(names[i]);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
