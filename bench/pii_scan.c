/* PII detection speed (pii/detect.c), one core.
 *
 * 1. Scan throughput: pii_scan over the text file given (100 MB of mixed
 *    text, about one entity per KB: bench/pii_text.py), best of 3, with the
 *    count per kind. The patterns go to a JSON file for bench/pii_re.py,
 *    which runs them with Python's `re` over the same text.
 * 2. The filter's cost on one tool call with a 10 KB result (text content
 *    with ten entities): pii_redact_json on a fresh copy, the vault already
 *    holding the values (as on every call after the first), against parsing
 *    and printing the same result with jansson (what every call pays anyway).
 * Times are the process's CPU time: the figures hold on a loaded machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/fsx.h"
#include "../pii/pii.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int scan_bench(const struct pii_scanner *s, const char *path, const char *patterns_out)
{
	struct pii_match *m;
	struct err e = {0};
	size_t len, n = 0, i, count[64] = {0};
	double best = 1e9, t;
	json_t *pats;
	char *text;
	int r, k;

	if (fsx_read(path, (size_t)1 << 31, &text, &len) < 0) {
		fprintf(stderr, "read %s failed\n", path);
		return 1;
	}
	for (r = 0; r < 3; r++) {
		t = now();
		if (pii_scan(s, text, len, &m, &n, &e) < 0) {
			fprintf(stderr, "scan: %s\n", e.text);
			return 1;
		}
		t = now() - t;
		if (t < best)
			best = t;
		if (r < 2)
			free(m);
	}
	for (i = 0; i < n; i++)
		count[m[i].kind]++;
	free(m);
	printf("scan: %.1f MB in %.3f s = %.0f MB/s (CPU time, best of 3, one core); %zu entities:",
	       (double)len / 1e6, best, (double)len / 1e6 / best, n);
	pats = json_object();
	for (k = 0; k < pii_kind_count(s); k++) {
		printf(" %s %zu", pii_kind_name(s, k), count[k]);
		json_object_set_new(pats, pii_kind_name(s, k), json_string(pii_kind_regex(s, k)));
	}
	printf("\n");
	json_dump_file(pats, patterns_out, JSON_INDENT(1));
	json_decref(pats);
	free(text);
	return 0;
}

static int filter_bench(const struct pii_scanner *s)
{
	struct pii_vault *v = pii_vault_open(NULL, NULL);
	struct buf text;
	json_t *result, *copy, *args;
	double t, tf, tj, ta;
	char *dumped;
	int i, rounds = 2000;

	buf_init(&text, 1 << 20);
	for (i = 0; text.len < 10000; i++) {
		buf_printf(&text,
			   "Record %d of the export: the account was opened on 2021-03-%02d "
			   "and reviewed by the team; status active, tier %d. ",
			   i, i % 28 + 1, i % 5);
		if (i % 6 == 0)
			buf_printf(&text, "Contact user%d@example.com or (415) 555-%04d. ", i, i);
	}
	result = json_pack("{s:[{s:s,s:s%}],s:b}", "content", "type", "text", "text", text.data,
			   text.len, "isError", 0);
	copy = json_deep_copy(result);
	pii_redact_json(s, v, copy, NULL); /* the first call: the vault learns the values */
	json_decref(copy);
	t = now();
	for (i = 0; i < rounds; i++) {
		copy = json_deep_copy(result);
		pii_redact_json(s, v, copy, NULL);
		json_decref(copy);
	}
	tf = (now() - t) / rounds;
	/* The way back: the same text, tokenized, as the next call's argument. */
	copy = json_deep_copy(result);
	pii_redact_json(s, v, copy, NULL);
	args =
	    json_pack("{s:O}", "message",
		      json_object_get(json_array_get(json_object_get(copy, "content"), 0), "text"));
	json_decref(copy);
	t = now();
	for (i = 0; i < rounds; i++) {
		copy = json_deep_copy(args);
		pii_restore_json(s, v, copy, NULL);
		json_decref(copy);
	}
	ta = (now() - t) / rounds;
	json_decref(args);
	t = now();
	for (i = 0; i < rounds; i++) {
		dumped = json_dumps(result, JSON_COMPACT);
		copy = json_loads(dumped, 0, NULL);
		free(dumped);
		json_decref(copy);
	}
	tj = (now() - t) / rounds;
	printf("filter on a %zu-byte result: %.1f us per call, on the same text with its tokens "
	       "as arguments: %.1f us; parsing and printing the result with jansson: %.1f us "
	       "(ratio %.2f)\n",
	       text.len, tf * 1e6, ta * 1e6, tj * 1e6, (tf + ta) / tj);
	json_decref(result);
	buf_free(&text);
	pii_vault_free(v);
	return 0;
}

int main(int argc, char **argv)
{
	struct pii_config cfg;
	struct pii_scanner *s;
	struct err e = {0};
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: pii_scan TEXT PATTERNS_OUT\n");
		return 2;
	}
	pii_config_parse(NULL, "bench", &cfg, &e);
	s = pii_scanner_new(&cfg, &e);
	if (!s) {
		fprintf(stderr, "%s\n", e.text);
		return 1;
	}
	rc = scan_bench(s, argv[1], argv[2]) || filter_bench(s);
	pii_scanner_free(s);
	pii_config_free(&cfg);
	return rc;
}
