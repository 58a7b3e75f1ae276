#include "catalog_cache.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/fsx.h"
#include "../common/strmap.h"

/* One field of the hash, with a separator after it so ("ab","c") !=
 * ("a","bc"); an absent field hashes as "\x01". */
static uint64_t hash_str(uint64_t h, const char *s)
{
	if (!s)
		s = "\x01";
	return strhash_add(strhash_add(h, s, strlen(s)), "\xff", 1);
}

static uint64_t hash_strv(uint64_t h, char **v, size_t n)
{
	char count[32];
	size_t i;

	snprintf(count, sizeof(count), "%zu", n);
	h = hash_str(h, count);
	for (i = 0; i < n; i++)
		h = hash_str(h, v[i]);
	return h;
}

void catalog_cache_hash(const struct server_config *sc, char out[17])
{
	uint64_t h = STRHASH_INIT;
	char num[32];

	/* What mcpfs keeps of a catalog and declares to servers (which changes
	 * what they list) are part of it: a cache of an older mcpfs is stale. */
	h = hash_str(h, "catalog 3: resources, prompts; sampling declared");
	snprintf(num, sizeof(num), "%d/%d", (int)sc->transport, (int)sc->scope);
	h = hash_str(h, num);
	h = hash_str(h, sc->command);
	h = hash_strv(h, sc->args, sc->nargs);
	h = hash_strv(h, sc->env, sc->nenv);
	h = hash_str(h, sc->cwd);
	h = hash_str(h, sc->url);
	h = hash_strv(h, sc->headers, sc->nheaders);
	h = hash_strv(h, sc->roots, sc->nroots);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
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
