/* The vault of one session: entries {kind, number, value} in the order they
 * were first seen, two hash indexes (by value, by token), and the file.
 * Processes sharing a session (a run's bridge, `mcpfs pii restore`, a later
 * run) agree through the file: a new token is assigned only under an flock
 * on <vault>.lock, after reading what others wrote, and the whole vault is
 * then rewritten atomically (temp, fsync, rename) with mode 0600. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fsx.h"
#include "../common/strmap.h"
#include "pii.h"

#define VAULT_MAX (256u << 20) /* the file */
#define ENTRIES_MAX 10000000u

struct entry {
	char kind[PII_NAME_MAX + 1];
	unsigned long num;
	char *value; /* owned; may hold any bytes */
	size_t len;
	bool number; /* the value was a JSON number somewhere: it goes back as one */
};

struct pii_vault {
	pthread_mutex_t mu;
	char *path;	 /* NULL: memory only */
	struct entry *e; /* guarded by mu, as is everything below */
	size_t n, cap;
	/* Entry index + 1 (0: an empty slot), open addressing on FNV-1a. Not
	 * common/strmap: an entry goes into both indexes or neither, and a
	 * strmap cannot take back a key whose twin failed to go in. */
	size_t *byval, *bytok;
	size_t hcap;	  /* a power of two, > 2n */
	struct stat seen; /* the file as last read */
};

static uint64_t hash_value(const char *kind, const char *v, size_t len)
{
	return strhash_add(strhash_add(STRHASH_INIT, kind, strlen(kind) + 1), v, len);
}

static uint64_t hash_token(const char *kind, unsigned long num)
{
	return strhash_add(strhash_add(STRHASH_INIT, kind, strlen(kind) + 1), &num, sizeof(num));
}

static size_t *slot_value(struct pii_vault *v, const char *kind, const char *val, size_t len)
{
	size_t i = hash_value(kind, val, len) & (v->hcap - 1);
	struct entry *e;

	for (; v->byval[i]; i = (i + 1) & (v->hcap - 1)) {
		e = &v->e[v->byval[i] - 1];
		if (e->len == len && !strcmp(e->kind, kind) && !memcmp(e->value, val, len))
			break;
	}
	return &v->byval[i];
}

static size_t *slot_token(struct pii_vault *v, const char *kind, unsigned long num)
{
	size_t i = hash_token(kind, num) & (v->hcap - 1);
	struct entry *e;

	for (; v->bytok[i]; i = (i + 1) & (v->hcap - 1)) {
		e = &v->e[v->bytok[i] - 1];
		if (e->num == num && !strcmp(e->kind, kind))
			break;
	}
	return &v->bytok[i];
}

static int rehash(struct pii_vault *v, size_t hcap)
{
	size_t *bv = calloc(hcap, sizeof(*bv)), *bt = calloc(hcap, sizeof(*bt)), i;

	if (!bv || !bt) {
		free(bv);
		free(bt);
		return -ENOMEM;
	}
	free(v->byval);
	free(v->bytok);
	v->byval = bv;
	v->bytok = bt;
	v->hcap = hcap;
	for (i = 0; i < v->n; i++) {
		*slot_value(v, v->e[i].kind, v->e[i].value, v->e[i].len) = i + 1;
		*slot_token(v, v->e[i].kind, v->e[i].num) = i + 1;
	}
	return 0;
}

/* Append an entry (the value copied). 0, -ENOMEM or -E2BIG. */
static int push(struct pii_vault *v, const char *kind, unsigned long num, const char *val,
		size_t len, bool number)
{
	struct entry *e;
	size_t cap;

	if (v->n >= ENTRIES_MAX)
		return -E2BIG;
	if (v->n == v->cap) {
		cap = v->cap ? v->cap * 2 : 16;
		e = realloc(v->e, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		v->e = e;
		v->cap = cap;
	}
	if (2 * (v->n + 1) >= v->hcap && rehash(v, v->hcap ? v->hcap * 2 : 64) < 0)
		return -ENOMEM;
	e = &v->e[v->n];
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	e->num = num;
	e->len = len;
	e->number = number;
	e->value = malloc(len + 1);
	if (!e->value)
		return -ENOMEM;
	memcpy(e->value, val, len);
	e->value[len] = 0;
	*slot_value(v, kind, val, len) = v->n + 1;
	*slot_token(v, kind, num) = v->n + 1;
	v->n++;
	return 0;
}

static void clear(struct pii_vault *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->e[i].value);
	v->n = 0;
	if (v->hcap) {
		memset(v->byval, 0, v->hcap * sizeof(*v->byval));
		memset(v->bytok, 0, v->hcap * sizeof(*v->bytok));
	}
}

void pii_vault_free(struct pii_vault *v)
{
	if (!v)
		return;
	clear(v);
	free(v->e);
	free(v->byval);
	free(v->bytok);
	free(v->path);
	pthread_mutex_destroy(&v->mu);
	free(v);
}

