/* The config's "policy" for this process's hub (policy/policy.h). */
#include <string.h>

#include "cli.h"

/* The policy over the config, made once. */
static struct policy *policy_of(struct cli *cli)
{
	const struct config *cfg = cli_config(cli);
	struct err e = {0};

	if (!cfg)
		return NULL;
	if (!cli->policy && !(cli->policy = policy_new(cfg->policy, cfg->origin, &e)))
		cli_fail(&e);
	return cli->policy;
}

int cli_policy_rules(struct cli *cli, const char *customer, const struct policy_rules **out)
{
	struct policy *p = policy_of(cli);

	*out = p ? policy_rules(p, customer) : NULL;
	return p ? 0 : -1;
}

int cli_policy_attach(struct cli *cli, struct hub *h)
{
	int rc;

	const char *root = cli_root(cli);

	if (!root || !policy_of(cli))
		return -1;
	rc = policy_attach(cli->policy, h, root);
	if (rc < 0) {
		cli_error("policy: %s", strerror(-rc));
		return -1;
	}
	return 0;
}
