/* mcpfs mount MOUNTPOINT [-f] [-o OPTS] [--lang py,ts] [--templates DIR] [--customer ID] */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../codegen/codegen.h"
#include "../common/id.h"
#include "../fusefs/mount.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: mcpfs mount MOUNTPOINT [-f] [-o OPTS] [--lang py,ts] [--templates DIR]\n"
		   "                   [--customer ID]\n\n"
		   "Mounts the tree of every configured server with FUSE, read-only, served\n"
		   "lazily and kept current; 'fusermount3 -u MOUNTPOINT' (or SIGTERM) ends it.\n\n"
		   "options:\n"
		   "  -f, --foreground  stay in the foreground (else daemonize once mounted)\n"
		   "  -o OPTS           FUSE mount options, e.g. allow_other\n"
		   "  --lang LANGS      py, ts or py,ts (default py,ts)\n"
		   "  --templates DIR   files in DIR replace the embedded templates\n"
		   "  --customer ID     that customer's view under the config's \"policy\":\n"
		   "                    only the servers and tools it may call\n"
		   "  -h, --help        this text\n");
}

int cmd_mount(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"foreground", no_argument, NULL, 'f'},
	    {"lang", required_argument, NULL, 'l'},
	    {"templates", required_argument, NULL, 't'},
	    {"customer", required_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct fusefs_mount_opts o = {.langs = CG_LANG_ALL};
	const char *customer = NULL;
	const struct policy_rules *rules;
	struct tree_filter filter = {policy_tree_tools, NULL};
	const struct config *cfg;
	const char *root;
	struct err e = {0};
	int c, status;

	while ((c = getopt_long(argc, argv, "fo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o.foreground = true;
			break;
		case 'o':
			o.fuse_opts = optarg;
			break;
		case 'l':
			o.langs = cg_langs_parse(optarg);
			if (!o.langs) {
				cli_error("mount: --lang '%s': want py, ts or py,ts", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			o.templates_dir = optarg;
			break;
		case 'c':
			customer = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option("mount", argv);
		}
	}
	if (optind != argc - 1) {
		return cli_bad_args("mount");
	}
	o.mountpoint = argv[optind];
	cfg = cli_config(cli);
	root = cfg ? cli_root(cli) : NULL;
	if (!root)
		return EXIT_USAGE;
	if (customer && !id_valid(customer, "customer", &e))
		return cli_fail(&e);
	if (customer) {
		if (cli_policy_rules(cli, customer, &rules) < 0)
			return EXIT_USAGE;
		filter.ctx = (void *)rules;
		o.filter = rules ? &filter : NULL;
	}
	o.launcher = cli_launcher(cli);
	status = fusefs_mount(cfg, root, &o, &e);
	if (status && e.text[0])
		cli_error("%s", e.text);
	return status;
}
