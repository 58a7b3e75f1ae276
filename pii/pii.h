/* PII tokenization: detectors (pcre2 with JIT, plus validators), the
 * per-session vault of token <-> value, and the text and JSON rewriters that
 * turn values into tokens like [EMAIL_1] and tokens back into values.
 * The design is in pii/README.md. */
#ifndef MCPFS_PII_PII_H
#define MCPFS_PII_PII_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/buf.h"
#include "../common/err.h"

/* The built-in kinds; custom kinds from the config follow, numbered from
 * PII_NBUILTIN on. */
enum pii_kind {
	PII_EMAIL,
	PII_PHONE,
	PII_SSN,
	PII_CREDIT_CARD,
	PII_IP_ADDRESS,
	PII_IBAN,
	PII_NBUILTIN,
};

/* The validators a custom pattern may name ("validator" in the config). */
enum pii_validator {
	PII_VALIDATE_NONE,
	PII_VALIDATE_EMAIL,
	PII_VALIDATE_PHONE,
	PII_VALIDATE_SSN,
	PII_VALIDATE_CARD, /* issuer prefix, length and Luhn */
	PII_VALIDATE_IP,
	PII_VALIDATE_IBAN,
	PII_VALIDATE_LUHN, /* the Luhn check alone, over the digits */
};

#define PII_NAME_MAX 32 /* a kind's name: [A-Z][A-Z0-9_]{0,31} */

struct pii_custom {
	char *name;  /* owned */
	char *regex; /* owned; pcre2 syntax, matched on bytes */
	enum pii_validator validator;
};

/* The "pii" section of the config, parsed (pii/config.c). */
struct pii_config {
	bool enabled;		  /* the default for every customer */
	bool kinds[PII_NBUILTIN]; /* each built-in kind on or off */
	struct pii_custom *custom;
	size_t ncustom;
	char **exempt; /* "server/tool", or "server/" and a star: results pass untouched */
	size_t nexempt;
	char **customers; /* customers whose setting differs from @enabled */
	bool *customer_on;
	size_t ncustomers;
};

/* Parse @section (borrowed; NULL: PII off, every kind on) into @out:
 *   {"enabled": bool, "kinds": {"EMAIL": bool, ...},
 *    "custom": [{"name", "regex", "validator"}], "exempt": ["server/tool"],
 *    "customers": {"C": bool}}
 * @origin names the config in errors. Returns 0, or -1 with @err
 * (EXIT_USAGE); *out is set only on success. */
int pii_config_parse(const json_t *section, const char *origin, struct pii_config *out,
		     struct err *err);
void pii_config_free(struct pii_config *c); /* accepts a zeroed config */
/* PII on for @customer (NULL: "default")? */
bool pii_config_active(const struct pii_config *c, const char *customer);
/* Are @server/@tool's results exempt from tokenization? */
bool pii_config_exempt(const struct pii_config *c, const char *server, const char *tool);

/* One detected value: bytes [start, end) of the text. */
struct pii_match {
	size_t start, end;
	int kind;
};

/* The compiled detectors; immutable after creation, so any number of threads
 * may scan with one scanner at once. */
struct pii_scanner;

/* Compile the config's enabled kinds and custom patterns (@cfg borrowed:
 * it must outlive the scanner).
 * NULL with @err (EXIT_USAGE) when a custom regex does not compile. */
struct pii_scanner *pii_scanner_new(const struct pii_config *cfg, struct err *err);
void pii_scanner_free(struct pii_scanner *s);

/* Every kind's name by number (borrowed), and the number of kinds. */
const char *pii_kind_name(const struct pii_scanner *s, int kind);
int pii_kind_count(const struct pii_scanner *s);
/* Is @kind switched on (found by scans)? */
bool pii_kind_on(const struct pii_scanner *s, int kind);
/* A kind's pattern as pcre2 compiled it (borrowed), or NULL. */
const char *pii_kind_regex(const struct pii_scanner *s, int kind);
/* The kind named by @name[0..@len), or -1. Kinds switched off count: their
 * tokens still resolve. */
