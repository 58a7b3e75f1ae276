/* The detectors: one pcre2 pattern per kind, JIT-compiled, each followed by
 * its validator. Running six patterns over every byte would cost six passes,
 * so one pass finds "anchors" first (digits, '@', ':'): every built-in match
 * has one within a few bytes of its start. Anchors closer than ANCHOR_GAP
 * form a cluster, and each kind's pattern runs only from just before a
 * cluster that could hold it, with pcre2's offset limit stopping it from
 * starting past the cluster (it may end beyond). Custom patterns have no
 * known anchor and run over the whole text. pcre2's match and depth limits
 * bound a pattern that backtracks catastrophically: the scan then fails
 * (callers fail closed), it never hangs. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pii.h"

#define ANCHOR_GAP 5		/* bytes between anchors of one cluster */
#define MATCH_LIMIT 10000000u	/* pcre2 backtracking steps per match attempt */
#define DEPTH_LIMIT 100000u	/* pcre2 backtracking depth */
#define MATCHES_MAX (16u << 20) /* matches in one text */

/* What every built-in pattern looks for before and after itself: not in the
 * middle of a longer word, number, path or dotted sequence. */
#define NB_ "(?<![A-Za-z0-9_\\-./])"
#define NA_ "(?![A-Za-z0-9_\\-]|\\.[A-Za-z0-9])"

enum anchor {
	ANCHOR_DIGIT = 1,
	ANCHOR_AT = 2,
	ANCHOR_COLON = 4,
};

/* What a cluster holds, counted in the anchor pass: enough to tell which
 * kinds could have a match whose first anchor is in it. Every byte of such a
 * match between its first and last anchor is in the cluster. */
struct shape {
	unsigned digits, dots, colons;
	bool at;    /* an '@' */
	bool plus;  /* a digit right after '+' (E.164) */
	bool caps2; /* a digit right after two capitals (an IBAN's start) */
};

static bool could_email(const struct shape *c)
{
	return c->at;
}

static bool could_phone(const struct shape *c)
{
	return c->digits >= 10 || (c->plus && c->digits >= 8);
}

static bool could_ssn(const struct shape *c)
{
	return c->digits >= 9;
}

static bool could_card(const struct shape *c)
{
	return c->digits >= 12;
}

static bool could_ip(const struct shape *c)
{
	return (c->digits >= 4 && c->dots >= 3) || c->colons >= 2;
}

static bool could_iban(const struct shape *c)
{
	return c->caps2 && c->digits >= 2;
}

