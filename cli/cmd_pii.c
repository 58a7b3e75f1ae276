/* `mcpfs pii scan|redact|restore`: the detectors and a session's vault on
 * stdin, and the engine every hub of this process gets (cli_pii_attach). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/fsx.h"
#include "../pii/engine.h"
#include "cli.h"

#define PII_STDIN_MAX ((size_t)1 << 30)

int cli_pii_mode(struct cli *cli, const char *cmd, const char *arg)
{
	if (!strcmp(arg, "on"))
		cli->pii_mode = PII_MODE_ON;
	else if (!strcmp(arg, "off"))
		cli->pii_mode = PII_MODE_OFF;
	else if (!strcmp(arg, "config"))
		cli->pii_mode = PII_MODE_CONFIG;
	else {
		cli_error("%s: --pii wants on, off or config, not '%s'", cmd, arg);
		return -1;
	}
	return 0;
}

static struct pii_engine *engine(struct cli *cli)
{
	const struct config *cfg = cli_config(cli);
	const char *root = cfg ? cli_root(cli) : NULL;
	struct err e = {0};

	if (cli->pii || !root)
		return cli->pii;
	cli->pii = pii_engine_new(root, cfg->pii, cfg->origin, cli->pii_mode, &e);
	if (!cli->pii)
		cli_fail(&e);
	return cli->pii;
}

int cli_pii_attach(struct cli *cli, struct hub *h)
{
	struct pii_engine *e = engine(cli);
	int rc;

	if (!e)
		return -1;
	if (!pii_engine_scanner(e))
		return 0;
	rc = pii_engine_hook(e, h);
	if (rc < 0) {
		cli_error("pii: add the call hook: %s", strerror(-rc));
		return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mcpfs pii scan [--json]\n"
		   "       mcpfs pii redact [--customer C] [--session S]\n"
		   "       mcpfs pii restore --session S [--customer C]\n\n"
		   "Reads stdin. scan lists the personal data it finds (--json: an array of\n"
		   "{type, start, end, value}, byte offsets); redact prints the text with\n"
		   "each value replaced by its token ([EMAIL_1]) from the session's vault\n"
		   "(without --session, a vault that ends with the command); restore prints\n"
		   "it with the session's tokens replaced by their values, and fails on a\n"
		   "token the session never issued. Types: EMAIL, PHONE, SSN, CREDIT_CARD,\n"
		   "IP_ADDRESS, IBAN and the config's custom patterns (its \"pii\" section;\n"
		   "these commands run whether or not it turns PII on).\n");
}

/* A match's bytes as a JSON string; bytes that are not UTF-8 (a custom
 * pattern may match them) become '?'. */
static json_t *value_string(const char *p, size_t n)
{
	json_t *s = json_stringn(p, n);
	char *copy;
	size_t i;

	if (s)
		return s;
	copy = malloc(n + 1);
	if (!copy)
		return NULL;
	for (i = 0; i < n; i++)
		copy[i] = (unsigned char)p[i] < 0x80 && p[i] ? p[i] : '?';
	s = json_stringn(copy, n);
	free(copy);
	return s;
}

static int do_scan(struct pii_engine *pe, const char *in, size_t len, bool as_json)
{
	const struct pii_scanner *s = pii_engine_scanner(pe);
	struct pii_match *m = NULL;
	struct err e = {0};
	json_t *arr;
	size_t n, i;

	if (pii_scan(s, in, len, &m, &n, &e) < 0)
		return cli_fail(&e);
	if (!as_json) {
		for (i = 0; i < n; i++)
			printf("%s\t%zu\t%zu\t%.*s\n", pii_kind_name(s, m[i].kind), m[i].start,
			       m[i].end, (int)(m[i].end - m[i].start), in + m[i].start);
		free(m);
		return 0;
	}
	arr = json_array();
	for (i = 0; arr && i < n; i++)
		if (json_array_append_new(
			arr, json_pack("{s:s,s:I,s:I,s:o*}", "type", pii_kind_name(s, m[i].kind),
				       "start", (json_int_t)m[i].start, "end", (json_int_t)m[i].end,
				       "value",
				       value_string(in + m[i].start, m[i].end - m[i].start))) < 0) {
			json_decref(arr);
			arr = NULL;
		}
	free(m);
	if (!arr) {
		cli_error("pii scan: out of memory");
		return EXIT_FAILED;
	}
	return cli_print_json(arr);
}

int cmd_pii(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"session", required_argument, NULL, 's'},
	    {"customer", required_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static const struct {
		const char *name;
	} verbs[] = {{"scan"}, {"redact"}, {"restore"}};
	const char *customer = NULL, *session = NULL;
	struct pii_engine *pe;
	struct pii_vault *v;
	struct err e = {0};
	struct buf out;
	bool as_json = false;
	char *in = NULL;
	size_t len;
	int verb, c, rc, status;

	verb = cli_verb("pii", argc, argv, &verbs[0].name, 3, sizeof(verbs[0]), usage, &status);
	if (verb < 0)
		return status;
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = true;
			break;
		case 's':
			session = optarg;
			break;
		case 'C':
			customer = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || (as_json && verb != 0) || (verb == 2 && !session)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cli->pii_mode = PII_MODE_ON;
	pe = engine(cli);
	if (!pe)
		return EXIT_USAGE;
	rc = fsx_read_fd(STDIN_FILENO, PII_STDIN_MAX, &in, &len);
	if (rc < 0) {
		cli_error("pii: read stdin: %s",
			  rc == -E2BIG ? "larger than 1 GiB" : strerror(-rc));
		return EXIT_USAGE;
	}
	if (verb == 0) {
		status = do_scan(pe, in, len, as_json);
		free(in);
		return status;
	}
	v = pii_engine_vault(pe, customer, session, &e);
	buf_init(&out, (size_t)1 << 31);
	if (!v)
		rc = -1;
	else if (verb == 1)
		rc = pii_redact(pii_engine_scanner(pe), v, in, len, &out, NULL, &e);
	else
		rc = pii_restore(pii_engine_scanner(pe), v, in, len, &out, &e);
	free(in);
	if (rc < 0) {
		buf_free(&out);
		return cli_fail(&e);
	}
	if (out.len)
		fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	return 0;
}
