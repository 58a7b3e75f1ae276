/* Values to tokens and back, in text and in JSON. Tokens are found again by
 * parsing their form, [KIND_N] with KIND a kind the scanner knows and N a
 * number without leading zeros, never by searching for known values: text
 * that only looks like a token passes through. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pii.h"

#define TEXT_MAX ((size_t)1 << 31) /* one rewritten string */
#define NUM_DIGITS_MAX 9

static int oom(struct err *err, int rc)
{
	return err_set(err, EXIT_FAILED, "pii: %s",
		       rc == -E2BIG ? "text too long" : "out of memory");
}

int pii_redact(const struct pii_scanner *s, struct pii_vault *v, const char *in, size_t len,
	       struct buf *out, size_t *count, struct err *err)
{
	struct pii_match *m = NULL;
	const char **kinds = NULL, **values = NULL;
	size_t *lens = NULL, n = 0, i, at = 0;
	unsigned long *nums = NULL;
	int rc = -1, e = 0;

	if (pii_scan(s, in, len, &m, &n, err) < 0)
		return -1;
	if (count)
		*count = n;
	if (n == 0) {
		free(m);
		if ((e = buf_append(out, in, len)) < 0)
			return oom(err, e);
		return 0;
	}
	kinds = calloc(n, sizeof(*kinds));
	values = calloc(n, sizeof(*values));
	lens = calloc(n, sizeof(*lens));
	nums = calloc(n, sizeof(*nums));
	if (!kinds || !values || !lens || !nums) {
		oom(err, -ENOMEM);
		goto out;
	}
	for (i = 0; i < n; i++) {
		kinds[i] = pii_kind_name(s, m[i].kind);
		values[i] = in + m[i].start;
		lens[i] = m[i].end - m[i].start;
	}
	if (pii_vault_tokens(v, kinds, values, lens, NULL, n, nums, err) < 0)
		goto out;
	for (i = 0; i < n && !e; i++) {
		e = buf_append(out, in + at, m[i].start - at);
		if (!e)
			e = buf_printf(out, "[%s_%lu]", kinds[i], nums[i]);
		at = m[i].end;
	}
	if (!e)
		e = buf_append(out, in + at, len - at);
	if (e < 0) {
		oom(err, e);
		goto out;
	}
	rc = 0;
out:
	free(m);
	free(kinds);
	free(values);
	free(lens);
	free(nums);
	return rc;
}

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_num(char c)
{
	return c >= '0' && c <= '9';
}

/* A token at @p ('['), within @end: its length, kind and number; 0 if @p
 * does not start one of a known kind. */
static size_t token_at(const struct pii_scanner *s, const char *p, const char *end, int *kind,
		       unsigned long *num)
{
	const char *q = p + 1, *us = NULL, *d;
	unsigned long x = 0;

	if (q >= end || !is_upper(*q))
		return 0;
	while (q < end && q - p <= PII_NAME_MAX + NUM_DIGITS_MAX + 2 &&
	       (is_upper(*q) || is_num(*q) || *q == '_')) {
		if (*q == '_')
			us = q;
		q++;
	}
	if (q >= end || *q != ']' || !us || us + 1 == q || us[1] == '0')
		return 0;
	if (q - us - 1 > NUM_DIGITS_MAX)
		return 0;
	for (d = us + 1; d < q; d++) {
		if (!is_num(*d))
			return 0;
		x = x * 10 + (unsigned long)(*d - '0');
	}
	*kind = pii_kind_find(s, p + 1, (size_t)(us - p - 1));
	if (*kind < 0)
		return 0;
	*num = x;
	return (size_t)(q - p + 1);
}

/* The value of a token into @out; *@number as pii_vault_value. */
static int lookup(const struct pii_scanner *s, struct pii_vault *v, int kind, unsigned long num,
		  struct buf *out, bool *number, struct err *err)
{
	int e = pii_vault_value(v, pii_kind_name(s, kind), num, out, number);

	if (e == -ENOENT)
		return err_set(err, EXIT_FAILED,
			       "pii: [%s_%lu] is not a token of this session; tokens "
			       "resolve only in the session that issued them",
			       pii_kind_name(s, kind), num);
	return e < 0 ? oom(err, e) : 0;
}

int pii_restore(const struct pii_scanner *s, struct pii_vault *v, const char *in, size_t len,
		struct buf *out, struct err *err)
{
	const char *p = in, *end = in + len, *b;
	unsigned long num;
	size_t tl;
	int kind, e;

	while (p < end) {
		b = memchr(p, '[', (size_t)(end - p));
		if (!b)
			break;
		tl = token_at(s, b, end, &kind, &num);
		if (!tl) {
			if ((e = buf_append(out, p, (size_t)(b - p) + 1)) < 0)
				return oom(err, e);
			p = b + 1;
			continue;
		}
		if ((e = buf_append(out, p, (size_t)(b - p))) < 0)
			return oom(err, e);
		if (lookup(s, v, kind, num, out, NULL, err) < 0)
			return -1;
		p = b + tl;
	}
	if ((e = buf_append(out, p, (size_t)(end - p))) < 0)
		return oom(err, e);
	return 0;
}