static bool utf8_valid(const char *p, size_t n)
{
	json_t *j = json_stringn(p, n);
	bool ok = j != NULL;

	json_decref(j);
	return ok;
}

static int hex_decode(const char *h, size_t hl, char **out, size_t *len)
{
	char *b;
	size_t i;
	unsigned x;

	if (hl % 2)
		return -EINVAL;
	b = malloc(hl / 2 + 1);
	if (!b)
		return -ENOMEM;
	for (i = 0; i < hl / 2; i++) {
		if (sscanf(h + 2 * i, "%2x", &x) != 1) {
			free(b);
			return -EINVAL;
		}
		b[i] = (char)x;
	}
	*out = b;
	*len = hl / 2;
	return 0;
}

/* Read the file into the entries (replacing them). 0, or -1 with @err; a
 * missing file is an empty vault. Says nothing of the values on error. */
static int load(struct pii_vault *v, struct err *err)
{
	json_t *root, *arr, *t, *val, *hex;
	json_error_t je;
	char *text = NULL, *bytes;
	size_t len, i, blen;
	struct stat st;
	int fd, rc;

	fd = open(v->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT) {
		clear(v);
		memset(&v->seen, 0, sizeof(v->seen));
		return 0;
	}
	if (fd < 0)
		return err_set(err, EXIT_FAILED, "pii vault %s: %s", v->path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, EXIT_FAILED, "pii vault %s: not a regular file", v->path);
	}
	rc = fsx_read_fd(fd, VAULT_MAX, &text, &len);
	close(fd);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "pii vault %s: %s", v->path, strerror(-rc));
	root = json_loadb(text, len, 0, &je);
	free(text);
	arr = json_object_get(root, "tokens");
	if (!json_is_array(arr)) {
		json_decref(root);
		return err_set(err, EXIT_FAILED, "pii vault %s: not a vault (line %d)", v->path,
			       je.line);
	}
	clear(v);
	json_array_foreach(arr, i, t)
	{
		const char *kind = json_string_value(json_object_get(t, "kind"));
		json_int_t num = json_integer_value(json_object_get(t, "n"));
		bool number = json_is_true(json_object_get(t, "number"));

		val = json_object_get(t, "value");
		hex = json_object_get(t, "hex");
		if (!kind || strlen(kind) > PII_NAME_MAX || num <= 0 ||
		    (!json_is_string(val) && !json_is_string(hex))) {
			rc = -EINVAL;
		} else if (json_is_string(val)) {
			rc = push(v, kind, (unsigned long)num, json_string_value(val),
				  json_string_length(val), number);
		} else {
			rc = hex_decode(json_string_value(hex), json_string_length(hex), &bytes,
					&blen);
			if (!rc) {
				rc = push(v, kind, (unsigned long)num, bytes, blen, number);
				free(bytes);
			}
		}
		if (rc < 0) {
			json_decref(root);
			clear(v);
			return err_set(err, EXIT_FAILED, "pii vault %s: entry %zu: %s", v->path, i,
				       rc == -EINVAL ? "malformed" : strerror(-rc));
		}
	}
	json_decref(root);
	v->seen = st;
	return 0;
}

static bool changed(const struct pii_vault *v)
{
	struct stat st;

	if (stat(v->path, &st) < 0)
		return v->seen.st_ino != 0;
	return st.st_ino != v->seen.st_ino || st.st_size != v->seen.st_size ||
	       st.st_mtim.tv_sec != v->seen.st_mtim.tv_sec ||
	       st.st_mtim.tv_nsec != v->seen.st_mtim.tv_nsec;
}

static int save(struct pii_vault *v, struct err *err)
{
	json_t *root = json_object(), *arr = json_array(), *t;
	char *text = NULL, hx[3];
	struct buf hex;
	size_t i, j;
	int rc = -ENOMEM;

	buf_init(&hex, VAULT_MAX);
	if (!root || !arr || json_object_set(root, "tokens", arr) < 0)
		goto out;
	for (i = 0; i < v->n; i++) {
		const struct entry *e = &v->e[i];

		t = json_pack("{s:s, s:I}", "kind", e->kind, "n", (json_int_t)e->num);
		if (!t || json_array_append_new(arr, t) < 0 ||
		    (e->number && json_object_set_new(t, "number", json_true()) < 0))
			goto out;
		if (utf8_valid(e->value, e->len)) {
			if (json_object_set_new(t, "value", json_stringn(e->value, e->len)) < 0)
				goto out;
			continue;
		}
		buf_reset(&hex);
		for (j = 0; j < e->len; j++) {
			snprintf(hx, sizeof(hx), "%02x", (unsigned char)e->value[j]);
			if (buf_append(&hex, hx, 2) < 0)
				goto out;
		}
		if (json_object_set_new(t, "hex", json_stringn(hex.data ? hex.data : "", hex.len)) <
		    0)
			goto out;
	}
	text = json_dumps(root, JSON_COMPACT);
	if (!text)
		goto out;
	rc = fsx_write_atomic(v->path, text, strlen(text), 0600);
	if (!rc && stat(v->path, &v->seen) < 0)
		rc = -errno;
out:
	free(text);
	buf_free(&hex);
	json_decref(arr);
	json_decref(root);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "pii vault %s: write: %s", v->path, strerror(-rc));
	return 0;
}

