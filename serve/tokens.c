/* OpenSSL's libcrypto (loaded on first use, servers/crypto_lib.h) does the hashing (EVP_Digest,
 * SHA-256); getrandom the randomness. */
#define _GNU_SOURCE
#include "tokens.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../servers/crypto_lib.h"
#include "../common/fsx.h"
#include "../workspaces/workspace.h"

#define TOKEN_PREFIX "mcpfs_"
#define TOKEN_FILE_MAX 4096

static void hex(const unsigned char *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* The hex SHA-256 of @token into @out (65 bytes). */
static int digest(const char *token, char *out)
{
	const struct crypto_lib *c = crypto_lib_load(NULL);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	if (!c || !c->EVP_Digest(token, strlen(token), md, &len, c->EVP_sha256(), NULL) ||
	    len != 32)
		return -EIO;
	hex(md, len, out);
	return 0;
}

static int dir_of(const char *root, char *out, size_t n, bool create)
{
	snprintf(out, n, "%s/tokens", root);
	if (create && mkdir(out, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int token_create(const char *root, const char *customer, char *out, char *id, struct err *err)
{
	unsigned char raw[32];
	char dir[4096], path[4200], hash[65], when[32], *text;
	struct tm tm;
	time_t now = time(NULL);
	json_t *rec;
	int fd, rc;

	if (!id_valid(customer, "customer", err))
		return -1;
	if (dir_of(root, dir, sizeof(dir), true) < 0)
		return err_set(err, EXIT_FAILED, "mkdir %s: %s", dir, strerror(errno));
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return err_set(err, EXIT_FAILED, "getrandom: %s", strerror(errno));
	memcpy(out, TOKEN_PREFIX, strlen(TOKEN_PREFIX));
	hex(raw, sizeof(raw), out + strlen(TOKEN_PREFIX));
	if (digest(out, hash) < 0)
		return err_set(err, EXIT_FAILED, "SHA-256 failed");
	memcpy(id, hash, TOKEN_ID_LEN);
	id[TOKEN_ID_LEN] = '\0';
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rec = json_pack("{s:s,s:s,s:s}", "customer", customer, "id", id, "created_at", when);
	text = rec ? json_dumps(rec, JSON_COMPACT) : NULL;
	json_decref(rec);
	if (!text)
		return err_set(err, EXIT_FAILED, "out of memory");
	snprintf(path, sizeof(path), "%s/%s", dir, hash);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	rc = fd < 0 ? -errno : fsx_write_all(fd, text, strlen(text));
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	free(text);
	if (rc) {
		if (fd >= 0)
			unlink(path);
		return err_set(err, EXIT_FAILED, "write %s: %s", path, strerror(-rc));
	}
	return 0;
}

/* The record in token file @name of @dfd, if it is the customer's (or any
 * customer's when @customer is NULL). New, or NULL. */
static json_t *record(int dfd, const char *name, const char *customer)
{
	char *text = NULL;
	size_t len;
	json_t *rec;
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return NULL;
	if (fsx_read_fd(fd, TOKEN_FILE_MAX, &text, &len) < 0) {
		close(fd);
		return NULL;
	}
	close(fd);
	rec = json_loadb(text, len, 0, NULL);
	free(text);
	if (customer &&
	    strcmp(json_string_value(json_object_get(rec, "customer")) ?: "", customer)) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

/* Call @fn on each of the customer's tokens. */
static int each(const char *root, const char *customer,
		int (*fn)(void *ctx, int dfd, const char *name, json_t *rec), void *ctx)
{
	char dir[4096];
	struct dirent *d;
	json_t *rec;
	DIR *dh;
	int rc = 0;

	dir_of(root, dir, sizeof(dir), false);
	dh = opendir(dir);
	if (!dh)
		return errno == ENOENT ? 0 : -errno;
	while (!rc && (d = readdir(dh))) {
		if (strlen(d->d_name) != 64)
			continue;
		rec = record(dirfd(dh), d->d_name, customer);
		if (rec)
			rc = fn(ctx, dirfd(dh), d->d_name, rec);
		json_decref(rec);
	}
	closedir(dh);
	return rc;
}

static int list_one(void *ctx, int dfd, const char *name, json_t *rec)
{
	(void)dfd;
	(void)name;
	return json_array_append_new(ctx,
				     json_pack("{s:O,s:O}", "id", json_object_get(rec, "id"),
					       "created_at", json_object_get(rec, "created_at")))
		   ? -ENOMEM
		   : 0;
}

json_t *token_list(const char *root, const char *customer, struct err *err)
{
	json_t *arr;
	int rc;

	if (!id_valid(customer, "customer", err))
		return NULL;
	arr = json_array();
	if (!arr) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	rc = each(root, customer, list_one, arr);
	if (rc < 0) {
		err_set(err, EXIT_FAILED, "read %s/tokens: %s", root, strerror(-rc));
		json_decref(arr);
		return NULL;
	}
	return arr;
}

struct revoke {
	const char *id;
	size_t n;
};

static int revoke_one(void *ctx, int dfd, const char *name, json_t *rec)
{
	struct revoke *r = ctx;

	if (r->id && strcmp(json_string_value(json_object_get(rec, "id")) ?: "", r->id))
		return 0;
	if (unlinkat(dfd, name, 0) < 0)
		return errno == ENOENT ? 0 : -errno;
	r->n++;
	return 0;
}

int token_revoke(const char *root, const char *customer, const char *id, size_t *n, struct err *err)
{
	struct revoke r = {.id = id};
	char dir[4096];
	int rc, dfd;

	if (!id_valid(customer, "customer", err))
		return -1;
	rc = each(root, customer, revoke_one, &r);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "revoke: %s", strerror(-rc));
	if (id && !r.n)
		return err_set(err, EXIT_USAGE, "customer '%s' has no token '%s'", customer, id);
	/* The unlinks must be on disk before we say they are revoked. */
	dir_of(root, dir, sizeof(dir), false);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	*n = r.n;
	return 0;
}

int token_lookup(const char *root, const char *token, char *customer, size_t n)
{
	char dir[4096], hash[65];
	const char *c;
	json_t *rec;
	int dfd;

	if (strlen(token) != TOKEN_LEN || strncmp(token, TOKEN_PREFIX, strlen(TOKEN_PREFIX)))
		return -ENOENT;
	for (c = token + strlen(TOKEN_PREFIX); *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
			return -ENOENT;
	if (digest(token, hash) < 0)
		return -EIO;
	dir_of(root, dir, sizeof(dir), false);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	rec = record(dfd, hash, NULL);
	close(dfd);
	c = json_string_value(json_object_get(rec, "customer"));
	if (!c || strlen(c) >= n) {
		json_decref(rec);
		return -ENOENT;
	}
	memcpy(customer, c, strlen(c) + 1);
	json_decref(rec);
	return 0;
}

bool token_any(const char *root)
{
	char dir[4096];
	struct dirent *d;
	bool any = false;
	DIR *dh;

	dir_of(root, dir, sizeof(dir), false);
	dh = opendir(dir);
	if (!dh)
		return false;
	while (!any && (d = readdir(dh)))
		any = strlen(d->d_name) == 64;
	closedir(dh);
	return any;
}
