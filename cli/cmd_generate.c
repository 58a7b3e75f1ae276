#include "cli.h"

/* Placeholder until the generate part lands: the file its owner replaces. */
int cmd_generate(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	cli_error("generate: not built yet");
	return EXIT_USAGE;
}