struct pii_vault *pii_vault_open(const char *path, struct err *err)
{
	struct pii_vault *v = calloc(1, sizeof(*v));

	if (!v || (path && !(v->path = strdup(path)))) {
		free(v);
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&v->mu, NULL);
	if (path && load(v, err) < 0) {
		pii_vault_free(v);
		return NULL;
	}
	return v;
}

static unsigned long last_of(const struct pii_vault *v, const char *kind)
{
	unsigned long last = 0;
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->e[i].num > last && !strcmp(v->e[i].kind, kind))
			last = v->e[i].num;
	return last;
}

/* Fill what is known; true when all were, each marked a number where
 * @numbers asks. Under mu. */
static bool known(struct pii_vault *v, const char *const *kinds, const char *const *values,
		  const size_t *lens, const bool *numbers, size_t n, unsigned long *nums)
{
	size_t i, *s;
	bool all = true;

	for (i = 0; i < n; i++) {
		nums[i] = 0;
		if (v->hcap && *(s = slot_value(v, kinds[i], values[i], lens[i]))) {
			nums[i] = v->e[*s - 1].num;
			all &= !(numbers && numbers[i]) || v->e[*s - 1].number;
		}
		all &= nums[i] != 0;
	}
	return all;
}

static int lock_file(const struct pii_vault *v, struct err *err)
{
	char lp[4096];
	int fd;

	if (snprintf(lp, sizeof(lp), "%s.lock", v->path) >= (int)sizeof(lp))
		return err_set(err, EXIT_FAILED, "pii vault %s: path too long", v->path);
	fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return err_set(err, EXIT_FAILED, "pii vault %s: %s", lp, strerror(errno));
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			err_set(err, EXIT_FAILED, "pii vault flock %s: %s", lp, strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

int pii_vault_tokens(struct pii_vault *v, const char *const *kinds, const char *const *values,
		     const size_t *lens, const bool *numbers, size_t n, unsigned long *nums,
		     struct err *err)
{
	size_t i, *s;
	int lfd = -1, rc = -1, e;
	bool number;

	pthread_mutex_lock(&v->mu);
	if (known(v, kinds, values, lens, numbers, n, nums)) {
		rc = 0;
		goto out;
	}
	if (v->path) {
		lfd = lock_file(v, err);
		if (lfd < 0)
			goto out;
		if (changed(v) && load(v, err) < 0)
			goto out;
		known(v, kinds, values, lens, numbers, n, nums);
	}
	for (i = 0; i < n; i++) {
		number = numbers && numbers[i];
		/* Known (or new twice in one batch): one token, marked if need be. */
		if (v->hcap && *(s = slot_value(v, kinds[i], values[i], lens[i]))) {
			nums[i] = v->e[*s - 1].num;
			v->e[*s - 1].number |= number;
			continue;
		}
		nums[i] = last_of(v, kinds[i]) + 1;
		e = push(v, kinds[i], nums[i], values[i], lens[i], number);
		if (e < 0) {
			err_set(err, EXIT_FAILED, "pii vault: %s", strerror(-e));
			goto out_reload;
		}
	}
	if (v->path && save(v, err) < 0)
		goto out_reload;
	rc = 0;
	goto out;
out_reload:
	/* What was not written must not be handed out: back to the file. */
	if (v->path) {
		struct err ignored = {0};

		load(v, &ignored);
	}
out:
	if (lfd >= 0)
		close(lfd);
	pthread_mutex_unlock(&v->mu);
	return rc;
}

int pii_vault_value(struct pii_vault *v, const char *kind, unsigned long num, struct buf *out,
		    bool *number)
{
	struct err ignored = {0};
	size_t *s = NULL;
	int rc = -ENOENT;

	pthread_mutex_lock(&v->mu);
	if (v->hcap)
		s = slot_token(v, kind, num);
	/* Another process may have issued it since we read the file. */
	if ((!s || !*s) && v->path && changed(v) && load(v, &ignored) == 0 && v->hcap)
		s = slot_token(v, kind, num);
	if (s && *s) {
		rc = buf_append(out, v->e[*s - 1].value, v->e[*s - 1].len);
		if (number)
			*number = v->e[*s - 1].number;
	}
	pthread_mutex_unlock(&v->mu);
	return rc;
}
