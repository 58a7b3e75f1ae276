#include "cli.h"

/* Placeholder until the call part lands: the file its owner replaces. */
int cmd_call(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	cli_error("call: not built yet");
	return EXIT_USAGE;
}
