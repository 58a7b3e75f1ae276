/* The SSE parser: each case is an input and the exact events it must give,
 * written "type|id|data;" per event. Every case is fed whole, one byte at a
 * time, and split in two at every offset: the result must not change. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../../servers/sse.h"

struct sse_case {
	const char *name;
	const char *input;
	size_t max;	  /* parser cap; 0: 1 MiB */
	const char *want; /* events, "type|id|data;" each */
	int want_rc;	  /* of the whole feed */
	long want_retry;
	const char *want_last_id;
};

static const struct sse_case cases[] = {
    {"one event", "data: {\"a\":1}\n\n", 0, "message||{\"a\":1};", 0, -1, ""},
    {"CRLF lines", "event: message\r\ndata: x\r\n\r\n", 0, "message||x;", 0, -1, ""},
    {"CRLF inside one event", "data: a\r\ndata: b\r\n\r\n", 0, "message||a\nb;", 0, -1, ""},
    {"CR lines", "data: x\rid: 7\r\r", 0, "message|7|x;", 0, -1, "7"},
    {"priming event: id and empty data", "id: p1\nretry: 500\ndata: \n\n", 0, "message|p1|;", 0,
     500, "p1"},
    {"id alone is not dispatched", "id: 42\n\n", 0, "", 0, -1, "42"},
    {"id persists across events", "id: 1\ndata: a\n\ndata: b\n\n", 0, "message|1|a;message|1|b;", 0,
     -1, "1"},
    {"empty id resets it", "id: 1\ndata: a\n\nid\ndata: b\n\n", 0, "message|1|a;message||b;", 0, -1,
     ""},
    {"multi-line data joined by LF", "data: a\ndata: b\ndata\n\n", 0, "message||a\nb\n;", 0, -1,
     ""},
    {"no space after colon, only one space stripped", "data:x\ndata:  y\n\n", 0, "message||x\n y;",
     0, -1, ""},
    {"comments ignored", ": keepalive\n:\ndata: z\n\n", 0, "message||z;", 0, -1, ""},
    {"named event, type reset after dispatch", "event: endpoint\ndata: /m?s=1\n\ndata: q\n\n", 0,
     "endpoint||/m?s=1;message||q;", 0, -1, ""},
    {"leading BOM stripped once",
     "\xEF\xBB\xBF"
     "data: b\n\n",
     0, "message||b;", 0, -1, ""},
    {"unknown fields ignored", "foo: bar\nbaz\ndata: k\n\n", 0, "message||k;", 0, -1, ""},
    {"bad retry ignored", "retry: 12a\nretry: -5\nretry:\ndata: r\n\n", 0, "message||r;", 0, -1,
     ""},
    {"last retry wins", "retry: 100\nretry: 2500\n\n", 0, "", 0, 2500, ""},
    {"incomplete event at EOF not dispatched", "data: a\n\ndata: partial\n", 0, "message||a;", 0,
     -1, ""},
    {"blank lines alone do nothing", "\n\n\r\n\r\r", 0, "", 0, -1, ""},
    {"line over the cap", "data: 0123456789abcdef0123\n\n", 16, "", -E2BIG, -1, ""},
    {"data over the cap across lines", "data: 0123456789\ndata: 0123456789\n\n", 16, "", -E2BIG, -1,
     ""},
    {"events before the cap are kept", "data: ok\n\ndata: 0123456789abcdef0123\n\n", 16,
     "message||ok;", -E2BIG, -1, ""},
};

struct got {
	char text[4096];
	size_t len;
	int stop_at; /* return 7 from this event (1-based); 0: never */
	int n;
};

static int on_event(void *ctx, const struct sse_event *ev)
{
	struct got *g = ctx;
	int w;

	w = snprintf(g->text + g->len, sizeof(g->text) - g->len, "%s|%s|%.*s;", ev->type, ev->id,
		     (int)ev->data_len, ev->data);
	if (w > 0 && (size_t)w < sizeof(g->text) - g->len)
		g->len += (size_t)w;
	if (++g->n == g->stop_at)
		return 7;
	return 0;
}

static int passed, failed;

static void expect(bool ok, const char *name, const char *how, const char *detail)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s (%s): %s\n", name, how, detail);
}

