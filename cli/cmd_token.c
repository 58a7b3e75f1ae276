/* mcpfs token: bearer tokens for `serve --http` (serve/tokens.h). */
#include <stdio.h>
#include <string.h>

#include "../serve/tokens.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: mcpfs token create CUSTOMER\n"
		   "       mcpfs token list CUSTOMER [--json]\n"
		   "       mcpfs token revoke CUSTOMER [ID]\n\n"
		   "Bearer tokens for 'mcpfs serve --http': the token decides the customer.\n"
		   "create prints the new token alone on stdout, once; only its SHA-256 is\n"
		   "stored (<root>/tokens/, mode 0600). list shows each token's id and creation\n"
		   "time; revoke removes the token with that id, or all of the customer's.\n");
}

static int t_create(struct cli *cli, int argc, char **argv)
{
	char token[TOKEN_LEN + 1], id[TOKEN_ID_LEN + 1];
	const char *root;
	struct err e = {0};

	if (argc != 3) {
		usage(stderr);
		return EXIT_USAGE;
	}
	root = cli_root(cli);
	if (!root)
		return EXIT_USAGE;
	if (token_create(root, argv[2], token, id, &e) < 0)
		return cli_fail(&e);
	printf("%s\n", token);
	fprintf(stderr, "mcpfs: token %s for customer '%s'; it is not shown again\n", id, argv[2]);
	return 0;
}

static int t_list(struct cli *cli, int argc, char **argv)
{
	bool json = argc == 4 && !strcmp(argv[3], "--json");
	const char *root;
	struct err e = {0};
	json_t *arr, *v;
	size_t i;

	if (argc != 3 && !json) {
		usage(stderr);
		return EXIT_USAGE;
	}
	root = cli_root(cli);
	if (!root)
		return EXIT_USAGE;
	arr = token_list(root, argv[2], &e);
	if (!arr)
		return cli_fail(&e);
	if (json)
		return cli_print_json(arr);
	json_array_foreach(arr, i, v)
	    printf("%s  %s\n", json_string_value(json_object_get(v, "id")),
		   json_string_value(json_object_get(v, "created_at")));
	json_decref(arr);
	return 0;
}

static int t_revoke(struct cli *cli, int argc, char **argv)
{
	const char *root;
	struct err e = {0};
	size_t n = 0;

	if (argc != 3 && argc != 4) {
		usage(stderr);
		return EXIT_USAGE;
	}
	root = cli_root(cli);
	if (!root)
		return EXIT_USAGE;
	if (token_revoke(root, argv[2], argc == 4 ? argv[3] : NULL, &n, &e) < 0)
		return cli_fail(&e);
	fprintf(stderr, "mcpfs: revoked %zu token%s of customer '%s'\n", n, n == 1 ? "" : "s",
		argv[2]);
	return 0;
}

static const struct verb {
	const char *name;
	int (*run)(struct cli *cli, int argc, char **argv);
} verbs[] = {
    {"create", t_create},
    {"list", t_list},
    {"revoke", t_revoke},
};

int cmd_token(struct cli *cli, int argc, char **argv)
{
	int status;
	int i = cli_verb("token", argc, argv, &verbs[0].name, sizeof(verbs) / sizeof(verbs[0]),
			 sizeof(verbs[0]), usage, &status);

	if (i < 0)
		return status;
	if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		usage(stdout);
		return 0;
	}
	return verbs[i].run(cli, argc, argv);
}
