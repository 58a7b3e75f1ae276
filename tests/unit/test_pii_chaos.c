/* Every allocation of the PII path fails once (as test_codegen_chaos does for
 * codegen): config, scanner, a vault on disk, redact and restore in text and
 * JSON must each report the failure or succeed with the right answer, never
 * crash and never hand out a wrong or half-made result.
 *
 * The failures come from replacing malloc/calloc/realloc/free. ASan owns the
 * allocator in the sanitizer build, so there the test reports that it did
 * not run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/fsx.h"
#include "../../pii/pii.h"

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

#include "check.h"

static const char text[] = "a@example.com, (415) 555-2671, 123-45-6789, 4111 1111 1111 1111, "
			   "10.0.0.1, DE89 3704 0044 0532 0130 00, E-123456, a@example.com";
static const char redacted[] = "[EMAIL_1], [PHONE_1], [SSN_1], [CREDIT_CARD_1], [IP_ADDRESS_1], "
			       "[IBAN_1], [EMP_1], [EMAIL_1]";
static const char section[] =
    "{\"custom\": [{\"name\": \"EMP\", \"regex\": \"E-[0-9]{6}\"}], \"exempt\": [\"a/b\"]}";
static const char doc[] = "{\"content\": [{\"type\": \"text\", \"text\": \"{\\\"m\\\": "
			  "\\\"a@example.com\\\"}\"}], \"x\": [\"10.0.0.1\"], "
			  "\"y\": {\"b@example.com\": 4111111111111111}}";

/* The test's own input, parsed with no allocation failing: jansson's parser
 * can drop part of a string when one fails, and hand back a document that
 * is not the input. */
static json_t *input(const char *json)
{
	long at = fail_at;
	json_t *j;

	fail_at = -1;
	j = json_loads(json, 0, NULL);
	fail_at = at;
	return j;
}

/* One pass; returns 1 when every step succeeded (and then checks the
 * answers), 0 when one failed cleanly. */
static int pass(const char *vault_path)
{
	struct pii_config c = {0};
	struct pii_scanner *s = NULL;
	struct pii_vault *v = NULL;
	struct err e = {0};
	json_t *sec = input(section), *j = NULL;
	struct buf b;
	int ok = 0;

	buf_init(&b, 1 << 20);
	unlink(vault_path);
	if (!sec) {
		err_set(&e, EXIT_FAILED, "the test's own json_loads");
		goto out;
	}
	if (pii_config_parse(sec, "chaos", &c, &e) < 0)
		goto out;
	if (!(s = pii_scanner_new(&c, &e)) || !(v = pii_vault_open(vault_path, &e)))
		goto out;
	if (pii_redact(s, v, text, sizeof(text) - 1, &b, NULL, &e) < 0)
		goto out;
	CHECK(!strcmp(b.data, redacted), "redacted: %s", b.data);
	buf_reset(&b);
	if (pii_restore(s, v, redacted, sizeof(redacted) - 1, &b, &e) < 0)
		goto out;
	CHECK(!strcmp(b.data, text), "restored: %s", b.data);
	if (!(j = input(doc))) {
		err_set(&e, EXIT_FAILED, "the test's own json_loads");
		goto out;
	}
	if (pii_redact_json(s, v, j, &e) < 0)
		goto out;
	CHECK(!strcmp(json_string_value(json_array_get(json_object_get(j, "x"), 0)),
		      "[IP_ADDRESS_1]"),
	      "json redacted");
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(j, "y"), "[EMAIL_2]")),
		      "[CREDIT_CARD_2]"),
	      "a key and a number redacted");
	if (pii_restore_json(s, v, j, &e) < 0)
		goto out;
	CHECK(!strcmp(json_string_value(json_array_get(json_object_get(j, "x"), 0)), "10.0.0.1"),
	      "json restored");
	CHECK(json_integer_value(json_object_get(json_object_get(j, "y"), "b@example.com")) ==
		  4111111111111111LL,
	      "a key and a number restored");
	ok = 1;
out:
	if (!ok)
		CHECK(e.text[0] && !strchr(e.text, '\n') && !strstr(e.text, "@example"),
		      "a failure says why in one line, without values: '%s' (allocation %ld)",
		      e.text, fail_at);
	json_decref(j);
	json_decref(sec);
	buf_free(&b);
	pii_vault_free(v);
	pii_scanner_free(s);
	pii_config_free(&c);
	return ok;
}

int main(void)
{
	char dir[] = "/tmp/mcpfs-test-pii-chaos-XXXXXX", path[256];
	long total;
	int failures = 0;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/s.vault", dir);
	allocations = 0;
	CHECK(pass(path) == 1, "the pass without failures succeeds");
	total = allocations;
	for (fail_at = 0; fail_at < total; fail_at++) {
		allocations = 0;
		failures += !pass(path);
	}
	fail_at = -1;
	CHECK(failures > 0, "some allocations failed the pass (%d of %ld)", failures, total);
	fsx_remove_tree(dir);
	printf("%ld allocations each failed once, %d passes failed cleanly\n", total, failures);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
#endif
