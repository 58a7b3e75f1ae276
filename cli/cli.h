/* The command line: global options, then one subcommand from the table in
 * main.c. Each subcommand parses its own options and returns an exit status
 * (enum mcpfs_exit). */
#ifndef MCPFS_CLI_H
#define MCPFS_CLI_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../common/err.h"
#include "../pii/engine.h"
#include "../policy/policy.h"
#include "../servers/config.h"
#include "../servers/hub.h"
#include "../servers/launcher.h"

struct cli {
	const char *config_path; /* --config, or NULL */
	const char *root_flag;	 /* --root, or NULL */
	char root[PATH_MAX];	 /* resolved on first use by cli_root() */
	struct config cfg;	 /* loaded on first use by cli_config() */
	bool have_cfg;
	enum pii_mode pii_mode;		/* --pii of exec and call; before cli_hub_new */
	struct pii_engine *pii;		/* made by cli_hub_new; freed by main after the command */
	struct server_sandbox *sandbox; /* likewise: how the hubs' stdio servers start */
	struct policy *policy;		/* likewise: the config's "policy" (cli_policy.c) */
};

/* The server sandbox for this command's hubs (made once; NULL when mcpfs
 * cannot sandbox, as a normal user, or out of memory: servers then start
 * plainly, and `mcpfs servers` says so). */
const struct server_launcher *cli_launcher(struct cli *cli);

/* Print "mcpfs: <text>" as one line on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print @j (stolen) as indented JSON on stdout. Returns 0, or EXIT_FAILED
 * after printing why. */
int cli_print_json(json_t *j);
/* Parse @arg, the value of @cmd's option @flag, as a number in (0, @max].
 * Returns 0, or -1 after printing why. */
int cli_positive(const char *cmd, const char *flag, const char *arg, double max, double *out);
/* For a subcommand @cmd's getopt that returned '?': one line naming the
 * option (opterr is 0) and the --help hint. Returns EXIT_USAGE. */
int cli_bad_option(const char *cmd, char **argv);
/* One line: @cmd got the wrong positional arguments, and the --help hint.
 * Returns EXIT_USAGE. */
int cli_bad_args(const char *cmd);
/* Print @e as one line and return its status (EXIT_FAILED if unset). */
int cli_fail(const struct err *e);
/* The verb argv[1] of command @cmd names: its index in a table of @n entries
 * @size bytes apart, each beginning with its name (pass &table[0].name).
 * For --help, -h or no verb, prints @print_usage; for an unknown verb, an
 * error. Returns the index, or -1 with *@status the exit status. */
int cli_verb(const char *cmd, int argc, char **argv, const char *const *names, size_t n,
	     size_t size, void (*print_usage)(FILE *f), int *status);

/* The config, loaded once. NULL after printing the error (exit EXIT_USAGE). */
const struct config *cli_config(struct cli *cli);
/* The data root, resolved once. NULL after printing the error. */
const char *cli_root(struct cli *cli);
/* A new hub over the config with state under the data root. @cache_max_age_s
 * as in struct hub_opts. NULL after printing the error. */
struct hub *cli_hub_new(struct cli *cli, double cache_max_age_s);
/* The PII engine over the config (made once), its hook added to @h when PII
 * is on for anyone. Returns 0, or -1 after printing the error. */
int cli_pii_attach(struct cli *cli, struct hub *h);
/* The policy over the config (made once), its hook added to @h. Returns 0,
 * or -1 after printing the error. */
int cli_policy_attach(struct cli *cli, struct hub *h);
/* @customer's rules under the config's policy into *@out (NULL: none, all
 * is open). Returns 0, or -1 when the config or its policy is bad (said). */
int cli_policy_rules(struct cli *cli, const char *customer, const struct policy_rules **out);
/* Parse --pii's value (on, off, config) into cli->pii_mode. -1 after printing why. */
int cli_pii_mode(struct cli *cli, const char *cmd, const char *arg);

/* A connection to the control socket of a daemon (`mcpfs serve`) running on
 * this data root, or -1 when none is (or $MCPFS_NO_DAEMON is set): the
 * caller then works on its own, as without a daemon. */
int cli_daemon_connect(struct cli *cli);
/* One request on @fd: the result (new), or NULL with @err (the daemon's
 * one-line error and exit status). @params is stolen. */
json_t *cli_daemon_request(int fd, const char *method, json_t *params, struct err *err);

/* Subcommands: argv[0] is the subcommand's name. */
int cmd_servers(struct cli *cli, int argc, char **argv);
int cmd_tools(struct cli *cli, int argc, char **argv);
int cmd_search(struct cli *cli, int argc, char **argv);
int cmd_call(struct cli *cli, int argc, char **argv);
int cmd_generate(struct cli *cli, int argc, char **argv);
int cmd_mount(struct cli *cli, int argc, char **argv);
int cmd_exec(struct cli *cli, int argc, char **argv);
int cmd_bridge(struct cli *cli, int argc, char **argv);
int cmd_workspace(struct cli *cli, int argc, char **argv);
int cmd_session(struct cli *cli, int argc, char **argv);
int cmd_skill(struct cli *cli, int argc, char **argv);
int cmd_login(struct cli *cli, int argc, char **argv);
int cmd_logout(struct cli *cli, int argc, char **argv);
int cmd_pii(struct cli *cli, int argc, char **argv);
int cmd_serve(struct cli *cli, int argc, char **argv);
int cmd_token(struct cli *cli, int argc, char **argv);
int cmd_config(struct cli *cli, int argc, char **argv);
int cmd_doctor(struct cli *cli, int argc, char **argv);

#endif
