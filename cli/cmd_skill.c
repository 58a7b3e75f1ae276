#include "cli.h"

/* Placeholder until the skill part lands: the file its owner replaces. */
int cmd_skill(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	cli_error("skill: not built yet");
	return EXIT_USAGE;
}
