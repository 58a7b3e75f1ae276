#include "cli.h"

/* Placeholder until the bridge part lands: the file its owner replaces. */
int cmd_bridge(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	cli_error("bridge: not built yet");
	return EXIT_USAGE;
}
