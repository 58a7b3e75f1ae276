/* The checks a regex cannot make: Luhn and issuer ranges for cards, mod-97
 * and the country's length for IBANs, the never-issued SSN ranges, a real
 * parse for IP addresses (inet_pton), the shape of a top-level domain.
 * Each returns how many bytes from the start form a valid value: a match may
 * be cut back to a group boundary (a card followed by a year). */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "pii.h"

#define DIGITS_MAX 40

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The digits of @p[0..@len) into @d (at most DIGITS_MAX). */
static size_t digits_of(const char *p, size_t len, char *d)
{
	size_t i, n = 0;

	for (i = 0; i < len && n < DIGITS_MAX; i++)
		if (is_digit(p[i]))
			d[n++] = p[i];
	return n;
}

static bool luhn(const char *d, size_t n)
{
	unsigned sum = 0, x;
	size_t i;

	for (i = 0; i < n; i++) {
		x = (unsigned)(d[n - 1 - i] - '0');
		if (i % 2) {
			x *= 2;
			if (x > 9)
				x -= 9;
		}
		sum += x;
	}
	return n > 0 && sum % 10 == 0;
}

static unsigned prefix(const char *d, size_t k)
{
	unsigned v = 0;
	size_t i;

	for (i = 0; i < k; i++)
		v = v * 10 + (unsigned)(d[i] - '0');
	return v;
}

/* A set of card lengths: one bit per length. */
#define LEN(n) (1u << (n))
#define LENS(a, b) ((1u << ((b) + 1)) - (1u << (a)))

/* Issuer identification ranges and the lengths they issue (ISO/IEC 7812 as
 * the networks publish them). */
static const struct issuer {
	unsigned lo, hi; /* prefix range of @k digits */
	unsigned k;
	unsigned lengths;
} issuers[] = {
    {4, 4, 1, LEN(13) | LEN(16) | LEN(19)}, /* Visa */
    {51, 55, 2, LEN(16)},		    /* Mastercard */
    {2221, 2720, 4, LEN(16)},		    /* Mastercard 2-series */
    {34, 34, 2, LEN(15)},		    /* American Express */
    {37, 37, 2, LEN(15)},		    /* American Express */
    {6011, 6011, 4, LENS(16, 19)},	    /* Discover */
    {644, 649, 3, LENS(16, 19)},	    /* Discover */
    {65, 65, 2, LENS(16, 19)},		    /* Discover */
    {300, 305, 3, LENS(14, 19)},	    /* Diners Club */
    {36, 36, 2, LENS(14, 19)},		    /* Diners Club */
    {38, 39, 2, LENS(14, 19)},		    /* Diners Club */
    {3528, 3589, 4, LENS(16, 19)},	    /* JCB */
    {62, 62, 2, LENS(16, 19)},		    /* UnionPay */
    {50, 50, 2, LENS(12, 19)},		    /* Maestro */
    {56, 58, 2, LENS(12, 19)},		    /* Maestro */
    {639, 639, 3, LENS(12, 19)},	    /* Maestro */
    {6759, 6759, 4, LENS(12, 19)},	    /* Maestro UK */
};

static bool card_digits_ok(const char *d, size_t n)
{
	size_t i;

	if (n < 12 || n > 19)
		return false;
	for (i = 0; i < sizeof(issuers) / sizeof(issuers[0]); i++) {
		unsigned p = prefix(d, issuers[i].k);

		if (p >= issuers[i].lo && p <= issuers[i].hi && (issuers[i].lengths & LEN(n)))
			return luhn(d, n);
	}
	return false;
}

/* Printed cards come in groups of four (the last may be shorter), or as
 * 4-6-5 and 4-6-4 (American Express, Diners) or 4-3-3-3 (13 digits): a
 * serial written 2-4-4-2 is not one. */
static bool card_groups(const char *p, size_t len)
{
	static const unsigned char wide[][4] = {{4, 6, 5, 0}, {4, 6, 4, 0}, {4, 3, 3, 3}};
	unsigned char g[DIGITS_MAX];
	size_t i, n = 0, k;
	bool fours = true;

	g[0] = 0;
	for (i = 0; i < len && n < DIGITS_MAX; i++) {
		if (is_digit(p[i]))
			g[n]++;
		else if (++n < DIGITS_MAX)
			g[n] = 0;
	}
	if (++n == 1)
		return true; /* compact: a number after it was cut off */
	for (i = 0; i + 1 < n; i++)
		fours &= g[i] == 4;
	if (fours && g[n - 1] >= 1 && g[n - 1] <= 4)
		return true;
	for (k = 0; k < sizeof(wide) / sizeof(wide[0]); k++) {
		for (i = 0; i < n && i < 4 && g[i] == wide[k][i]; i++)
			;
		if (i == n && (n == 4 || !wide[k][n]))
			return true;
	}
	return false;
}

