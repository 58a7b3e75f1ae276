/* JSON-RPC framing and classification (servers/jsonrpc.c). Cases as data. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../../common/buf.h"
#include "../../servers/catalog_check.h"
#include "../../servers/json_salvage.h"
#include "../../servers/jsonrpc.h"
#include "check.h"

static const struct {
	const char *text;
	enum jsonrpc_kind kind;
} classify_cases[] = {
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", JSONRPC_REQUEST},
    {"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\",\"params\":{}}", JSONRPC_REQUEST},
    /* server-to-client ids start at 0 and share numbers with ours */
    {"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"roots/list\"}", JSONRPC_REQUEST},
    {"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", JSONRPC_NOTIFICATION},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", JSONRPC_RESPONSE},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"x\"}}", JSONRPC_RESPONSE},
    {"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}",
     JSONRPC_RESPONSE},
    {"{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}", JSONRPC_INVALID},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}", JSONRPC_INVALID},
    {"{\"jsonrpc\":\"2.0\",\"id\":1}", JSONRPC_INVALID},
    {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"x\"}", JSONRPC_INVALID},
    {"{\"id\":1,\"method\":\"x\"}", JSONRPC_INVALID},
    {"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}", JSONRPC_INVALID},
    {"{\"jsonrpc\":\"2.0\",\"method\":7}", JSONRPC_INVALID},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"no\"}", JSONRPC_INVALID},
    {"[1]", JSONRPC_INVALID},
};

static void test_classify(void)
{
	size_t i;

	for (i = 0; i < sizeof(classify_cases) / sizeof(classify_cases[0]); i++) {
		json_t *m = json_loads(classify_cases[i].text, 0, NULL);

		CHECK(m && jsonrpc_classify(m) == classify_cases[i].kind, "classify %s: got %d",
		      classify_cases[i].text, m ? (int)jsonrpc_classify(m) : -1);
		json_decref(m);
	}
}

static const struct {
	const char *text;
	const char *error; /* substring of the error, or NULL when it decodes */
} decode_cases[] = {
    {"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}", NULL},
    {"[{\"jsonrpc\":\"2.0\",\"method\":\"x\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}]", NULL},
    {"this is not json", "1:4: '[' or '{' expected"},
    {"{\"jsonrpc\":\"2.0\",", "1:"},
    {"{\"jsonrpc\":\"2.0\",\"method\":\"x\"} trailing", "end of file expected"},
    {"[]", "empty batch"},
    {"[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}, 3]", "batch element 1"},
    {"{\"hello\":1}", "not a JSON-RPC 2.0 message"},
    {"\"just a string\"", "1:"},
    {"", "1:"},
};

static void test_decode(void)
{
	size_t i;

	for (i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]); i++) {
		struct err e = {0};
		json_t *m = jsonrpc_decode(decode_cases[i].text, strlen(decode_cases[i].text), &e);

		if (!decode_cases[i].error)
			CHECK(m != NULL, "decode %s: %s", decode_cases[i].text, e.text);
		else
			CHECK(!m && strstr(e.text, decode_cases[i].error),
			      "decode %s: wanted error with '%s', got '%s'", decode_cases[i].text,
			      decode_cases[i].error, m ? "(success)" : e.text);
		json_decref(m);
	}
}

struct collected {
	char lines[8][64];
	int n;
	int stop_at; /* return 1 on this line number (1-based), 0: never */
};

static int collect(void *ctx, const char *line, size_t len)
{
	struct collected *c = ctx;

	if (c->n < 8)
		snprintf(c->lines[c->n], sizeof(c->lines[0]), "%.*s", (int)len, line);
	c->n++;
	return c->n == c->stop_at ? 1 : 0;
}

static void test_lines(void)
{
	struct jsonrpc_lines ls;
	struct collected c = {0};
	const char *stream = "one\r\n\ntwo\nthr";
	size_t i;
	int rc = 0;

	/* Byte by byte: a line split across reads is joined. */
	jsonrpc_lines_init(&ls, 100);
	for (i = 0; stream[i] && !rc; i++)
		rc = jsonrpc_lines_feed(&ls, stream + i, 1, collect, &c);
	rc = rc ? rc : jsonrpc_lines_feed(&ls, "ee\n", 3, collect, &c);
	CHECK(rc == 0 && c.n == 3, "lines: rc %d, %d lines", rc, c.n);
	CHECK(!strcmp(c.lines[0], "one") && !strcmp(c.lines[1], "two") &&
		  !strcmp(c.lines[2], "three"),
	      "lines: got '%s' '%s' '%s'", c.lines[0], c.lines[1], c.lines[2]);
	jsonrpc_lines_free(&ls);

	/* A line past the ceiling fails, whole or in pieces. */
	jsonrpc_lines_init(&ls, 8);
	memset(&c, 0, sizeof(c));
	rc = jsonrpc_lines_feed(&ls, "12345678\n", 9, collect, &c);
	CHECK(rc == 0 && c.n == 1, "8-byte line under an 8-byte cap: rc %d", rc);
	rc = jsonrpc_lines_feed(&ls, "12345", 5, collect, &c);
	rc = rc ? rc : jsonrpc_lines_feed(&ls, "6789", 4, collect, &c);
	CHECK(rc == -E2BIG, "9-byte line under an 8-byte cap: rc %d", rc);
	jsonrpc_lines_free(&ls);

	/* The callback's non-zero value stops the feed. */
	jsonrpc_lines_init(&ls, 100);
	memset(&c, 0, sizeof(c));
	c.stop_at = 2;
	rc = jsonrpc_lines_feed(&ls, "a\nb\nc\n", 6, collect, &c);
	CHECK(rc == 1 && c.n == 2, "stop: rc %d after %d lines", rc, c.n);
	jsonrpc_lines_free(&ls);
}

