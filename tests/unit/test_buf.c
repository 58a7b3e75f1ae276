/* struct buf: the ceiling, and the first error that every later append
 * keeps (the emitters append unconditionally and check once at the end). */
#include <errno.h>
#include <string.h>

#include "../../common/buf.h"
#include "check.h"

static void test_ceiling_sticks(void)
{
	struct buf b, other;

	buf_init(&b, 8);
	CHECK(buf_puts(&b, "abcd") == 0 && buf_error(&b) == 0, "a fitting append succeeds");
	CHECK(buf_puts(&b, "efghij") == -E2BIG, "passing the ceiling fails");
	CHECK(b.len == 4 && !strcmp(b.data, "abcd"), "the failed append left the bytes: %s",
	      b.data);
	CHECK(buf_putc(&b, 'x') == -E2BIG && b.len == 4, "a later fitting append is a no-op");
	CHECK(buf_printf(&b, "%d", 1) == -E2BIG && b.len == 4, "printf too");
	CHECK(buf_error(&b) == -E2BIG, "the error is remembered");
	buf_init(&other, 8);
	CHECK(buf_first_error(&other, &b, NULL) == -E2BIG, "first_error finds it");
	CHECK(buf_first_error(&other, NULL) == 0, "and 0 when all are good");
	buf_reset(&b);
	CHECK(buf_error(&b) == 0 && buf_puts(&b, "x") == 0 && !strcmp(b.data, "x"),
	      "reset starts over");
	buf_free(&b);
	buf_free(&other);
}

static void test_fail(void)
{
	struct buf b;

	buf_init(&b, 64);
	CHECK(buf_fail(&b, 0) == 0 && buf_puts(&b, "a") == 0, "failing with 0 changes nothing");
	CHECK(buf_fail(&b, -ENOENT) == -ENOENT, "buf_fail records its error");
	CHECK(buf_fail(&b, -EINVAL) == -ENOENT, "but not over the first");
	CHECK(buf_puts(&b, "b") == -ENOENT && b.len == 1, "appends after it are no-ops");
	buf_free(&b);
	CHECK(buf_error(&b) == 0 && b.data == NULL, "free leaves a clean buffer");
}

int main(void)
{
	test_ceiling_sticks();
	test_fail();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
