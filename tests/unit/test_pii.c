/* pii/: validators, the scanner's offsets, tokens in text and JSON, the
 * vault on disk (0600, numbering by first appearance, shared by two opens)
 * and the refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/fsx.h"
#include "../../pii/pii.h"
#include "check.h"

static size_t valid(enum pii_validator w, const char *s)
{
	return pii_validate(w, s, strlen(s));
}

static void test_validators(void)
{
	CHECK(valid(PII_VALIDATE_CARD, "4111111111111111") == 16, "visa");
	CHECK(valid(PII_VALIDATE_CARD, "4111 1111 1111 1111") == 19, "visa spaced");
	CHECK(valid(PII_VALIDATE_CARD, "4111111111111112") == 0, "luhn fails");
	CHECK(valid(PII_VALIDATE_CARD, "4111-1111 1111-1111") == 0, "mixed separators");
	CHECK(valid(PII_VALIDATE_CARD, "378282246310005") == 15, "amex");
	CHECK(valid(PII_VALIDATE_CARD, "3782822463100050") == 0, "amex is 15 long");
	CHECK(valid(PII_VALIDATE_CARD, "4111 1111 1111 1111 2027") == 19, "cut at a group");
	CHECK(valid(PII_VALIDATE_CARD, "4111111111111111 12") == 16, "compact, then a number");
	CHECK(valid(PII_VALIDATE_CARD, "4111-1111-1111-1111 12") == 19, "dashes, then a number");
	CHECK(valid(PII_VALIDATE_CARD, "9111111111111111") == 0, "no issuer");
	CHECK(valid(PII_VALIDATE_CARD, "41111111111111113") == 0, "visa issues no 17 digits");
	CHECK(valid(PII_VALIDATE_CARD, "3782 822463 10005") == 17, "amex 4-6-5");
	CHECK(valid(PII_VALIDATE_CARD, "5678 9012 3456") == 14, "maestro 12");
	CHECK(valid(PII_VALIDATE_CARD, "56-9675-0287-69") == 0, "a serial's grouping");
	CHECK(valid(PII_VALIDATE_CARD, "56 967502 8769") == 0, "4-6-x is 15 or 14 long");
	CHECK(valid(PII_VALIDATE_SSN, "123-45-6789") == 11, "ssn");
	CHECK(valid(PII_VALIDATE_SSN, "000-45-6789") == 0, "area 000");
	CHECK(valid(PII_VALIDATE_SSN, "666-45-6789") == 0, "area 666");
	CHECK(valid(PII_VALIDATE_SSN, "912-45-6789") == 0, "area 9xx");
	CHECK(valid(PII_VALIDATE_SSN, "123-00-6789") == 0, "group 00");
	CHECK(valid(PII_VALIDATE_SSN, "123-45-0000") == 0, "serial 0000");
	CHECK(valid(PII_VALIDATE_IBAN, "DE89370400440532013000") == 22, "iban");
	CHECK(valid(PII_VALIDATE_IBAN, "DE89 3704 0044 0532 0130 00") == 27, "iban grouped");
	CHECK(valid(PII_VALIDATE_IBAN, "DE88370400440532013000") == 0, "check digits");
	CHECK(valid(PII_VALIDATE_IBAN, "DE8937040044053201300") == 0, "one short");
	CHECK(valid(PII_VALIDATE_IBAN, "GB82WEST12345698765432") == 22, "gb");
	CHECK(valid(PII_VALIDATE_IBAN, "AT61 1904 3002 3457 3201 2024") == 24, "then a number");
	CHECK(valid(PII_VALIDATE_IBAN, "AT61 1904 3002 3457 3201 9") == 0, "one character long");
	CHECK(valid(PII_VALIDATE_IBAN, "AT611904300234573201 9") == 20, "compact, then a digit");
	CHECK(valid(PII_VALIDATE_IP, "192.168.1.1") == 11, "v4");
	CHECK(valid(PII_VALIDATE_IP, "256.1.1.1") == 0, "v4 range");
	CHECK(valid(PII_VALIDATE_IP, "01.2.3.4") == 0, "v4 leading zero");
	CHECK(valid(PII_VALIDATE_IP, "2001:db8::1") == 11, "v6");
	CHECK(valid(PII_VALIDATE_IP, "00:1a:2b:3c:4d:5e") == 0, "mac");
	CHECK(valid(PII_VALIDATE_IP, "::") == 0, "unspecified");
	CHECK(valid(PII_VALIDATE_EMAIL, "a.b@example.com") == 15, "email");
	CHECK(valid(PII_VALIDATE_EMAIL, "logo@2x.png") == 0, "asset");
	CHECK(valid(PII_VALIDATE_EMAIL, "a..b@example.com") == 0, "double dot");
	CHECK(valid(PII_VALIDATE_EMAIL, "o'connor@example.ie") == 19, "apostrophe");
	CHECK(valid(PII_VALIDATE_PHONE, "(415) 555-2671") == 14, "nanp");
	CHECK(valid(PII_VALIDATE_PHONE, "(115) 555-2671") == 0, "area 1xx");
	CHECK(valid(PII_VALIDATE_PHONE, "+44 20 7946 0958") == 16, "e164");
	CHECK(valid(PII_VALIDATE_LUHN, "79927398713") == 11, "luhn");
}

static struct pii_scanner *scanner(struct pii_config *c, const char *custom)
{
	json_t *sec = custom ? json_loads(custom, 0, NULL) : json_object();
	struct err e = {0};
	struct pii_scanner *s;

	CHECK(pii_config_parse(sec, "test", c, &e) == 0, "config: %s", e.text);
	json_decref(sec);
	s = pii_scanner_new(c, &e);
	CHECK(s != NULL, "scanner: %s", e.text);
	return s;
}

static void test_scan(void)
{
	const char *t = "mail x.y@example.org, card 4111-1111-1111-1111; ip 10.0.0.1";
	struct pii_config c;
	struct pii_scanner *s = scanner(&c, NULL);
	struct pii_match *m = NULL;
	struct err e = {0};
	size_t n = 0;

	CHECK(pii_scan(s, t, strlen(t), &m, &n, &e) == 0, "scan: %s", e.text);
	CHECK(n == 3, "3 matches, got %zu", n);
	if (n == 3) {
		CHECK(m[0].kind == PII_EMAIL && m[0].start == 5 && m[0].end == 20, "email span");
		CHECK(m[1].kind == PII_CREDIT_CARD && m[1].start == 27 && m[1].end == 46, "card");
		CHECK(m[2].kind == PII_IP_ADDRESS && m[2].start == 51 && m[2].end == 59, "ip");
	}
	free(m);
	/* NUL bytes and bytes that are not UTF-8 are text like any other. */
	{
		const char bin[] = "\xff\xfe\0a@example.com\0\x80 123-45-6789";

		CHECK(pii_scan(s, bin, sizeof(bin) - 1, &m, &n, &e) == 0, "binary: %s", e.text);
		CHECK(n == 2 && m[0].start == 3 && m[1].kind == PII_SSN, "binary matches %zu", n);
		free(m);
	}
	/* An apostrophe inside the local part belongs to the address. */
	{
		const char *q = "Mail 'o'connor@example.ie'.";

		CHECK(pii_scan(s, q, strlen(q), &m, &n, &e) == 0 && n == 1 && m[0].start == 6 &&
			  m[0].end == 25,
		      "apostrophe: %zu", n);
		free(m);
	}
	pii_scanner_free(s);
	pii_config_free(&c);
	/* A kind switched off is not found; its tokens still parse. */
	s = scanner(&c, "{\"kinds\": {\"EMAIL\": false}}");
	CHECK(pii_scan(s, t, strlen(t), &m, &n, &e) == 0 && n == 2, "email off: %zu", n);
	CHECK(pii_kind_find(s, "EMAIL", 5) == PII_EMAIL, "off kind still known");
	free(m);
	pii_scanner_free(s);
	pii_config_free(&c);
	/* A pattern that backtracks without end stops at the match limit. */
	s = scanner(&c, "{\"custom\": [{\"name\": \"BAD\", \"regex\": \"(a|aa)+$\"}]}");
	{
		char bad[200];

		memset(bad, 'a', sizeof(bad));
		bad[sizeof(bad) - 1] = 'b';
		CHECK(pii_scan(s, bad, sizeof(bad), &m, &n, &e) < 0, "catastrophic: refused");
		CHECK(strstr(e.text, "BAD") && strstr(e.text, "limit"), "says why: %s", e.text);
	}
	pii_scanner_free(s);
	pii_config_free(&c);
}

