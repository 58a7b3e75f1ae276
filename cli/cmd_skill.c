#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../skills/skills.h"
#include "../workspaces/workspace.h"
#include "cli.h"

struct skill_args {
	bool json, shared;
	const char *name; /* save --name */
	char **pos;
	int npos;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mcpfs skill save CUSTOMER DIR [--name NAME] [--json]\n"
		   "       mcpfs skill save --shared DIR [--name NAME] [--json]\n"
		   "       mcpfs skill list CUSTOMER [--json] | --shared [--json]\n"
		   "       mcpfs skill show CUSTOMER NAME [--json] | --shared NAME [--json]\n"
		   "       mcpfs skill rm CUSTOMER NAME | --shared NAME\n\n"
		   "A skill is a folder with SKILL.md (front matter 'name' and 'description',\n"
		   "then instructions) and code files. A customer's skills live in\n"
		   "<root>/workspaces/C/skills/<name> (/skills/<name> in the jail); --shared\n"
		   "ones, installed by the operator for everyone, in <root>/skills-shared/<name>\n"
		   "(/skills/shared/<name>, read-only). Python imports skills.<name> and\n"
		   "skills.shared.<name> ('_' for '-'); TypeScript imports\n"
		   "\"/skills/<name>/<file>.ts\". 'list' and 'show' for a customer include the\n"
		   "shared skills; a broken SKILL.md is listed with its error.\n");
}

static int parse(int argc, char **argv, struct skill_args *a)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"shared", no_argument, NULL, 's'},
	    {"name", required_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	memset(a, 0, sizeof(*a));
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			a->json = true;
			break;
		case 's':
			a->shared = true;
			break;
		case 'n':
			a->name = optarg;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return cli_bad_option("skill", argv);
		}
	}
	a->pos = argv + optind;
	a->npos = argc - optind;
	return 0;
}

/* The stores a command reads: the customer's (unless --shared) and the shared one. */
struct stores {
	char customer[PATH_MAX]; /* "" with --shared */
	char shared[PATH_MAX];
	const char *target; /* where save and rm write */
};

static int do_save(struct stores *st, struct skill_args *a)
{
	char saved[SKILL_NAME_MAX + 1];
	struct err e = {0};

	if (skill_save(st->target, a->pos[0], a->name, saved, &e) < 0)
		return cli_fail(&e);
	if (a->json)
		return cli_print_json(json_pack("{s:s, s:s}", "name", saved, "scope",
						a->shared ? "shared" : "customer"));
	printf("%s/%s\n", st->target, saved);
	return 0;
}

static int do_list(struct stores *st, struct skill_args *a)
{
	struct err e = {0};
	json_t *all, *sh, *s;
	size_t i;

	all = st->customer[0] ? skill_list(st->customer, "customer", &e) : json_array();
	sh = all ? skill_list(st->shared, "shared", &e) : NULL;
	if (!all || !sh || json_array_extend(all, sh) < 0) {
		json_decref(all);
		json_decref(sh);
		return cli_fail(&e);
	}
	json_decref(sh);
	if (a->json)
		return cli_print_json(all);
	json_array_foreach(all, i, s)
	{
		json_t *err = json_object_get(s, "error");

		printf("%-24s %-8s %s%s\n", json_string_value(json_object_get(s, "name")),
		       json_string_value(json_object_get(s, "scope")), err ? "BROKEN: " : "",
		       json_string_value(err ? err : json_object_get(s, "description")));
	}
	json_decref(all);
	return 0;
}

static int do_show(struct stores *st, struct skill_args *a)
{
	struct err e = {0};
	json_t *sk = NULL, *f;
	size_t i;

	if (st->customer[0])
		sk = skill_show(st->customer, a->pos[0], &e);
	if (sk)
		json_object_set_new(sk, "scope", json_string("customer"));
	if (!sk && (!st->customer[0] || !strncmp(e.text, "no skill", 8))) {
		err_clear(&e);
		sk = skill_show(st->shared, a->pos[0], &e);
		if (sk)
			json_object_set_new(sk, "scope", json_string("shared"));
	}
	if (!sk)
		return cli_fail(&e);
	if (a->json)
		return cli_print_json(sk);
	printf("name:        %s\nscope:       %s\ndescription: %s\nfiles:\n",
	       json_string_value(json_object_get(sk, "name")),
	       json_string_value(json_object_get(sk, "scope")),
	       json_string_value(json_object_get(sk, "description")));
	json_array_foreach(json_object_get(sk, "files"), i, f)
	{
		printf("  %s (%lld bytes)\n", json_string_value(json_object_get(f, "path")),
		       (long long)json_integer_value(json_object_get(f, "size")));
	}
	printf("\n%s", json_string_value(json_object_get(sk, "instructions")));
	json_decref(sk);
	return 0;
}

static int do_rm(struct stores *st, struct skill_args *a)
{
	struct err e = {0};

	if (skill_remove(st->target, a->pos[0], &e) < 0)
		return cli_fail(&e);
	return 0;
}

static const struct verb {
	const char *name;
	int nargs; /* after CUSTOMER (or --shared) */
	int (*run)(struct stores *st, struct skill_args *a);
} verbs[] = {
    {"save", 1, do_save},
    {"list", 0, do_list},
    {"show", 1, do_show},
    {"rm", 1, do_rm},
};

int cmd_skill(struct cli *cli, int argc, char **argv)
{
	struct skill_args a;
	struct stores st;
	struct err e = {0};
	const char *root;
	struct ws ws;
	int i;
	int rc;

	i = cli_verb("skill", argc, argv, &verbs[0].name, sizeof(verbs) / sizeof(verbs[0]),
		     sizeof(verbs[0]), usage, &rc);
	if (i < 0)
		return rc;
	rc = parse(argc - 1, argv + 1, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.npos != verbs[i].nargs + !a.shared) {
		cli_error("skill %s: expected %s%s, got %d arguments", verbs[i].name,
			  a.shared ? "--shared" : "CUSTOMER",
			  verbs[i].nargs ? (i == 0 ? " DIR" : " NAME") : "", a.npos);
		return EXIT_USAGE;
	}
	root = cli_root(cli);
	if (!root)
		return EXIT_USAGE;
	memset(&st, 0, sizeof(st));
	if (ws_skills_shared(root, st.shared, sizeof(st.shared), &e) < 0)
		return cli_fail(&e);
	st.target = st.shared;
	if (!a.shared) {
		if (ws_open(root, a.pos[0], false, &ws, &e) < 0)
			return cli_fail(&e);
		snprintf(st.customer, sizeof(st.customer), "%s", ws.skills);
		st.target = st.customer;
		a.pos++;
		a.npos--;
	}
	return verbs[i].run(&st, &a);
}
