/* The config's "policy" for this process's hub (policy/policy.h). */
#include <string.h>

#include "cli.h"

int cli_policy_attach(struct cli *cli, struct hub *h)
{
	const struct config *cfg = cli_config(cli);
	struct err e = {0};
	int rc;

	if (!cfg)
		return -1;
	if (!cli->policy && !(cli->policy = policy_new(cfg->policy, cfg->origin, &e))) {
		cli_fail(&e);
		return -1;
	}
	rc = policy_attach(cli->policy, h);
	if (rc < 0) {
		cli_error("policy: %s", strerror(-rc));
		return -1;
	}
	return 0;
}
