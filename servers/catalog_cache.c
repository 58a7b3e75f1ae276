#include "catalog_cache.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/fsx.h"

struct fnv {
	uint64_t h;
};

/* FNV-1a, with a separator after every field so ("ab","c") != ("a","bc"). */
static void fnv_str(struct fnv *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "\x01");

	for (; *p; p++) {
		f->h ^= *p;
		f->h *= 1099511628211ULL;
	}
	f->h ^= 0xff;
	f->h *= 1099511628211ULL;
}

static void fnv_strv(struct fnv *f, char **v, size_t n)
{
	char count[32];
	size_t i;

	snprintf(count, sizeof(count), "%zu", n);
	fnv_str(f, count);
	for (i = 0; i < n; i++)
		fnv_str(f, v[i]);
}

void catalog_cache_hash(const struct server_config *sc, char out[17])
{
	struct fnv f = {14695981039346656037ULL};
	char num[32];

	snprintf(num, sizeof(num), "%d/%d", (int)sc->transport, (int)sc->scope);
	fnv_str(&f, num);
	fnv_str(&f, sc->command);
	fnv_strv(&f, sc->args, sc->nargs);
	fnv_strv(&f, sc->env, sc->nenv);
	fnv_str(&f, sc->cwd);
	fnv_str(&f, sc->url);
	fnv_strv(&f, sc->headers, sc->nheaders);
	fnv_strv(&f, sc->roots, sc->nroots);
	snprintf(out, 17, "%016llx", (unsigned long long)f.h);
}

json_t *catalog_cache_load(const char *path, const char *hash, double max_age_s,
			   uint64_t *generation, json_t **notes)
{
	json_t *root, *tools = NULL;
	const char *h;
	char *text;
	double saved;

	if (max_age_s < 0 || fsx_read(path, CATALOG_CACHE_MAX, &text, NULL))
		return NULL;
	root = json_loads(text, JSON_ALLOW_NUL, NULL);
	free(text);
	h = json_string_value(json_object_get(root, "config_hash"));
	saved = json_number_value(json_object_get(root, "saved_at"));
	if (h && !strcmp(h, hash) && (double)time(NULL) - saved <= max_age_s &&
	    json_is_array(json_object_get(root, "tools"))) {
		tools = json_incref(json_object_get(root, "tools"));
		*notes = json_incref(json_object_get(root, "notes"));
		*generation = (uint64_t)json_integer_value(json_object_get(root, "generation"));
		if (!*generation)
			*generation = 1;
	}
	json_decref(root);
	return tools;
}

int catalog_cache_save(const char *path, const char *hash, uint64_t generation, json_t *tools,
		       json_t *notes)
{
	char dir[PATH_MAX], *slash, *text;
	json_t *root;
	int rc;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		rc = fsx_mkdirs(dir, 0750);
		if (rc)
			return rc;
	}
	root = json_pack("{s:s, s:I, s:I, s:O, s:O*}", "config_hash", hash, "saved_at",
			 (json_int_t)time(NULL), "generation", (json_int_t)generation, "tools",
			 tools, "notes", notes);
	text = root ? json_dumps(root, JSON_COMPACT) : NULL;
	json_decref(root);
	if (!text)
		return -ENOMEM;
	rc = fsx_write_atomic(path, text, strlen(text), 0640);
	free(text);
	return rc;
}
