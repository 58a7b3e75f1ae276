#include "cli.h"

/* Placeholder until the exec part lands: the file its owner replaces. */
int cmd_exec(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	cli_error("exec: not built yet");
	return EXIT_USAGE;
}
