#include "cli.h"

/* Placeholder until the workspace part lands: the file its owner replaces. */
int cmd_workspace(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	cli_error("workspace: not built yet");
	return EXIT_USAGE;
}