static char *redact(struct pii_scanner *s, struct pii_vault *v, const char *in)
{
	struct err e = {0};
	struct buf b;

	buf_init(&b, 1 << 20);
	CHECK(pii_redact(s, v, in, strlen(in), &b, NULL, &e) == 0, "redact: %s", e.text);
	return buf_steal(&b, NULL);
}

static void test_tokens(const char *dir)
{
	char path[4096], *out, *text;
	struct pii_config c;
	struct pii_scanner *s = scanner(&c, NULL);
	struct pii_vault *v, *v2;
	struct err e = {0};
	struct stat st;
	struct buf b;
	json_t *j;
	size_t len;

	snprintf(path, sizeof(path), "%s/s1.vault", dir);
	v = pii_vault_open(path, &e);
	CHECK(v != NULL, "open: %s", e.text);
	out = redact(s, v, "b@example.com, a@example.com, b@example.com, 10.0.0.1");
	CHECK(!strcmp(out, "[EMAIL_1], [EMAIL_2], [EMAIL_1], [IP_ADDRESS_1]"), "tokens: %s", out);
	free(out);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "vault mode 0600");
	/* A second open of the same session (another process) sees the same
	 * tokens and continues the numbering. */
	v2 = pii_vault_open(path, &e);
	out = redact(s, v2, "c@example.com then a@example.com");
	CHECK(!strcmp(out, "[EMAIL_3] then [EMAIL_2]"), "shared: %s", out);
	free(out);
	buf_init(&b, 1 << 20);
	text = "to [EMAIL_3] and [EMAIL_1]; [NOTE_1] [EMAIL_01] [email_1] [EMAIL_] [EMAIL_1";
	CHECK(pii_restore(s, v, text, strlen(text), &b, &e) == 0, "restore: %s", e.text);
	CHECK(!strcmp(b.data, "to c@example.com and b@example.com; [NOTE_1] [EMAIL_01] [email_1] "
			      "[EMAIL_] [EMAIL_1"),
	      "restored: %s", b.data);
	buf_reset(&b);
	text = "send to [EMAIL_9]";
	CHECK(pii_restore(s, v, text, strlen(text), &b, &e) < 0, "unknown token refused");
	CHECK(strstr(e.text, "[EMAIL_9]") && !strstr(e.text, "@"), "names it: %s", e.text);
	buf_free(&b);
	/* The file holds the values, the errors never do. */
	CHECK(fsx_read(path, 1 << 20, &text, &len) == 0 && strstr(text, "c@example.com"),
	      "vault persisted");
	free(text);
	/* JSON: strings, JSON inside strings, keys, not image data. */
	j = json_loads(
	    "{\"content\": [{\"type\": \"text\", \"text\": \"{\\\"mail\\\": "
	    "\\\"a@example.com\\\"}\"}, {\"type\": \"image\", \"data\": \"d@example.com\"}],"
	    " \"structuredContent\": {\"x@example.com\": [\"a@example.com\", 3]}}",
	    0, NULL);
	CHECK(pii_redact_json(s, v, j, &e) == 0, "redact json: %s", e.text);
	text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	CHECK(!strcmp(text, "{\"content\":[{\"text\":\"{\\\"mail\\\":\\\"[EMAIL_2]\\\"}\",\"type\":"
			    "\"text\"},{\"data\":\"d@example.com\",\"type\":\"image\"}],"
			    "\"structuredContent\":{\"[EMAIL_4]\":[\"[EMAIL_2]\",3]}}"),
	      "json: %s", text);
	free(text);
	CHECK(pii_restore_json(s, v, j, &e) == 0, "restore json: %s", e.text);
	CHECK(!strcmp(json_string_value(json_array_get(
			  json_object_get(json_object_get(j, "structuredContent"), "x@example.com"),
			  0)),
		      "a@example.com"),
	      "restored in json");
	json_decref(j);
	pii_vault_free(v2);
	pii_vault_free(v);
	/* A vault in memory: same rules, no file. */
	v = pii_vault_open(NULL, &e);
	out = redact(s, v, "+44 20 7946 0958 / +44 20 7946 0958");
	CHECK(!strcmp(out, "[PHONE_1] / [PHONE_1]"), "memory vault: %s", out);
	free(out);
	pii_vault_free(v);
	/* Not a vault: a clear error. */
	snprintf(path, sizeof(path), "%s/bad.vault", dir);
	fsx_write_atomic(path, "[1,2]", 5, 0600);
	CHECK(pii_vault_open(path, &e) == NULL && strstr(e.text, "not a vault"), "bad: %s", e.text);
	pii_scanner_free(s);
	pii_config_free(&c);
}