/* One kind of separator at most: "4111-1111 1111-1111" is no card. */
static bool one_separator(const char *p, size_t len)
{
	char sep = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (is_digit(p[i]))
			continue;
		if (sep && p[i] != sep)
			return false;
		sep = p[i];
	}
	return true;
}

/* A card: digits with one kind of separator (none, spaces or dashes) in a
 * printed grouping; the longest prefix ending at a group boundary that
 * passes (a card, then a year or an amount). */
static size_t card(const char *p, size_t len)
{
	char d[DIGITS_MAX];
	size_t n;

	for (;;) {
		if (one_separator(p, len) && card_groups(p, len)) {
			n = digits_of(p, len, d);
			if (card_digits_ok(d, n))
				return len;
		}
		while (len > 0 && is_digit(p[len - 1]))
			len--;
		if (len == 0)
			return 0;
		len--; /* the separator */
	}
}

/* SSNs never issued: area 000, 666, 900-999; group 00; serial 0000; and
 * the numbers known from advertising (078-05-1120, 219-09-9999). The
 * delimiter is the regex's concern (one kind, used twice). */
static size_t ssn(const char *p, size_t len)
{
	char d[DIGITS_MAX];
	size_t n = digits_of(p, len, d);
	unsigned area, group, serial;

	if (n != 9)
		return 0;
	area = prefix(d, 3);
	group = prefix(d + 3, 2);
	serial = prefix(d + 5, 4);
	if (area == 0 || area == 666 || area >= 900 || group == 0 || serial == 0)
		return 0;
	if ((area == 78 && group == 5 && serial == 1120) ||
	    (area == 219 && group == 9 && serial == 9999))
		return 0;
	return len;
}

/* North American numbers: area and exchange codes start 2-9 and are not
 * N11; the area code's middle digit is not 9 (none assigned). Elsewhere,
 * E.164: a country code not starting with 0 and 8 to 15 digits in all. */
static size_t phone(const char *p, size_t len)
{
	char d[DIGITS_MAX];
	size_t n = digits_of(p, len, d);
	const char *a;

	if (len > 0 && p[0] == '+' && !(n == 11 && d[0] == '1'))
		return (n >= 8 && n <= 15 && d[0] != '0') ? len : 0;
	if (n == 11 && d[0] == '1')
		a = d + 1;
	else if (n == 10)
		a = d;
	else
		return 0;
	if (a[0] < '2' || a[1] == '9' || (a[1] == '1' && a[2] == '1'))
		return 0;
	if (a[3] < '2' || (a[4] == '1' && a[5] == '1'))
		return 0;
	return len;
}

static size_t ip(const char *p, size_t len)
{
	unsigned char addr[16];
	char s[64];
	size_t i;
	bool hex = false;

	if (len == 0 || len >= sizeof(s))
		return 0;
	memcpy(s, p, len);
	s[len] = 0;
	if (strchr(s, ':')) {
		for (i = 0; i < len; i++)
			hex |= isxdigit((unsigned char)s[i]) != 0;
		/* "::" alone parses, but is no address anyone holds. */
		return hex && inet_pton(AF_INET6, s, addr) == 1 ? len : 0;
	}
	return inet_pton(AF_INET, s, addr) == 1 ? len : 0;
}

/* IBAN lengths per country (the SWIFT IBAN registry). */
static const struct {
	char cc[3];
	unsigned char len;
} iban_lengths[] = {
    {"AD", 24}, {"AE", 23}, {"AL", 28}, {"AT", 20}, {"AZ", 28}, {"BA", 20}, {"BE", 16}, {"BG", 22},
    {"BH", 22}, {"BR", 29}, {"BY", 28}, {"CH", 21}, {"CR", 22}, {"CY", 28}, {"CZ", 24}, {"DE", 22},
    {"DK", 18}, {"DO", 28}, {"EE", 20}, {"EG", 29}, {"ES", 24}, {"FI", 18}, {"FO", 18}, {"FR", 27},
    {"GB", 22}, {"GE", 22}, {"GI", 23}, {"GL", 18}, {"GR", 27}, {"GT", 28}, {"HR", 21}, {"HU", 28},
    {"IE", 22}, {"IL", 23}, {"IQ", 23}, {"IS", 26}, {"IT", 27}, {"JO", 30}, {"KW", 30}, {"KZ", 20},
    {"LB", 28}, {"LC", 32}, {"LI", 21}, {"LT", 20}, {"LU", 20}, {"LV", 21}, {"MC", 27}, {"MD", 24},
    {"ME", 22}, {"MK", 19}, {"MR", 27}, {"MT", 31}, {"MU", 30}, {"NL", 18}, {"NO", 15}, {"PK", 24},
    {"PL", 28}, {"PS", 29}, {"PT", 25}, {"QA", 29}, {"RO", 24}, {"RS", 22}, {"SA", 24}, {"SC", 31},
    {"SE", 24}, {"SI", 19}, {"SK", 24}, {"SM", 27}, {"ST", 25}, {"SV", 28}, {"TL", 23}, {"TN", 24},
    {"TR", 26}, {"UA", 29}, {"VA", 22}, {"VG", 24}, {"XK", 20},
};