/* The JSON walk: every string value and object key; integers that hold a
 * value (redacting) and strings that are one token of such a value
 * (restoring); a string that holds a JSON object or array is walked as JSON
 * and written back in the same style. */
enum dir { REDACT, RESTORE };

static int walk(const struct pii_scanner *s, struct pii_vault *v, json_t *j, enum dir d, int depth,
		const char *key, size_t keylen, size_t *changes, struct err *err);

/* A string that is one token and nothing else: its value (new), as the
 * integer it was if it was one, else as a string; NULL with @err. */
static json_t *restore_whole(const struct pii_scanner *s, struct pii_vault *v, int kind,
			     unsigned long num, struct err *err)
{
	json_t *res = NULL;
	bool number = false;
	long long x = 0;
	struct buf out;
	char *end = NULL;

	buf_init(&out, TEXT_MAX);
	if (lookup(s, v, kind, num, &out, &number, err) == 0) {
		if (number && out.len && out.data[0] >= '0' && out.data[0] <= '9') {
			errno = 0;
			x = strtoll(out.data, &end, 10);
		}
		if (end && !*end && !errno)
			res = json_integer(x);
		else
			res = json_stringn_nocheck(out.data ? out.data : "", out.len);
		if (!res)
			oom(err, -ENOMEM);
	}
	buf_free(&out);
	return res;
}

/* @str (a JSON string) rewritten: a new value, or NULL with @err set (or
 * with @err clear when nothing changed). */
