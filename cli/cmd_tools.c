#include "cli.h"

/* Placeholder until the tools part lands: the file its owner replaces. */
int cmd_tools(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	cli_error("tools: not built yet");
	return EXIT_USAGE;
}
