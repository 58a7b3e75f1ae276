#include "cli.h"

/* Placeholder until the mount part lands: the file its owner replaces. */
int cmd_mount(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	cli_error("mount: not built yet");
	return EXIT_USAGE;
}