static unsigned iban_length(const char *cc)
{
	size_t i;

	for (i = 0; i < sizeof(iban_lengths) / sizeof(iban_lengths[0]); i++)
		if (cc[0] == iban_lengths[i].cc[0] && cc[1] == iban_lengths[i].cc[1])
			return iban_lengths[i].len;
	return 0;
}

/* Move the first four characters to the end, letters to 10..35, and the
 * number mod 97 must be 1 (ISO 13616). */
static bool mod97(const char *s, size_t n)
{
	unsigned r = 0;
	size_t i, j;
	char c;

	for (i = 0; i < n; i++) {
		j = (i + 4) % n;
		c = s[j];
		if (is_digit(c))
			r = (r * 10 + (unsigned)(c - '0')) % 97;
		else if (c >= 'A' && c <= 'Z')
			r = (r * 100 + (unsigned)(c - 'A' + 10)) % 97;
		else
			return false;
	}
	return r == 1;
}

/* An IBAN, compact or in groups: exactly the country's length, which may
 * end before the match does (at a space: a word or number after it). Not
 * when its groups of four end at that space and one short group follows,
 * which is how the same IBAN one character longer is written. */
static size_t iban(const char *p, size_t len)
{
	char s[40];
	size_t i, n = 0, want, rest;

	if (len < 4)
		return 0;
	want = iban_length(p);
	if (!want)
		return 0;
	for (i = 0; i < len && n < want; i++) {
		if (p[i] == ' ')
			continue;
		s[n++] = p[i];
	}
	if (n != want || (i < len && p[i] != ' '))
		return 0;
	rest = len - i;
	if (rest >= 2 && rest <= 4 && !memchr(p + i + 1, ' ', rest - 1) && i >= 5 &&
	    p[i - 5] == ' ')
		return 0;
	return mod97(s, n) ? i : 0;
}

/* Extensions of file names that are no top-level domain: "logo@2x.png" is
 * an asset, not an address. */
static const char *const not_tlds[] = {"png", "jpg",  "jpeg",  "gif", "svg",  "webp", "ico",
				       "css", "js",   "mjs",   "cjs", "json", "html", "htm",
				       "map", "woff", "woff2", "ttf", "bmp",  "tiff"};

/* The regex gave the shape (local@label.label.tld); here: lengths, dots,
 * and a top-level domain that is letters only (or an IDN's xn--). */
static size_t email(const char *p, size_t len)
{
	const char *at = memchr(p, '@', len), *tld;
	size_t local, tldlen, i;

	if (!at)
		return 0;
	local = (size_t)(at - p);
	if (local == 0 || local > 64 || len - local - 1 > 253)
		return 0;
	if (p[0] == '.' || p[local - 1] == '.')
		return 0;
	for (i = 1; i < local; i++)
		if (p[i] == '.' && p[i - 1] == '.')
			return 0;
	tld = p + len;
	while (tld > at && tld[-1] != '.')
		tld--;
	tldlen = (size_t)(p + len - tld);
	if (tld == at + 1 || tldlen < 2 || tldlen > 63)
		return 0;
	if (tldlen < 4 || strncmp(tld, "xn--", 4)) {
		for (i = 0; i < tldlen; i++)
			if (!isalpha((unsigned char)tld[i]))
				return 0;
	}
	for (i = 0; i < sizeof(not_tlds) / sizeof(not_tlds[0]); i++)
		if (strlen(not_tlds[i]) == tldlen && !strncasecmp(tld, not_tlds[i], tldlen))
			return 0;
	return len;
}

static size_t luhn_only(const char *p, size_t len)
{
	char d[DIGITS_MAX];
	size_t n = digits_of(p, len, d);

	return n >= 2 && n < DIGITS_MAX && luhn(d, n) ? len : 0;
}

size_t pii_validate(enum pii_validator which, const char *p, size_t len)
{
	switch (which) {
	case PII_VALIDATE_NONE:
		return len;
	case PII_VALIDATE_EMAIL:
		return email(p, len);
	case PII_VALIDATE_PHONE:
		return phone(p, len);
	case PII_VALIDATE_SSN:
		return ssn(p, len);
	case PII_VALIDATE_CARD:
		return card(p, len);
	case PII_VALIDATE_IP:
		return ip(p, len);
	case PII_VALIDATE_IBAN:
		return iban(p, len);
	case PII_VALIDATE_LUHN:
		return luhn_only(p, len);
	}
	return 0;
}