static void test_encode(void)
{
	struct buf b;
	json_t *m, *back;
	int rc;

	buf_init(&b, 1 << 20);
	m = jsonrpc_request_new(7, "tools/call", json_pack("{s:s}", "name", "a\nb"));
	rc = jsonrpc_encode_line(m, &b);
	CHECK(rc == 0 && b.len && b.data[b.len - 1] == '\n' &&
		  memchr(b.data, '\n', b.len) == b.data + b.len - 1,
	      "encode: one line, got rc %d '%s'", rc, b.data);
	back = json_loadb(b.data, b.len, 0, NULL);
	CHECK(back && json_equal(back, m), "encode: round trip");
	CHECK(jsonrpc_classify(m) == JSONRPC_REQUEST, "request_new classifies as request");
	json_decref(back);
	buf_free(&b);

	/* Past the ceiling: -E2BIG and the buffer as it was. */
	buf_init(&b, 16);
	buf_puts(&b, "keep");
	rc = jsonrpc_encode_line(m, &b);
	CHECK(rc == -E2BIG && b.len == 4 && !strcmp(b.data, "keep"), "encode cap: rc %d '%s'", rc,
	      b.data);
	buf_free(&b);
	json_decref(m);

	m = jsonrpc_notification_new("notifications/initialized", NULL);
	CHECK(jsonrpc_classify(m) == JSONRPC_NOTIFICATION && !json_object_get(m, "params"),
	      "notification_new");
	json_decref(m);
	back = json_integer(0);
	m = jsonrpc_result_new(back, NULL);
	CHECK(jsonrpc_classify(m) == JSONRPC_RESPONSE &&
		  json_is_object(json_object_get(m, "result")),
	      "result_new with id 0");
	json_decref(m);
	m = jsonrpc_error_new(back, JSONRPC_METHOD_NOT_FOUND, "nope");
	CHECK(jsonrpc_classify(m) == JSONRPC_RESPONSE &&
		  json_integer_value(json_object_get(json_object_get(m, "error"), "code")) ==
		      -32601,
	      "error_new");
	json_decref(m);
	json_decref(back);
}

/* One bad tool in a tools/list result: invalid UTF-8 is repaired to U+FFFD,
 * a schema past the decoder's depth is cut, and catalog_check skips that
 * tool alone (and later tools of a name already seen). */
static void test_salvage(void)
{
	const char *head = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":["
			   "{\"name\":\"bad\",\"description\":\"a\xff\xc3(b \\\"q\\\" [x] {y}\"},"
			   "{\"name\":\"deep\",\"inputSchema\":";
	const char *tail = "},{\"name\":\"ok\"},{\"name\":\"ok\"},{\"name\":\"after\"}]}}";
	json_t *msg, *tools, *skipped;
	struct err e = {0};
	struct buf b;
	int i;

	buf_init(&b, 1 << 20);
	buf_puts(&b, head);
	for (i = 0; i < 3000; i++)
		buf_puts(&b, "{\"a\":[");
	buf_puts(&b, "\"]}{\"");
	for (i = 0; i < 3000; i++)
		buf_puts(&b, "]}");
	buf_puts(&b, tail);
	msg = jsonrpc_decode(b.data, b.len, &e);
	CHECK(msg != NULL, "decoded despite bad UTF-8 and depth: %s", e.text);
	tools = json_incref(json_object_get(json_object_get(msg, "result"), "tools"));
	CHECK(json_array_size(tools) == 5, "every tool still there");
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(tools, 0), "description")),
		      "a\xef\xbf\xbd\xef\xbf\xbd(b \"q\" [x] {y}"),
	      "invalid bytes became U+FFFD, the rest kept: %s",
	      json_string_value(json_object_get(json_array_get(tools, 0), "description")));
	CHECK(json_salvage_has_cut(json_array_get(tools, 1)) &&
		  !json_salvage_has_cut(json_array_get(tools, 0)),
	      "the deep tool alone holds the cut");
	tools = catalog_check(tools, &skipped);
	CHECK(json_array_size(tools) == 3 && json_array_size(skipped) == 2, "3 kept, 2 skipped");
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(skipped, 0), "name")),
		      "deep") &&
		  strstr(json_string_value(json_object_get(json_array_get(skipped, 0), "why")),
			 "deeper than 2000"),
	      "deep skipped with why");
	CHECK(strstr(json_string_value(json_object_get(json_array_get(skipped, 1), "why")),
		     "a second tool named 'ok'"),
	      "duplicate skipped with why");
	json_decref(tools);
	json_decref(skipped);
	json_decref(msg);
	/* Broken JSON stays an error: repair is for these two faults only. */
	CHECK(!jsonrpc_decode("{\"a\":\xff", 6, &e), "broken JSON with bad bytes still fails");
	buf_free(&b);
}

int main(void)
{
	test_classify();
	test_decode();
	test_lines();
	test_encode();
	test_salvage();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
