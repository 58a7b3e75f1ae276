/* The regex mode: a pcre2 pattern, caseless, over each tool's name, title
 * and description. A match in the name ranks above one in the title, which
 * ranks above one in the description. Backtracking is bounded twice: per
 * match (pcre2's match and depth limits) and per query (a budget of
 * matches that hit those limits is zero: the first one stops the query with
 * an error, so a pathological pattern costs one limit's worth of work per
 * tool at most once). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

#include "index_i.h"

#define REGEX_PATTERN_MAX 1024
#define REGEX_MATCH_LIMIT 100000u
#define REGEX_DEPTH_LIMIT 1000u

/* 1 match, 0 none, -1 with @err. */
static int match(pcre2_code *re, pcre2_match_data *md, pcre2_match_context *mc, json_t *v,
		 struct err *err)
{
	int rc;

	if (!json_is_string(v))
		return 0;
	rc = pcre2_match(re, (PCRE2_SPTR)json_string_value(v), json_string_length(v), 0, 0, md, mc);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
	    rc == PCRE2_ERROR_HEAPLIMIT) {
		err_set(err, EXIT_USAGE,
			"the regex backtracks too much (pcre2 match limit); "
			"make it simpler");
		return -1;
	}
	return 0; /* a subject pcre2 cannot read (bad UTF-8 is not checked): no match */
}

/* Insert into @hits (best first, ties in doc order). */
static size_t keep(struct search_hit *hits, size_t n, size_t cap, uint32_t doc, float score)
{
	size_t i;

	if (n == cap && hits[n - 1].score >= score)
		return n;
	if (n < cap)
		n++;
	for (i = n - 1; i > 0 && hits[i - 1].score < score; i--)
		hits[i] = hits[i - 1];
	hits[i].doc = doc;
	hits[i].score = score;
	hits[i].conf = 1;
	return n;
}

long search_regex(struct search_index *ix, const char *pattern, struct search_hit *hits,
		  size_t limit, struct err *err)
{
	static const char *const fields[] = {"name", "title", "description"};
	pcre2_match_context *mc = NULL;
	pcre2_match_data *md = NULL;
	pcre2_code *re = NULL;
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	long rc = -1;
	size_t i, f, n = 0;
	int code, m;

	if (strlen(pattern) > REGEX_PATTERN_MAX) {
		err_set(err, EXIT_USAGE, "the regex is %zu bytes; at most %d", strlen(pattern),
			REGEX_PATTERN_MAX);
		return -1;
	}
	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
			   PCRE2_CASELESS | PCRE2_NEVER_BACKSLASH_C, &code, &off, NULL);
	if (!re) {
		pcre2_get_error_message(code, msg, sizeof(msg));
		err_set(err, EXIT_USAGE, "invalid regex at offset %zu: %s", (size_t)off,
			(const char *)msg);
		return -1;
	}
	md = pcre2_match_data_create_from_pattern(re, NULL);
	mc = pcre2_match_context_create(NULL);
	if (!md || !mc) {
		err_set(err, EXIT_FAILED, "search: out of memory");
		goto out;
	}
	pcre2_set_match_limit(mc, REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(mc, REGEX_DEPTH_LIMIT);
	for (i = 0; i < ix->ndocs; i++) {
		const struct search_doc *d = &ix->docs[i];

		for (f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			m = match(re, md, mc, json_object_get(d->tool_json, fields[f]), err);
			if (m < 0)
				goto out;
			if (m) {
				n = keep(hits, n, limit, (uint32_t)i, (float)(3 - f));
				break;
			}
		}
	}
	rc = (long)n;
out:
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return rc;
}
