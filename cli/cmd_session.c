#include "cli.h"

/* Placeholder until the session part lands: the file its owner replaces. */
int cmd_session(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	cli_error("session: not built yet");
	return EXIT_USAGE;
}
