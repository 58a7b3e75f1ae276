#include "cli.h"

/* Placeholder until the servers part lands: the file its owner replaces. */
int cmd_servers(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	cli_error("servers: not built yet");
	return EXIT_USAGE;
}