static const struct builtin {
	const char *name;
	const char *regex;
	enum pii_validator validator;
	unsigned lead; /* most bytes from a match's start to its first anchor */
	bool (*could)(const struct shape *c);
} builtins[PII_NBUILTIN] = {
    [PII_EMAIL] =
	{"EMAIL",
	 "(?<![A-Za-z0-9._%+\\-/@])[A-Za-z0-9][A-Za-z0-9._%+\\-']{0,63}"
	 "@(?:[A-Za-z0-9](?:[A-Za-z0-9\\-]{0,61}[A-Za-z0-9])?\\.)+"
	 "(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9\\-]{1,59})(?![A-Za-z0-9_\\-@:/]|\\.[A-Za-z0-9])",
	 PII_VALIDATE_EMAIL, 64, could_email},
    /* North American with separators, or + and a country code (E.164). A
     * bare run of ten digits is an order number far more often. */
    [PII_PHONE] = {"PHONE",
		   "(?<![A-Za-z0-9_\\-./+])(?:"
		   "(?:\\+?1[ .\\-]?)?(?:\\([2-9][0-9]{2}\\)[ .\\-]?|[2-9][0-9]{2}[ .\\-])"
		   "[2-9][0-9]{2}[ .\\-][0-9]{4}"
		   "|\\+[1-9][0-9]{0,2}(?:[ .\\-]?(?:\\([0-9]{1,5}\\)|[0-9]{1,5})){1,6}"
		   ")" NA_,
		   PII_VALIDATE_PHONE, 2, could_phone},
    /* One delimiter, the same twice: mixed forms are refused here. */
    [PII_SSN] = {"SSN", NB_ "[0-9]{3}([\\- ])[0-9]{2}\\1[0-9]{4}" NA_, PII_VALIDATE_SSN, 0,
		 could_ssn},
    /* Not the middle of a longer run of digit groups (an IBAN's account). */
    [PII_CREDIT_CARD] = {"CREDIT_CARD", NB_ "(?<![0-9][ \\-])[0-9](?:[ \\-]?[0-9]){11,18}" NA_,
			 PII_VALIDATE_CARD, 0, could_card},
    [PII_IP_ADDRESS] = {"IP_ADDRESS",
			"(?<![A-Za-z0-9_\\-.:])(?:"
			"[0-9]{1,3}(?:\\.[0-9]{1,3}){3}(?![A-Za-z0-9_\\-]|\\.[0-9])"
			"|(?:[0-9A-Fa-f]{1,4}:|:)(?:[0-9A-Fa-f]{0,4}:){1,7}"
			"(?:[0-9]{1,3}(?:\\.[0-9]{1,3}){3}|[0-9A-Fa-f]{1,4})?"
			"(?![A-Za-z0-9_\\-:]|\\.[0-9]))",
			PII_VALIDATE_IP, 5, could_ip},
    [PII_IBAN] = {"IBAN", NB_ "[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])",
		  PII_VALIDATE_IBAN, 2, could_iban},
};

struct detector {
	char name[PII_NAME_MAX + 1];
	const char *regex; /* borrowed from the config, for a custom pattern */
	pcre2_code *code;
	enum pii_validator validator;
	bool on;
	const struct builtin *b; /* NULL for a custom pattern */
};

struct pii_scanner {
	struct detector *d;
	size_t n;
};

static const unsigned char anchor_of[256] = {
    ['0'] = ANCHOR_DIGIT, ['1'] = ANCHOR_DIGIT, ['2'] = ANCHOR_DIGIT, ['3'] = ANCHOR_DIGIT,
    ['4'] = ANCHOR_DIGIT, ['5'] = ANCHOR_DIGIT, ['6'] = ANCHOR_DIGIT, ['7'] = ANCHOR_DIGIT,
    ['8'] = ANCHOR_DIGIT, ['9'] = ANCHOR_DIGIT, ['@'] = ANCHOR_AT,    [':'] = ANCHOR_COLON,
};

void pii_scanner_free(struct pii_scanner *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		pcre2_code_free(s->d[i].code);
	free(s->d);
	free(s);
}

static int compile(struct detector *d, const char *regex, struct err *err)
{
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	int ec;

	d->code = pcre2_compile((PCRE2_SPTR)regex, PCRE2_ZERO_TERMINATED, PCRE2_USE_OFFSET_LIMIT,
				&ec, &off, NULL);
	if (!d->code) {
		pcre2_get_error_message(ec, msg, sizeof(msg));
		return err_set(err, EXIT_USAGE, "pii: pattern %s: %s at offset %zu", d->name,
			       (const char *)msg, (size_t)off);
	}
	/* Without JIT (a host that forbids executable memory) the interpreter
	 * gives the same answers, slower. */
	pcre2_jit_compile(d->code, PCRE2_JIT_COMPLETE);
	return 0;
}

struct pii_scanner *pii_scanner_new(const struct pii_config *cfg, struct err *err)
{
	struct pii_scanner *s = calloc(1, sizeof(*s));
	size_t i;

