/* common/jsonpack: every JSON value comes back from MessagePack as it went
 * in (key order, NUL in strings, the integer range, depth past msgpack-c's
 * 32 levels), and a buffer cut short, with bytes left over or holding what
 * JSON has not gives NULL, never a crash or a part of the value. */
#include <string.h>

#include "../../common/jsonpack.h"
#include "check.h"

static const char VALUE[] =
    "{\"name\":\"b_tool\",\"z\":1,\"a\":2.5,\"e\":\"é\",\"n\":\"nul \\u0000 inside\","
    "\"big\":9223372036854775807,\"small\":-9223372036854775808,\"neg\":-1,"
    "\"t\":true,\"f\":false,\"null\":null,\"arr\":[1,[],{},\"\",0.1],\"\":{}}";

/* @v packed: the buffer, its length in *@len. */
static char *pack(const json_t *v, size_t *len)
{
	msgpack_sbuffer sb;

	msgpack_sbuffer_init(&sb);
	if (jsonpack_append(&sb, v)) {
		msgpack_sbuffer_destroy(&sb);
		return NULL;
	}
	*len = sb.size;
	return msgpack_sbuffer_release(&sb);
}

static void test_round_trip(void)
{
	json_t *v = json_loads(VALUE, JSON_ALLOW_NUL, NULL), *back;
	size_t len = 0;
	char *buf = pack(v, &len), *a, *b;

	back = buf ? jsonpack_unpack(buf, len) : NULL;
	CHECK(v && json_equal(back, v), "every kind of value comes back equal");
	a = json_dumps(v, JSON_COMPACT);
	b = json_dumps(back, JSON_COMPACT);
	CHECK(a && b && !strcmp(a, b), "key order kept: %s", b ? b : "(null)");
	CHECK(len < strlen(VALUE), "smaller than its JSON: %zu bytes", len);
	free(a);
	free(b);
	json_decref(back);
	free(buf);
	json_decref(v);
}

/* Nested past the unpacker's 32 levels, in arrays and objects, and at the
 * depth the catalog's salvage allows. */
static void test_deep(void)
{
	static const int depths[] = {23, 24, 25, 31, 32, 33, 100, 2000};
	size_t i, len = 0;

	for (i = 0; i < sizeof(depths) / sizeof(*depths); i++) {
		json_t *v = json_string("leaf"), *back;
		char *buf;
		int d;

		for (d = 0; d < depths[i]; d++)
			v = d % 2 ? json_pack("[o]", v) : json_pack("{so}", "k", v);
		buf = pack(v, &len);
		back = buf ? jsonpack_unpack(buf, len) : NULL;
		CHECK(json_equal(back, v), "%d deep comes back", depths[i]);
		json_decref(back);
		free(buf);
		json_decref(v);
	}
}

/* Every prefix of a buffer, and a byte more, is not a value: NULL. */
static void test_cut(void)
{
	json_t *v = json_loads(VALUE, JSON_ALLOW_NUL, NULL), *deep = json_string("x"), *back;
	size_t len = 0, cut, bad = 0;
	char *buf, *more;
	int d;

	for (d = 0; d < 60; d++)
		deep = json_pack("[o]", deep);
	json_object_set_new(v, "deep", deep);
	buf = pack(v, &len);
	CHECK(buf != NULL, "packed");
	for (cut = 0; buf && cut < len; cut++) {
		back = jsonpack_unpack(buf, cut);
		bad += back != NULL;
		json_decref(back);
	}
	CHECK(!bad, "%zu of %zu prefixes gave a value", bad, len);
	more = malloc(len + 1);
	if (more && buf) {
		memcpy(more, buf, len);
		more[len] = '\xc0'; /* nil */
		CHECK(!jsonpack_unpack(more, len + 1), "a byte left over: NULL");
	}
	free(more);
	free(buf);
	json_decref(v);
}

/* MessagePack that jsonpack_append never writes. */
static void test_malformed(void)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *what;
	} bad[] = {
	    {"\xc4\x01x", 3, "bin"},
	    {"\xd4\x07x", 3, "an ext of another type"},
	    {"\xd4\x01\x92", 3, "a nested document cut short"},
	    {"\xd6\x01\xc0\xc0\xc0\xc0", 6, "a nested document with a byte left over"},
	    {"\x81\x01\x02", 3, "a map key not a string"},
	    {"\xa2\xff\xfe", 3, "a string not UTF-8"},
	    {"\x81\xa2\xff\xfe\x01", 5, "a key not UTF-8"},
	    {"\xcf\xff\xff\xff\xff\xff\xff\xff\xff", 9, "an integer past int64"},
	    {"\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00", 9, "NaN"},
	    {"\xde\xff\xff\xa1k", 5, "a map claiming 65,535 entries"},
	    {"\xdc\xff\xff\xc0", 4, "an array claiming 65,535 items"},
	    {"\xc1", 1, "the never-used byte"},
	    {"", 0, "nothing"},
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		CHECK(!jsonpack_unpack(bad[i].bytes, bad[i].len), "%s: NULL", bad[i].what);
	CHECK(jsonpack_append(NULL, NULL) == -1, "no value: -1");
}

int main(void)
{
	test_round_trip();
	test_deep();
	test_cut();
	test_malformed();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
