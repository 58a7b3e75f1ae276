/* What a bare JSON number holds. A number has no room for the marks that
 * make text a value ('+', separators, dashes), so its digits alone decide
 * only what needs none of them: a card (issuer, length, Luhn) and custom
 * patterns. A phone or an SSN without its marks is just digits, like an
 * order number or a size in bytes; there the member's name is the evidence
 * ("phone": 4155552671, "ssn": 123456789). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pii.h"

#define KEY_WORD_MAX 32
#define CARD_DIGITS_MIN 12 /* the fewest digits a built-in value has with no marks */

/* Names that say what a number is: a part of the lower-cased name with its
 * separators dropped ("within"), or one of its words ("words"), both lists
 * '|'-delimited. */
static const struct {
	int kind;
	const char *within;
	const char *words;
} hints[] = {
    {PII_PHONE, "|phone|mobile|msisdn|", "|tel|cell|fax|"},
    {PII_SSN, "|socialsecurity|", "|ssn|"},
};

static bool listed(const char *list, const char *w, size_t n)
{
	const char *p = list;

	while ((p = strchr(p, '|')) && p[1]) {
		if (!strncmp(p + 1, w, n) && p[1 + n] == '|')
			return true;
		p++;
	}
	return false;
}

static bool within(const char *list, const char *flat)
{
	const char *p = list, *q;

	while ((p = strchr(p, '|')) && (q = strchr(p + 1, '|'))) {
		if (memmem(flat, strlen(flat), p + 1, (size_t)(q - p - 1)))
			return true;
		p = q;
	}
	return false;
}

/* Does @key name @h's kind? Words split at separators, at a lower-case
 * letter followed by a capital (camelCase) and between letters and digits. */
static bool key_names(size_t h, const char *key, size_t len)
{
	char flat[256], word[KEY_WORD_MAX + 1];
	size_t i, nf = 0, nw = 0;
	bool brk;

	for (i = 0; i <= len; i++) {
		unsigned char c = i < len ? (unsigned char)key[i] : 0;

		brk = !isalnum(c) || (i > 0 && islower((unsigned char)key[i - 1]) && isupper(c)) ||
		      (i > 0 && !!isdigit((unsigned char)key[i - 1]) != !!isdigit(c));
		if (brk && nw) {
			if (nw <= KEY_WORD_MAX && listed(hints[h].words, word, nw))
				return true;
			nw = 0;
		}
		if (!isalnum(c))
			continue;
		if (nw < KEY_WORD_MAX)
			word[nw] = (char)tolower(c);
		nw++;
		if (nf < sizeof(flat) - 1)
			flat[nf++] = (char)tolower(c);
	}
	flat[nf] = 0;
	return within(hints[h].within, flat);
}

/* @digits as a value of @kind when nothing but the member's name marks it:
 * a phone is E.164 without its '+' (8 to 15 digits, a country code not
 * starting with 0); an SSN lost its leading zeros as a number. */
static bool bare_is(int kind, const char *digits, size_t len)
{
	char t[24];

	if (len + 1 >= sizeof(t))
		return false;
	if (kind == PII_PHONE) {
		t[0] = '+';
		memcpy(t + 1, digits, len);
		return pii_validate(PII_VALIDATE_PHONE, t, len + 1) == len + 1;
	}
	if (kind == PII_SSN && len <= 9) {
		memset(t, '0', 9 - len);
		memcpy(t + 9 - len, digits, len);
		return pii_validate(PII_VALIDATE_SSN, t, 9) == 9;
	}
	return false;
}

int pii_scan_number(const struct pii_scanner *s, const char *digits, size_t len, const char *key,
		    size_t keylen, int *kind, struct err *err)
{
	struct pii_match *m = NULL;
	size_t n = 0, h;

	*kind = -1;
	/* Most numbers are short counts and ids: no scan unless one could match. */
	if ((len >= CARD_DIGITS_MIN || pii_kind_count(s) > PII_NBUILTIN) &&
	    pii_scan(s, digits, len, &m, &n, err) < 0)
		return -1;
	if (n == 1 && m[0].start == 0 && m[0].end == len)
		*kind = m[0].kind;
	free(m);
	for (h = 0; *kind < 0 && key && h < sizeof(hints) / sizeof(hints[0]); h++)
		if (pii_kind_on(s, hints[h].kind) && key_names(h, key, keylen) &&
		    bare_is(hints[h].kind, digits, len))
			*kind = hints[h].kind;
	return 0;
}