	if (!s || !(s->d = calloc(PII_NBUILTIN + cfg->ncustom, sizeof(*s->d)))) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out_free;
	}
	for (i = 0; i < PII_NBUILTIN; i++, s->n++) {
		struct detector *d = &s->d[s->n];

		snprintf(d->name, sizeof(d->name), "%s", builtins[i].name);
		d->validator = builtins[i].validator;
		d->on = cfg->kinds[i];
		d->b = &builtins[i];
		if (compile(d, builtins[i].regex, err) < 0)
			goto out_free;
	}
	for (i = 0; i < cfg->ncustom; i++, s->n++) {
		struct detector *d = &s->d[s->n];

		snprintf(d->name, sizeof(d->name), "%s", cfg->custom[i].name);
		d->validator = cfg->custom[i].validator;
		d->regex = cfg->custom[i].regex;
		d->on = true;
		if (compile(d, cfg->custom[i].regex, err) < 0) {
			s->n++;
			goto out_free;
		}
	}
	return s;
out_free:
	pii_scanner_free(s);
	return NULL;
}

const char *pii_kind_name(const struct pii_scanner *s, int kind)
{
	return kind >= 0 && (size_t)kind < s->n ? s->d[kind].name : NULL;
}

const char *pii_kind_regex(const struct pii_scanner *s, int kind)
{
	if (kind < 0 || (size_t)kind >= s->n)
		return NULL;
	return s->d[kind].b ? s->d[kind].b->regex : s->d[kind].regex;
}

bool pii_kind_on(const struct pii_scanner *s, int kind)
{
	return kind >= 0 && (size_t)kind < s->n && s->d[kind].on;
}

int pii_kind_count(const struct pii_scanner *s)
{
	return (int)s->n;
}

int pii_kind_find(const struct pii_scanner *s, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strlen(s->d[i].name) == len && !memcmp(s->d[i].name, name, len))
			return (int)i;
	return -1;
}

/* The state of one scan: its own match data and context (the offset limit
 * changes per cluster), and the matches found so far. */
struct scan {
	const struct pii_scanner *s;
	const char *text;
	size_t len;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	struct pii_match *m;
	size_t n, cap;
	size_t *next; /* per detector: where its next search may start */
	struct err *err;
};

static int add(struct scan *sc, size_t start, size_t end, int kind)
{
	struct pii_match *m;
	size_t cap;

	if (sc->n == sc->cap) {
		if (sc->cap >= MATCHES_MAX)
			return err_set(sc->err, EXIT_FAILED, "pii: more than %u values in one text",
				       MATCHES_MAX);
		cap = sc->cap ? sc->cap * 2 : 64;
		m = realloc(sc->m, cap * sizeof(*m));
		if (!m)
			return err_set(sc->err, EXIT_FAILED, "out of memory");
		sc->m = m;
		sc->cap = cap;
	}
	sc->m[sc->n++] = (struct pii_match){start, end, kind};
	return 0;
}

/* Run detector @k from @from, starting no later than @limit (SIZE_MAX: any
 * start), adding what validates. */
static int run(struct scan *sc, size_t k, size_t from, size_t limit)
{
	const struct detector *d = &sc->s->d[k];
	PCRE2_SIZE *ov;
	size_t start, end, ok;
	int rc;

	pcre2_set_offset_limit(sc->mc, limit == SIZE_MAX ? PCRE2_UNSET : limit);
	while (from <= sc->len && (limit == SIZE_MAX || from <= limit)) {
		rc = pcre2_match(d->code, (PCRE2_SPTR)sc->text, sc->len, from, 0, sc->md, sc->mc);
		if (rc == PCRE2_ERROR_NOMATCH)
			break;
		if (rc < 0) {
			PCRE2_UCHAR msg[128];

			pcre2_get_error_message(rc, msg, sizeof(msg));
			return err_set(sc->err, EXIT_FAILED, "pii: pattern %s near byte %zu: %s",
				       d->name, from, (const char *)msg);
		}
		ov = pcre2_get_ovector_pointer(sc->md);
		start = ov[0];
		end = ov[1];
		ok = end > start ? pii_validate(d->validator, sc->text + start, end - start) : 0;
		if (ok) {
			if (add(sc, start, start + ok, (int)k) < 0)
				return -1;
			from = start + ok;
		} else {
			from = start + 1;
		}
		sc->next[k] = from;
	}
	if (limit != SIZE_MAX && sc->next[k] < limit + 1)
		sc->next[k] = limit + 1;
	return 0;
}

