/* Every allocation of a render fails once (jansson test_chaos, curl torture):
 * cg_root_new, cg_server_new and every file's render must report -ENOMEM or
 * NULL and never crash, for a catalog made of every tests/codegen case.
 *
 * The failures come from replacing malloc/calloc/realloc/free (glibc routes
 * its own and jansson's allocations through them). ASan owns the allocator
 * in the sanitizer build, so there the test skips (check.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../codegen/codegen.h"

#define CASES MCPFS_SRCDIR "/tests/codegen"

#if defined(__SANITIZE_ADDRESS__)
#include "check.h"

int main(void)
{
	return CHECK_SKIP("the ASan build owns malloc; the plain build runs this test");
}
#else
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

/* Test-only state: this binary is single-threaded. */
static long fail_at = -1, allocations;

static int should_fail(void)
{
	return allocations++ == fail_at;
}

void *malloc(size_t n)
{
	return should_fail() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return should_fail() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return should_fail() ? NULL : __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}

static json_t *load_catalog(void)
{
	char path[4200];
	struct dirent *d;
	json_t *tools = json_array(), *tool;
	DIR *dir = opendir(CASES);

	while (dir && tools && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/tool.json", CASES, d->d_name);
		tool = json_load_file(path, JSON_ALLOW_NUL, NULL);
		if (tool)
			json_array_append_new(tools, tool);
	}
	if (dir)
		closedir(dir);
	return tools;
}

/* One full render of the tree; returns the bytes rendered, or -1 on a
 * failure that was reported properly. */
static long scenario(json_t *tools, int *bad)
{
	const char *names[] = {"srv", "down"};
	const struct cg_entry *e;
	struct cg_server *s = NULL, *down = NULL;
	struct cg_root *r;
	struct buf b;
	long total = 0;
	size_t n, i;
	int rc;

	r = cg_root_new(names, 2, CG_LANG_ALL, cg_templates_embedded());
	if (!r)
		return -1;
	s = cg_server_new(r, 0, tools, NULL, NULL);
	down = cg_server_new(r, 1, NULL, "unreachable", "a\nlog");
	if (!s || !down) {
		total = -1;
		goto out_free;
	}
	cg_server_list(s, &e, &n);
	for (i = 0; i < n; i++) {
		buf_init(&b, 64u << 20);
		rc = cg_server_render(s, e[i].name, &b);
		if (rc && rc != -ENOMEM) {
			printf("render %s: %d, want 0 or -ENOMEM\n", e[i].name, rc);
			(*bad)++;
		}
		total = rc || total < 0 ? -1 : total + (long)b.len;
		buf_free(&b);
	}
	buf_init(&b, 64u << 20);
	rc = cg_root_render(r, "README.md", &b);
	total = rc || total < 0 ? -1 : total + (long)b.len;
	buf_free(&b);
	buf_init(&b, 64u << 20);
	rc = cg_server_render(down, "README.md", &b);
	total = rc || total < 0 ? -1 : total + (long)b.len;
	buf_free(&b);
out_free:
	cg_server_free(s);
	cg_server_free(down);
	cg_root_free(r);
	return total;
}

int main(void)
{
	json_t *tools = load_catalog();
	long clean, clean_allocs, got, k, failures = 0;
	int bad = 0, passed = 0;

	if (!tools || json_array_size(tools) < 8) {
		printf("cannot load the cases in %s\n0 passed, 1 failed\n", CASES);
		return 1;
	}
	allocations = 0;
	clean = scenario(tools, &bad);
	clean_allocs = allocations;
	passed += clean > 0;
	for (k = 0;; k++) {
		fail_at = k;
		allocations = 0;
		got = scenario(tools, &bad);
		fail_at = -1;
		if (allocations <= k)
			break; /* this run had no allocation left to fail */
		failures++;
		/* A failed allocation fails the file; it never changes one. */
		if (got >= 0 && got != clean) {
			printf("allocation %ld: rendered %ld bytes, %ld without failures\n", k, got,
			       clean);
			bad++;
		}
	}
	/* Not vacuous: every allocation of the clean render was made to fail. */
	passed += failures > 0 && failures >= clean_allocs;
	printf("%ld allocations failed in turn, of %ld in a clean render\n", failures,
	       clean_allocs);
	json_decref(tools);
	printf("%d passed, %d failed\n", passed + (bad == 0),
	       bad + !(failures > 0 && failures >= clean_allocs) + !clean);
	return bad || !(failures > 0 && failures >= clean_allocs) || clean <= 0;
}
#endif