static json_t *rewrite(const struct pii_scanner *s, struct pii_vault *v, json_t *str, enum dir d,
		       int depth, struct err *err)
{
	const char *t = json_string_value(str);
	size_t len = json_string_length(str), i = 0;
	json_t *inner, *res = NULL;
	size_t changes = 0;
	unsigned long num;
	struct buf out;
	char *dumped;
	int rc, kind;

	if (d == RESTORE && len && t[0] == '[' && token_at(s, t, t + len, &kind, &num) == len)
		return restore_whole(s, v, kind, num, err);
	while (i < len && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t'))
		i++;
	if (depth < 8 && i < len && (t[i] == '{' || t[i] == '[') &&
	    (inner = json_loadb(t, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL))) {
		if (walk(s, v, inner, d, depth + 1, NULL, 0, &changes, err) < 0 || !changes) {
			json_decref(inner);
			return NULL;
		}
		/* Pretty-printed text stays pretty-printed (two spaces, as most
		 * servers write it). */
		dumped = json_dumps(inner, JSON_ENCODE_ANY | (memchr(t, '\n', len) ? JSON_INDENT(2)
										   : JSON_COMPACT));
		json_decref(inner);
		if (!dumped) {
			oom(err, -ENOMEM);
			return NULL;
		}
		res = json_string_nocheck(dumped);
		free(dumped);
		if (!res)
			oom(err, -ENOMEM);
		return res;
	}
	buf_init(&out, TEXT_MAX);
	rc = d == REDACT ? pii_redact(s, v, t, len, &out, NULL, err)
			 : pii_restore(s, v, t, len, &out, err);
	if (!rc && (out.len != len || memcmp(out.data ? out.data : "", t, len))) {
		res = json_stringn_nocheck(out.data, out.len);
		if (!res)
			oom(err, -ENOMEM);
	}
	buf_free(&out);
	return res;
}

/* An integer that holds a value (pii_scan_number under the member name
 * @key): its token, a string (new); NULL with @err set, or clear when it
 * holds none. The vault marks the value a number, so it goes back as one. */
static json_t *redact_number(const struct pii_scanner *s, struct pii_vault *v, json_t *n,
			     const char *key, size_t keylen, struct err *err)
{
	json_int_t x = json_integer_value(n);
	const char *kind, *val;
	char digits[32];
	unsigned long num;
	bool number = true;
	json_t *res;
	size_t len;
	int k;

	if (x < 0) /* no value has a sign */
		return NULL;
	len = (size_t)snprintf(digits, sizeof(digits), "%" JSON_INTEGER_FORMAT, x);
	if (pii_scan_number(s, digits, len, key, keylen, &k, err) < 0 || k < 0)
		return NULL;
	kind = pii_kind_name(s, k);
	val = digits;
	if (pii_vault_tokens(v, &kind, &val, &len, &number, 1, &num, err) < 0)
		return NULL;
	res = json_sprintf("[%s_%lu]", kind, num);
	if (!res)
		oom(err, -ENOMEM);
	return res;
}

/* Content items carrying bytes, not text: their "data" (image, audio) and
 * "blob" (resources) are base64 and stay untouched. */
static bool binary_field(json_t *obj, const char *key)
{
	const char *type = json_string_value(json_object_get(obj, "type"));

	if (!strcmp(key, "blob"))
		return true;
	return !strcmp(key, "data") && type && (!strcmp(type, "image") || !strcmp(type, "audio"));
}

/* @val (borrowed), the value of member @key (or an element of an array that
 * is one) rewritten: a new value, or NULL with @err set (or clear when it
 * stays, containers being changed in place). */
static json_t *value(const struct pii_scanner *s, struct pii_vault *v, json_t *val, enum dir d,
		     int depth, const char *key, size_t keylen, size_t *changes, struct err *err)
{
	err_clear(err);
	if (json_is_string(val))
		return rewrite(s, v, val, d, depth, err);
	if (d == REDACT && json_is_integer(val))
		return redact_number(s, v, val, key, keylen, err);
	if (json_is_object(val) || json_is_array(val))
		walk(s, v, val, d, depth + 1, key, keylen, changes, err);
	return NULL;
}

/* The members of @obj: each key, then its value (so tokens number in the
 * order the text reads), the value knowing its key. The object is rebuilt,
 * in its order, only from the first key that changes; two keys that would
 * then read the same fail, since one would be lost. */
static int walk_object(const struct pii_scanner *s, struct pii_vault *v, json_t *obj, enum dir d,
		       int depth, size_t *changes, struct err *err)
{
	json_t *out = NULL, *val, *nv;
	const char *k, *nk;
	size_t kl, nl, i = 0, at = 0;
	struct buf b;
	int rc = -1;

	buf_init(&b, TEXT_MAX);
	json_object_keylen_foreach(obj, k, kl, val)
	{
		buf_reset(&b);
		if ((d == REDACT ? pii_redact(s, v, k, kl, &b, NULL, err)
				 : pii_restore(s, v, k, kl, &b, err)) < 0)
			goto out;
		nk = b.data ? b.data : "";
		nl = b.len;
		if (!(json_is_string(val) && binary_field(obj, k))) {
			nv = value(s, v, val, d, depth, k, kl, changes, err);
			if (!nv && err->status)
				goto out;
			if (nv && json_object_setn_new_nocheck(obj, k, kl, nv) < 0)
				goto out_oom;
			*changes += nv != NULL;
			val = nv ? nv : val;
		}
		if (!out && nl == kl && !memcmp(nk, k, kl)) {
			i++;
			continue;
		}
		if (!out) {
			/* The first change: the members before it go in as they are. */
			const char *pk;
			size_t pl;
			json_t *pv;

			if (!(out = json_object()))
				goto out_oom;
			json_object_keylen_foreach(obj, pk, pl, pv)
			{
				if (at++ == i)
					break;
				if (json_object_setn_nocheck(out, pk, pl, pv) < 0)
					goto out_oom;
			}
		}
		if (json_object_getn(out, nk, nl)) {
			err_set(err, EXIT_FAILED,
				"pii: two keys of one object would be the same once %s",
				d == REDACT ? "tokenized" : "restored");
			goto out;
		}
		if (json_object_setn_nocheck(out, nk, nl, val) < 0)
			goto out_oom;
	}
	if (out) {
		json_object_clear(obj);
		json_object_keylen_foreach(out, k, kl, val)
		{
			if (json_object_setn_nocheck(obj, k, kl, val) < 0)
				goto out_oom;
		}
		(*changes)++;
	}
	rc = 0;
	goto out;
out_oom:
	oom(err, -ENOMEM);
out:
	json_decref(out);
	buf_free(&b);
	return rc;
}

/* Rewrite the strings, keys and integers in @j (an array's elements take
 * @key, the member name that holds it), counting changes in *@changes. */
static int walk(const struct pii_scanner *s, struct pii_vault *v, json_t *j, enum dir d, int depth,
		const char *key, size_t keylen, size_t *changes, struct err *err)
{
	json_t *val, *nv;
	size_t i;

	if (depth > 64)
		return err_set(err, EXIT_FAILED, "pii: JSON nested too deeply");
	if (json_is_object(j))
		return walk_object(s, v, j, d, depth, changes, err);
	json_array_foreach(j, i, val)
	{
		nv = value(s, v, val, d, depth, key, keylen, changes, err);
		if (!nv && err->status)
			return -1;
		if (nv && json_array_set_new(j, i, nv) < 0)
			return oom(err, -ENOMEM);
		*changes += nv != NULL;
	}
	return 0;
}

int pii_redact_json(const struct pii_scanner *s, struct pii_vault *v, json_t *j, struct err *err)
{
	struct err local = {0};
	size_t changes = 0;

	if (walk(s, v, j, REDACT, 0, NULL, 0, &changes, err ? err : &local) < 0)
		return -1;
	return 0;
}

int pii_restore_json(const struct pii_scanner *s, struct pii_vault *v, json_t *j, struct err *err)
{
	struct err local = {0};
	size_t changes = 0;

	if (walk(s, v, j, RESTORE, 0, NULL, 0, &changes, err ? err : &local) < 0)
		return -1;
	return 0;
}