/* One cluster of anchors [first, last]: the built-in kinds it could start. */
static int cluster(struct scan *sc, size_t first, size_t last, const struct shape *c)
{
	const struct builtin *b;
	size_t k, from;

	for (k = 0; k < PII_NBUILTIN; k++) {
		b = sc->s->d[k].b;
		if (!sc->s->d[k].on || !b->could(c))
			continue;
		from = first > b->lead ? first - b->lead : 0;
		if (from < sc->next[k])
			from = sc->next[k];
		if (from > last)
			continue;
		if (run(sc, k, from, last) < 0)
			return -1;
	}
	return 0;
}

static int anchors_pass(struct scan *sc)
{
	const unsigned char *t = (const unsigned char *)sc->text;
	size_t i = 0, first, last;
	struct shape c;
	unsigned a;

	for (;;) {
		while (i < sc->len && !anchor_of[t[i]])
			i++;
		if (i >= sc->len)
			return 0;
		first = last = i;
		memset(&c, 0, sizeof(c));
		while (i < sc->len && i - last <= ANCHOR_GAP) {
			a = anchor_of[t[i]];
			if (a == ANCHOR_DIGIT) {
				c.digits++;
				c.plus |= i >= 1 && t[i - 1] == '+';
				c.caps2 |= i >= 2 && t[i - 1] >= 'A' && t[i - 1] <= 'Z' &&
					   t[i - 2] >= 'A' && t[i - 2] <= 'Z';
			} else if (a == ANCHOR_AT) {
				c.at = true;
			} else if (a == ANCHOR_COLON) {
				c.colons++;
			} else if (t[i] == '.') {
				c.dots++;
			}
			if (a)
				last = i;
			i++;
		}
		if (cluster(sc, first, last, &c) < 0)
			return -1;
		i = last + 1;
	}
}

static int by_start(const void *a, const void *b)
{
	const struct pii_match *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the longer first */
	return x->kind - y->kind;
}

/* Sort, then keep the first of overlapping matches (the earliest start, then
 * the longest). */
static void resolve(struct scan *sc)
{
	size_t i, n = 0, end = 0;

	if (sc->n == 0)
		return;
	qsort(sc->m, sc->n, sizeof(*sc->m), by_start);
	for (i = 0; i < sc->n; i++) {
		if (n && sc->m[i].start < end)
			continue;
		sc->m[n++] = sc->m[i];
		end = sc->m[i].end;
	}
	sc->n = n;
}

int pii_scan(const struct pii_scanner *s, const char *text, size_t len, struct pii_match **out,
	     size_t *n, struct err *err)
{
	struct scan sc = {.s = s, .text = text, .len = len, .err = err};
	size_t k;
	int rc = -1;

	sc.md = pcre2_match_data_create(20, NULL);
	sc.mc = pcre2_match_context_create(NULL);
	sc.next = calloc(s->n, sizeof(*sc.next));
	if (!sc.md || !sc.mc || !sc.next) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out_free;
	}
	pcre2_set_match_limit(sc.mc, MATCH_LIMIT);
	pcre2_set_depth_limit(sc.mc, DEPTH_LIMIT);
	if (anchors_pass(&sc) < 0)
		goto out_free;
	for (k = PII_NBUILTIN; k < s->n; k++)
		if (run(&sc, k, 0, SIZE_MAX) < 0)
			goto out_free;
	resolve(&sc);
	*out = sc.m;
	*n = sc.n;
	sc.m = NULL;
	rc = 0;
out_free:
	free(sc.m);
	free(sc.next);
	pcre2_match_context_free(sc.mc);
	pcre2_match_data_free(sc.md);
	return rc;
}