static char *dump(json_t *j)
{
	return json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* Redact @in (JSON text) with @v: the result as compact text (free it). */
static char *redact_text(struct pii_scanner *s, struct pii_vault *v, const char *in)
{
	json_t *j = json_loads(in, 0, NULL);
	struct err e = {0};
	char *out;

	CHECK(j != NULL, "input parses: %s", in);
	CHECK(pii_redact_json(s, v, j, &e) == 0, "redact %s: %s", in, e.text);
	out = dump(j);
	json_decref(j);
	return out;
}

static char *restore_text(struct pii_scanner *s, struct pii_vault *v, const char *in)
{
	json_t *j = json_loads(in, 0, NULL);
	struct err e = {0};
	char *out;

	CHECK(pii_restore_json(s, v, j, &e) == 0, "restore %s: %s", in, e.text);
	out = dump(j);
	json_decref(j);
	return out;
}

static int number_kind(struct pii_scanner *s, const char *digits, const char *key)
{
	struct err e = {0};
	int kind = -2;

	CHECK(pii_scan_number(s, digits, strlen(digits), key, key ? strlen(key) : 0, &kind, &e) ==
		  0,
	      "scan number: %s", e.text);
	return kind;
}

/* Values held in JSON numbers and in object keys: tokenized like strings,
 * and a token where a number was goes back as the number. */
static void test_numbers_and_keys(const char *dir)
{
	char path[4096], *out, *text;
	struct pii_config c;
	struct pii_scanner *s = scanner(&c, NULL);
	struct pii_vault *v;
	struct err e = {0};
	json_t *j;
	size_t len;

	/* The digits decide a card; a phone or an SSN needs a member named
	 * for it, since a size in bytes or an order number looks the same. */
	CHECK(number_kind(s, "4111111111111111", NULL) == PII_CREDIT_CARD, "card");
	CHECK(number_kind(s, "4111111111111112", "card") == -1, "luhn fails");
	CHECK(number_kind(s, "4155552671", NULL) == -1, "ten digits alone");
	CHECK(number_kind(s, "4155552671", "size_bytes") == -1, "a size");
	CHECK(number_kind(s, "4155552671", "phone") == PII_PHONE, "phone");
	CHECK(number_kind(s, "447911123456", "contactPhone") == PII_PHONE, "camelCase");
	CHECK(number_kind(s, "14155552671", "mobile_no") == PII_PHONE, "mobile");
	CHECK(number_kind(s, "14155552671", "Tel") == PII_PHONE, "tel");
	CHECK(number_kind(s, "14155552671", "fax2") == PII_PHONE, "fax2");
	CHECK(number_kind(s, "14155552671", "hotel") == -1, "hotel is no tel");
	CHECK(number_kind(s, "14155552671", "cells") == -1, "cells are no cell");
	CHECK(number_kind(s, "4155", "phone") == -1, "too short for a phone");
	CHECK(number_kind(s, "1234567890123456", "phone") == -1, "too long for a phone");
	CHECK(number_kind(s, "123456789", "SSN") == PII_SSN, "ssn");
	CHECK(number_kind(s, "12345678", "social_security_number") == PII_SSN, "leading zero");
	CHECK(number_kind(s, "666123456", "ssn") == -1, "area 666");
	CHECK(number_kind(s, "123456789", "id") == -1, "nine digits alone");

	snprintf(path, sizeof(path), "%s/numbers.vault", dir);
	v = pii_vault_open(path, &e);
	CHECK(v != NULL, "open: %s", e.text);
	out = redact_text(
	    s, v,
	    "{\"card\": 4111111111111111, \"count\": 4111111111111112, \"phone\": 4155552671, "
	    "\"size\": 4155552671, \"ssn\": 123456789, \"phones\": [4155552672, 12], "
	    "\"neg\": -4111111111111111, \"real\": 4111111111111111.0, "
	    "\"a\": 1, \"alice@example.com\": {\"bob@example.com\": 5555555555554444}, \"z\": 2, "
	    "\"text\": \"{\\\"card\\\": 4111111111111111}\"}");
	CHECK(!strcmp(out, "{\"card\":\"[CREDIT_CARD_1]\",\"count\":4111111111111112,"
			   "\"phone\":\"[PHONE_1]\",\"size\":4155552671,\"ssn\":\"[SSN_1]\","
			   "\"phones\":[\"[PHONE_2]\",12],\"neg\":-4111111111111111,"
			   "\"real\":4111111111111111.0,\"a\":1,"
			   "\"[EMAIL_1]\":{\"[EMAIL_2]\":\"[CREDIT_CARD_2]\"},\"z\":2,"
			   "\"text\":\"{\\\"card\\\":\\\"[CREDIT_CARD_1]\\\"}\"}"),
	      "numbers and keys, in order: %s", out);
	free(out);
	/* The vault marks what was a number; the mark is on disk for the
	 * next process. */
	CHECK(fsx_read(path, 1 << 20, &text, &len) == 0 &&
		  strstr(text, "\"number\":true,\"value\":\"4111111111111111\""),
	      "marked: %s", text);
	free(text);
	pii_vault_free(v);
	v = pii_vault_open(path, &e);
	/* Where a number was, the token alone goes back as it; in text, as
	 * its digits; a key as the key. */
	out = restore_text(s, v,
			   "{\"to\": \"[CREDIT_CARD_1]\", \"note\": \"card [CREDIT_CARD_1]\", "
			   "\"[EMAIL_1]\": [\"[PHONE_1]\", \"[SSN_1]\"], "
			   "\"text\": \"{\\\"card\\\": \\\"[CREDIT_CARD_1]\\\"}\"}");
	CHECK(!strcmp(out, "{\"to\":4111111111111111,\"note\":\"card 4111111111111111\","
			   "\"alice@example.com\":[4155552671,123456789],"
			   "\"text\":\"{\\\"card\\\":4111111111111111}\"}"),
	      "restored: %s", out);
	free(out);
	/* A value first seen as text, then as a number: marked from then on. */
	out = redact_text(s, v, "{\"t\": \"5500 0000 0000 0004\", \"u\": \"5500000000000004\"}");
	CHECK(!strcmp(out, "{\"t\":\"[CREDIT_CARD_3]\",\"u\":\"[CREDIT_CARD_4]\"}"), "text: %s",
	      out);
	free(out);
	out = restore_text(s, v, "[\"[CREDIT_CARD_4]\"]");
	CHECK(!strcmp(out, "[\"5500000000000004\"]"), "still text: %s", out);
	free(out);
	out = redact_text(s, v, "{\"n\": 5500000000000004}");
	CHECK(!strcmp(out, "{\"n\":\"[CREDIT_CARD_4]\"}"), "same token: %s", out);
	free(out);
	out = restore_text(s, v, "[\"[CREDIT_CARD_4]\", \"[CREDIT_CARD_3]\"]");
	CHECK(!strcmp(out, "[5500000000000004,\"5500 0000 0000 0004\"]"), "now a number: %s", out);
	free(out);
	pii_vault_free(v);

	/* Keys stay unique: a key that would take another's name fails, and
	 * the error names no value. */
	v = pii_vault_open(NULL, &e);
	j = json_loads("{\"x@example.com\": 1, \"[EMAIL_1]\": 2}", 0, NULL);
	CHECK(pii_redact_json(s, v, j, &e) < 0 && strstr(e.text, "same once tokenized") &&
		  !strchr(e.text, '@'),
	      "collision: %s", e.text);
	json_decref(j);
	j = json_loads("{\"[EMAIL_1]\": 1, \"x@example.com\": 2}", 0, NULL);
	CHECK(pii_restore_json(s, v, j, &e) < 0 && strstr(e.text, "same once restored") &&
		  !strchr(e.text, '@'),
	      "restore collision: %s", e.text);
	json_decref(j);
	/* A token of another session in a key is refused like one in a value. */
	j = json_loads("{\"[EMAIL_7]\": 1}", 0, NULL);
	CHECK(pii_restore_json(s, v, j, &e) < 0 && strstr(e.text, "[EMAIL_7] is not a token"),
	      "unknown key token: %s", e.text);
	json_decref(j);
	pii_vault_free(v);
	pii_scanner_free(s);
	pii_config_free(&c);

	/* A custom pattern sees every number; a kind switched off sees none. */
	s = scanner(&c, "{\"kinds\": {\"PHONE\": false}, \"custom\": [{\"name\": \"EMPLOYEE\", "
			"\"regex\": \"\\\\b9[0-9]{5}\\\\b\"}]}");
	v = pii_vault_open(NULL, &e);
	out = redact_text(s, v, "{\"emp\": 912345, \"phone\": 4155552671, \"n\": 812345}");
	CHECK(!strcmp(out, "{\"emp\":\"[EMPLOYEE_1]\",\"phone\":4155552671,\"n\":812345}"),
	      "custom and off: %s", out);
	free(out);
	pii_vault_free(v);
	pii_scanner_free(s);
	pii_config_free(&c);
}

static void test_config(void)
{
	static const char *const bad[] = {
	    "{\"enabled\": 1}",
	    "{\"kinds\": {\"EMAILS\": true}}",
	    "{\"custom\": [{\"name\": \"EMAIL\", \"regex\": \"x\"}]}",
	    "{\"custom\": [{\"name\": \"X\", \"regex\": \"x\", \"validator\": \"nope\"}]}",
	    "{\"exempt\": [\"nosuch\"]}",
	    "{\"customers\": {\"acme\": \"yes\"}}",
	    "{\"colour\": true}",
	};
	struct pii_config c;
	struct err e = {0};
	json_t *j;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j = json_loads(bad[i], 0, NULL);
		CHECK(pii_config_parse(j, "cfg", &c, &e) < 0 && e.status == EXIT_USAGE &&
			  !strchr(e.text, '\n'),
		      "bad config %s", bad[i]);
		json_decref(j);
	}
	j = json_loads("{\"enabled\": false, \"customers\": {\"acme\": true}, \"exempt\": "
		       "[\"memory/read_graph\", \"files/*\"]}",
		       0, NULL);
	CHECK(pii_config_parse(j, "cfg", &c, &e) == 0, "good: %s", e.text);
	CHECK(pii_config_active(&c, "acme") && !pii_config_active(&c, NULL), "per customer");
	CHECK(pii_config_exempt(&c, "memory", "read_graph") &&
		  pii_config_exempt(&c, "files", "x") &&
		  !pii_config_exempt(&c, "memory", "search_nodes") &&
		  !pii_config_exempt(&c, "mem", "read_graph"),
	      "exemptions");
	pii_config_free(&c);
	json_decref(j);
	CHECK(pii_config_parse(NULL, "cfg", &c, &e) == 0 && !c.enabled, "no section: off");
	pii_config_free(&c);
}

int main(void)
{
	char dir[] = "/tmp/mcpfs-test-pii-XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	test_validators();
	test_scan();
	test_tokens(dir);
	test_numbers_and_keys(dir);
	test_config();
	fsx_remove_tree(dir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