/* Feed @c in pieces: at @split (whole if >= len), or byte by byte if @bytewise. */
static void run_case(const struct sse_case *c, size_t split, bool bytewise, const char *how)
{
	struct sse_parser p;
	struct got g = {0};
	size_t len = strlen(c->input), i;
	char detail[5000];
	int rc = 0;

	sse_parser_init(&p, c->max ? c->max : (1u << 20));
	if (bytewise) {
		for (i = 0; i < len && !rc; i++)
			rc = sse_parser_feed(&p, c->input + i, 1, on_event, &g);
	} else if (split < len) {
		rc = sse_parser_feed(&p, c->input, split, on_event, &g);
		if (!rc)
			rc = sse_parser_feed(&p, c->input + split, len - split, on_event, &g);
	} else {
		rc = sse_parser_feed(&p, c->input, len, on_event, &g);
	}
	snprintf(detail, sizeof(detail),
		 "events '%s' want '%s', rc %d want %d, retry %ld want %ld, "
		 "last id '%s' want '%s'",
		 g.text, c->want, rc, c->want_rc, sse_parser_retry_ms(&p), c->want_retry,
		 sse_parser_last_id(&p), c->want_last_id);
	expect(!strcmp(g.text, c->want) && rc == c->want_rc &&
		   (rc || (sse_parser_retry_ms(&p) == c->want_retry &&
			   !strcmp(sse_parser_last_id(&p), c->want_last_id))),
	       c->name, how, detail);
	sse_parser_free(&p);
}

static void test_cases(void)
{
	size_t i, k, len;
	char how[64];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = strlen(cases[i].input);
		run_case(&cases[i], len, false, "whole");
		run_case(&cases[i], 0, true, "byte by byte");
		for (k = 1; k < len; k++) {
			snprintf(how, sizeof(how), "split at %zu", k);
			run_case(&cases[i], k, false, how);
		}
	}
}

/* A CRLF split between two feeds is one line end, not two. */
static void test_split_crlf(void)
{
	struct sse_parser p;
	struct got g = {0};
	int rc;

	sse_parser_init(&p, 1024);
	rc = sse_parser_feed(&p, "data: a\r", 8, on_event, &g);
	rc |= sse_parser_feed(&p, "\ndata: b\r", 9, on_event, &g);
	rc |= sse_parser_feed(&p, "\n\r", 2, on_event, &g);
	rc |= sse_parser_feed(&p, "\n", 1, on_event, &g);
	expect(rc == 0 && !strcmp(g.text, "message||a\nb;"), "split CRLF", "three feeds", g.text);
	sse_parser_free(&p);
}

/* The callback's nonzero value stops the parse and comes back from feed. */
static void test_stop(void)
{
	struct sse_parser p;
	struct got g = {.stop_at = 1};
	int rc;

	sse_parser_init(&p, 1024);
	rc = sse_parser_feed(&p, "data: 1\n\ndata: 2\n\n", 18, on_event, &g);
	expect(rc == 7 && !strcmp(g.text, "message||1;"), "callback stops", "whole", g.text);
	sse_parser_free(&p);
}

/* After the cap is hit, every later feed fails: the stream is broken. */
static void test_failed_stays_failed(void)
{
	struct sse_parser p;
	struct got g = {0};
	int rc1, rc2;

	sse_parser_init(&p, 8);
	rc1 = sse_parser_feed(&p, "data: 0123456789\n\n", 18, on_event, &g);
	rc2 = sse_parser_feed(&p, "data: a\n\n", 9, on_event, &g);
	expect(rc1 == -E2BIG && rc2 == -E2BIG && !g.len, "cap is final", "two feeds", g.text);
	sse_parser_free(&p);
}

/* Binary junk and NULs neither crash nor leak; NUL inside an id is ignored. */
static void test_junk(void)
{
	static const char junk[] = "id: a\0b\ndata: \xff\xfe\x00z\n\n\x01\x02:\n";
	struct sse_parser p;
	struct got g = {0};
	int rc;

	sse_parser_init(&p, 1024);
	rc = sse_parser_feed(&p, junk, sizeof(junk) - 1, on_event, &g);
	expect(rc == 0 && g.n == 1 && !strcmp(sse_parser_last_id(&p), ""), "junk", "whole", g.text);
	sse_parser_free(&p);
}

int main(void)
{
	test_cases();
	test_split_crlf();
	test_stop();
	test_failed_stays_failed();
	test_junk();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
