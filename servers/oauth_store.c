#define _GNU_SOURCE
#include "oauth_store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fsx.h"

#define STORE_MAX (256u << 10)

int oauth_store_path(const char *root, const char *server, const char *customer, char *out,
		     size_t n, struct err *err)
{
	int len;

	if (customer)
		len = snprintf(out, n, "%s/workspaces/%s/oauth/%s.json", root, customer, server);
	else
		len = snprintf(out, n, "%s/oauth/%s.json", root, server);
	if (len < 0 || (size_t)len >= n)
		return err_set(err, EXIT_USAGE, "server '%s': data root path too long", server);
	return 0;
}

static int make_folder(const char *path, struct err *err)
{
	char dir[PATH_MAX], *slash;
	int rc;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	/* Only the oauth folder is private: its parents keep the layout's modes. */
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		rc = fsx_mkdirs(dir, 0750);
		*slash = '/';
	} else {
		rc = 0;
	}
	if (!rc && mkdir(dir, 0700) && errno != EEXIST)
		rc = -errno;
	if (rc)
		return err_set(err, EXIT_FAILED, "mkdir(%s): %s", dir, strerror(-rc));
	return 0;
}

int oauth_store_lock(const char *path, struct err *err)
{
	char lock[PATH_MAX];
	int fd, e;

	if (snprintf(lock, sizeof(lock), "%s.lock", path) >= (int)sizeof(lock))
		return err_set(err, EXIT_USAGE, "%s: path too long", path);
	if (make_folder(path, err))
		return -1;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		e = errno;
		return err_set(err, EXIT_FAILED, "open(%s): %s", lock, strerror(e));
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		e = errno;
		close(fd);
		return err_set(err, EXIT_FAILED, "flock(%s): %s", lock, strerror(e));
	}
	return fd;
}

void oauth_store_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}

static json_t *fresh(const char *url)
{
	return json_pack("{s:s}", "url", url);
}

json_t *oauth_store_load(const char *path, const char *url, struct err *err)
{
	json_error_t je;
	const char *was;
	size_t len;
	char *text;
	json_t *j;
	int rc;

	rc = fsx_read(path, STORE_MAX, &text, &len);
	if (rc == -ENOENT)
		return fresh(url);
	if (rc) {
		err_set(err, EXIT_FAILED, "read(%s): %s", path, strerror(-rc));
		return NULL;
	}
	j = json_loadb(text, len, 0, &je);
	free(text);
	if (!json_is_object(j)) {
		json_decref(j);
		err_set(err, EXIT_FAILED, "%s: not a JSON object: delete it and log in again",
			path);
		return NULL;
	}
	was = json_string_value(json_object_get(j, "url"));
	if (!was || strcmp(was, url)) {
		json_decref(j);
		unlink(path);
		return fresh(url);
	}
	return j;
}

int oauth_store_save(const char *path, const json_t *state, struct err *err)
{
	char *text;
	int rc;

	if (make_folder(path, err))
		return -1;
	text = json_dumps(state, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!text)
		return err_set(err, EXIT_FAILED, "%s: out of memory", path);
	rc = fsx_write_atomic(path, text, strlen(text), 0600);
	/* The text holds tokens: do not leave it in freed memory. */
	explicit_bzero(text, strlen(text));
	free(text);
	if (rc)
		return err_set(err, EXIT_FAILED, "write(%s): %s", path, strerror(-rc));
	return 0;
}

int oauth_store_remove(const char *path, struct err *err)
{
	int e;

	if (unlink(path) && errno != ENOENT) {
		e = errno;
		return err_set(err, EXIT_FAILED, "unlink(%s): %s", path, strerror(e));
	}
	return 0;
}
