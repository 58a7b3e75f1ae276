#define _GNU_SOURCE /* memmem */
#include "templates_i.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/embed.h"
#include "../common/fsx.h"

#define TEMPLATE_MAX (1u << 20)

struct cg_tfile {
	char *name; /* owned */
	char *data; /* owned */
	size_t len;
};

struct cg_templates {
	const struct embedded_file *base; /* borrowed: the table built into the binary */
	struct cg_tfile *over;		  /* owned overrides */
	size_t nover;
	bool owned;
};

static const struct cg_templates embedded = {cg_embedded_files, NULL, 0, false};

const struct cg_templates *cg_templates_embedded(void)
{
	return &embedded;
}

static const struct embedded_file *find_embedded(const char *name)
{
	const struct embedded_file *f;

	for (f = cg_embedded_files; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

struct cg_templates *cg_templates_load(const char *dir, struct err *err)
{
	const struct embedded_file *f;
	struct cg_templates *t;
	char path[4096];
	struct stat st;
	size_t n = 0;
	char *data;
	size_t len;
	int rc;

	t = calloc(1, sizeof(*t));
	for (f = cg_embedded_files; f->name; f++)
		n++;
	if (t)
		t->over = calloc(n ? n : 1, sizeof(*t->over));
	if (!t || !t->over) {
		err_set(err, EXIT_FAILED, "templates %s: out of memory", dir);
		goto out_free;
	}
	t->base = cg_embedded_files;
	t->owned = true;
	if (stat(dir, &st) < 0) {
		err_set(err, EXIT_USAGE, "templates: stat(%s): %s", dir, strerror(errno));
		goto out_free;
	}
	if (!S_ISDIR(st.st_mode)) {
		err_set(err, EXIT_USAGE, "templates: %s is not a folder", dir);
		goto out_free;
	}
	/* Only names the binary knows can matter; the rest of the folder is
	 * the user's. */
	for (f = cg_embedded_files; f->name; f++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, f->name) >= sizeof(path))
			continue;
		rc = fsx_read(path, TEMPLATE_MAX, &data, &len);
		if (rc == -ENOENT)
			continue;
		if (rc < 0) {
			err_set(err, EXIT_USAGE, "templates: read(%s): %s", path, strerror(-rc));
			goto out_free;
		}
		t->over[t->nover].name = strdup(f->name);
		if (!t->over[t->nover].name) {
			free(data);
			err_set(err, EXIT_FAILED, "templates %s: out of memory", dir);
			goto out_free;
		}
		t->over[t->nover].data = data;
		t->over[t->nover].len = len;
		t->nover++;
	}
	return t;
out_free:
	cg_templates_free(t);
	return NULL;
}

void cg_templates_free(struct cg_templates *t)
{
	size_t i;

	if (!t || !t->owned)
		return;
	for (i = 0; i < t->nover; i++) {
		free(t->over[i].name);
		free(t->over[i].data);
	}
	free(t->over);
	free(t);
}

const char *cg_tmpl_get(const struct cg_templates *t, const char *name, size_t *len)
{
	const struct embedded_file *f;
	size_t i;

	for (i = 0; i < t->nover; i++)
		if (!strcmp(t->over[i].name, name)) {
			*len = t->over[i].len;
			return t->over[i].data;
		}
	f = find_embedded(name);
	*len = f ? f->len : 0;
	return f ? f->data : NULL;
}

int cg_tmpl_fill(const struct cg_templates *t, const char *name, const struct cg_kv *kv, size_t n,
		 struct buf *out)
{
	const char *p, *end, *open, *close;
	size_t len, i, klen;

	p = cg_tmpl_get(t, name, &len);
	if (!p)
		return -ENOENT;
	end = p + len;
	while (p < end && !buf_error(out)) {
		open = memmem(p, (size_t)(end - p), "{{", 2);
		close = open ? memmem(open + 2, (size_t)(end - open - 2), "}}", 2) : NULL;
		if (!close) {
			buf_append(out, p, (size_t)(end - p));
			break;
		}
		buf_append(out, p, (size_t)(open - p));
		klen = (size_t)(close - open - 2);
		for (i = 0; i < n; i++)
			if (strlen(kv[i].key) == klen && !memcmp(kv[i].key, open + 2, klen))
				break;
		if (i == n)
			buf_append(out, open, (size_t)(close + 2 - open));
		else if (kv[i].value)
			buf_append(out, kv[i].value, kv[i].len);
		p = close + 2;
	}
	return buf_error(out);
}