int pii_kind_find(const struct pii_scanner *s, const char *name, size_t len);

/* Find the values in @text: a new array of non-overlapping matches in order
 * (free() it), in *@out, with their count in *@n. Returns 0, or -1 with @err
 * when a pattern hit pcre2's match limits (the text is then not scanned:
 * callers fail closed). */
int pii_scan(const struct pii_scanner *s, const char *text, size_t len, struct pii_match **out,
	     size_t *n, struct err *err);

/* The kind of the value a JSON integer holds, into *@kind (-1: none).
 * @digits[0..@len) is its decimal form, @key[0..@keylen) the name of the
 * member holding it (or the array holding it; NULL: none). The digits must
 * be one value whole as pii_scan finds it (a card, a custom pattern); a
 * phone or SSN, which a number cannot mark, counts only under a member
 * named for it ("phone", "mobileNumber", "ssn"; pii/number.c). Returns 0,
 * or -1 with @err as pii_scan. */
int pii_scan_number(const struct pii_scanner *s, const char *digits, size_t len, const char *key,
		    size_t keylen, int *kind, struct err *err);

/* The vault of one session: value <-> token, numbered per kind by first
 * appearance. Thread-safe. With a path, every new token is written to the
 * file (mode 0600, atomically, under a lock file so processes sharing the
 * session agree); without one, it lives in memory only. The values never
 * appear in an error. */
struct pii_vault;

/* Open (and read, when it exists) the vault at @path (NULL: memory only).
 * NULL with @err when the file is unreadable or not a vault. */
struct pii_vault *pii_vault_open(const char *path, struct err *err);
void pii_vault_free(struct pii_vault *v);

/* The number of the token for each of @n values (@kinds[i], @values[i] of
 * @lens[i] bytes) into @nums[i], adding new ones in order (one write for the
 * batch). @numbers (NULL: none) marks the values that were JSON numbers: the
 * mark stays with the token for good. Returns 0 or -1 with @err. */
int pii_vault_tokens(struct pii_vault *v, const char *const *kinds, const char *const *values,
		     const size_t *lens, const bool *numbers, size_t n, unsigned long *nums,
		     struct err *err);
/* The value of token @kind_@num into @out (appended), or -ENOENT when the
 * session never issued it; *@number (may be NULL) says whether the value
 * was ever a JSON number. Returns 0, -ENOENT, or -ENOMEM/-E2BIG. */
int pii_vault_value(struct pii_vault *v, const char *kind, unsigned long num, struct buf *out,
		    bool *number);

/* Replace every value @s finds in @in with its token from @v, appending to
 * @out; *@count (may be NULL) gets the number replaced. Returns 0 or -1. */
int pii_redact(const struct pii_scanner *s, struct pii_vault *v, const char *in, size_t len,
	       struct buf *out, size_t *count, struct err *err);
/* Replace every token in @in with its value, appending to @out. A token of a
 * known kind that @v never issued is refused (-1, @err names the token);
 * text that only looks like a token ([NOTE_1], [EMAIL_01]) passes through. */
int pii_restore(const struct pii_scanner *s, struct pii_vault *v, const char *in, size_t len,
		struct buf *out, struct err *err);

/* The same over every string value and object key of @j (borrowed, changed
 * in place), including JSON documents held in strings; the data of image and
 * audio content stays as it is. Redacting also turns an integer that holds a
 * value (pii_scan_number) into its token, a string; restoring turns a string
 * that is one such token, and nothing else, back into the integer. Two keys
 * of one object that would read the same afterwards fail the call (-1): a
 * key is never dropped. Returns 0 or -1. */
int pii_redact_json(const struct pii_scanner *s, struct pii_vault *v, json_t *j, struct err *err);
int pii_restore_json(const struct pii_scanner *s, struct pii_vault *v, json_t *j, struct err *err);

/* The built-in validators, for tests and custom patterns: how many bytes of
 * @p[0..@len) form a valid value from the start (0: none). */
size_t pii_validate(enum pii_validator which, const char *p, size_t len);

#endif
