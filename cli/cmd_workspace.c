#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../skills/skills.h"
#include "../workspaces/admin.h"
#include "../workspaces/idle.h"
#include "../workspaces/quota.h"
#include "../workspaces/session.h"
#include "cli.h"

#define DAY_S 86400.0

struct ws_args {
	bool json, dry_run, all;
	long long quota_bytes, quota_files; /* -1: not given */
	double max_age_days;
	char **pos; /* positional arguments after the verb */
	int npos;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mcpfs workspace create CUSTOMER [--quota-bytes N[K|M|G]] "
		   "[--quota-files N] [--json]\n"
		   "       mcpfs workspace list [--json]\n"
		   "       mcpfs workspace show CUSTOMER [--json]\n"
		   "       mcpfs workspace rm CUSTOMER\n"
		   "       mcpfs workspace gc [CUSTOMER] [--max-age-days D] [--dry-run] [--json]\n"
		   "       mcpfs workspace umount CUSTOMER | --all\n\n"
		   "Per-customer folders under <root>/workspaces/<customer>/: workspace/ (the\n"
		   "jail's working directory, an ext4 image sized by the quota when the machine\n"
		   "allows loop mounts), skills/, sessions/, state/. 'create' is idempotent and\n"
		   "grows a byte quota; 'gc' drops session logs idle for D days (default 30) and\n"
		   "leftovers of killed writers; 'umount' unmounts workspaces and their\n"
		   "overlays (data stays; an overlay stays while a run or server uses it).\n"
		   "Defaults: $MCPFS_QUOTA_BYTES (256M), $MCPFS_QUOTA_FILES (10000);\n"
		   "MCPFS_QUOTA_MODE=none makes plain folders without enforcement.\n");
}

static long long parse_size(const char *s)
{
	unsigned long long v, mul = 1;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	if (*end == 'K' || *end == 'k')
		mul = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mul = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mul = 1ull << 30;
	else if (*end)
		return -1;
	if (mul > 1 && end[1])
		return -1;
	if (v > (unsigned long long)(1ll << 50) / mul)
		return -1;
	return (long long)(v * mul);
}

static int parse(int argc, char **argv, struct ws_args *a)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"dry-run", no_argument, NULL, 'n'},
	    {"all", no_argument, NULL, 'a'},
	    {"quota-bytes", required_argument, NULL, 'b'},
	    {"quota-files", required_argument, NULL, 'f'},
	    {"max-age-days", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	memset(a, 0, sizeof(*a));
	a->quota_bytes = a->quota_files = -1;
	a->max_age_days = 30;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			a->json = true;
			break;
		case 'n':
			a->dry_run = true;
			break;
		case 'a':
			a->all = true;
			break;
		case 'b':
		case 'f':
			if (parse_size(optarg) < 0) {
				cli_error("workspace: --quota-%s: not a size: %s",
					  c == 'b' ? "bytes" : "files", optarg);
				return EXIT_USAGE;
			}
			*(c == 'b' ? &a->quota_bytes : &a->quota_files) = parse_size(optarg);
			break;
		case 'd':
			a->max_age_days = strtod(optarg, &end);
			if (*end || a->max_age_days < 0) {
				cli_error("workspace: --max-age-days: not a number of days: %s",
					  optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return cli_bad_option("workspace", argv);
		}
	}
	a->pos = argv + optind;
	a->npos = argc - optind;
	return 0;
}

static int need_customer(const struct ws_args *a, const char *verb)
{
	if (a->npos == 1)
		return 0;
	cli_error("workspace %s: expected one CUSTOMER, got %d arguments", verb, a->npos);
	return EXIT_USAGE;
}

/* A running daemon's parked jails of @customer hold its workspace's mount,
 * which a growing image must be free of: gone first (serve/control.h,
 * retire). Quietly: without a daemon nothing is parked. */
static void daemon_retire(struct cli *cli, const char *customer)
{
	struct err e = {0};
	int fd = cli_daemon_connect(cli);

	if (fd < 0)
		return;
	json_decref(cli_daemon_request(fd, "retire", json_pack("{s:s}", "customer", customer), &e));
	close(fd);
}

static int do_create(struct cli *cli, const char *root, struct ws_args *a)
{
	struct err e = {0};
	struct ws_quota q;
	struct ws ws;
	int rc;

	if ((rc = need_customer(a, "create")))
		return rc;
	if (!id_valid(a->pos[0], "customer", &e))
		return cli_fail(&e);
	/* Start from what is recorded (or the defaults) and override what was given. */
	if (ws_open(root, a->pos[0], false, &ws, &e) < 0 || ws_quota_get(&ws, &q, &e) < 0) {
		err_clear(&e);
		ws_quota_defaults(&q);
	}
	if (a->quota_bytes >= 0)
		q.bytes = (unsigned long long)a->quota_bytes;
	if (a->quota_files >= 0)
		q.files = (unsigned long long)a->quota_files;
	else if (q.files > q.bytes / 1024)
		/* A small byte quota with the default file quota: scale the files. */
		q.files = q.bytes / 4096 > WS_QUOTA_MIN_FILES ? q.bytes / 4096 : WS_QUOTA_MIN_FILES;
	if (a->quota_bytes >= 0)
		daemon_retire(cli, a->pos[0]);
	if (ws_create(root, a->pos[0], &q, &ws, &e) < 0)
		return cli_fail(&e);
	if (a->json)
		return cli_print_json(json_pack(
		    "{s:s, s:s, s:{s:I, s:I, s:s}}", "customer", ws.customer, "path", ws.dir,
		    "quota", "bytes", (json_int_t)q.bytes, "files", (json_int_t)q.files, "mode",
		    q.mode == WS_QUOTA_IMAGE ? "ext4-image" : "none"));
	printf("%s\n", ws.dir);
	return 0;
}

static int do_list(struct cli *cli, const char *root, struct ws_args *a)
{
	struct err e = {0};
	json_t *arr;
	size_t i;

	(void)cli;
	if (a->npos) {
		cli_error("workspace list: takes no arguments");
		return EXIT_USAGE;
	}
	arr = ws_list(root, &e);
	if (!arr)
		return cli_fail(&e);
	if (a->json)
		return cli_print_json(arr);
	for (i = 0; i < json_array_size(arr); i++)
		puts(json_string_value(json_array_get(arr, i)));
	json_decref(arr);
	return 0;
}

static void iso_time(time_t t, char *out, size_t n)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *show_json(const char *root, const struct ws *ws, struct err *e)
{
	struct ws_usage u;
	struct ws_quota q;
	json_t *sessions, *skills, *j;
	char last[32];
	time_t t;

	(void)root;
	if (ws_quota_get(ws, &q, e) == -ENOENT) {
		ws_quota_defaults(&q);
		q.mode = WS_QUOTA_NONE;
	} else if (e->status) {
		return NULL;
	}
	if (ws_usage_get(ws, &u, e) < 0)
		return NULL;
	sessions = session_list(ws, e);
	if (!sessions)
		return NULL;
	t = ws_last_use(ws);
	iso_time(t, last, sizeof(last));
	skills = skill_list(ws->skills, "customer", e);
	if (!skills) {
		json_decref(sessions);
		return NULL;
	}
	j = json_pack("{s:s, s:s, s:{s:I, s:I, s:s, s:b}, s:{s:I, s:I, s:I, s:I, s:b}, s:I, "
		      "s:s?, s:I}",
		      "customer", ws->customer, "path", ws->dir, "quota", "bytes",
		      (json_int_t)q.bytes, "files", (json_int_t)q.files, "mode",
		      q.mode == WS_QUOTA_IMAGE ? "ext4-image" : "none", "enforced",
		      q.mode == WS_QUOTA_IMAGE, "usage", "bytes_used", (json_int_t)u.bytes_used,
		      "bytes_total", (json_int_t)u.bytes_total, "files_used",
		      (json_int_t)u.files_used, "files_total", (json_int_t)u.files_total, "mounted",
		      u.mounted, "sessions", (json_int_t)json_array_size(sessions), "last_use",
		      t ? last : NULL, "skills", (json_int_t)json_array_size(skills));
	json_decref(skills);
	json_decref(sessions);
	if (!j)
		err_set(e, EXIT_FAILED, "out of memory");
	return j;
}

static int do_show(struct cli *cli, const char *root, struct ws_args *a)
{
	struct err e = {0};
	struct ws ws;
	json_t *j, *q, *u;
	int rc;

	(void)cli;
	if ((rc = need_customer(a, "show")))
		return rc;
	if (ws_open(root, a->pos[0], false, &ws, &e) < 0)
		return cli_fail(&e);
	j = show_json(root, &ws, &e);
	if (!j)
		return cli_fail(&e);
	if (a->json)
		return cli_print_json(j);
	q = json_object_get(j, "quota");
	u = json_object_get(j, "usage");
	printf("customer:  %s\npath:      %s\n", ws.customer, ws.dir);
	printf("size:      %lld of %lld bytes (quota %lld, %s)\n",
	       (long long)json_integer_value(json_object_get(u, "bytes_used")),
	       (long long)json_integer_value(json_object_get(u, "bytes_total")),
	       (long long)json_integer_value(json_object_get(q, "bytes")),
	       json_is_true(json_object_get(q, "enforced")) ? "enforced" : "not enforced");
	printf("files:     %lld of %lld (quota %lld)\n",
	       (long long)json_integer_value(json_object_get(u, "files_used")),
	       (long long)json_integer_value(json_object_get(u, "files_total")),
	       (long long)json_integer_value(json_object_get(q, "files")));
	printf("sessions:  %lld\nskills:    %lld\nlast use:  %s\n",
	       (long long)json_integer_value(json_object_get(j, "sessions")),
	       (long long)json_integer_value(json_object_get(j, "skills")),
	       json_is_string(json_object_get(j, "last_use"))
		   ? json_string_value(json_object_get(j, "last_use"))
		   : "never");
	json_decref(j);
	return 0;
}

static int do_rm(struct cli *cli, const char *root, struct ws_args *a)
{
	struct err e = {0};
	struct ws ws;
	int rc;

	(void)cli;
	if ((rc = need_customer(a, "rm")))
		return rc;
	if (ws_open(root, a->pos[0], false, &ws, &e) < 0 || ws_remove(&ws, &e) < 0)
		return cli_fail(&e);
	return 0;
}

/* The customers a verb applies to: the one named, or every one. New array. */
static json_t *targets(const char *root, struct ws_args *a, const char *verb, struct err *e)
{
	if (a->npos > 1) {
		err_set(e, EXIT_USAGE, "workspace %s: at most one CUSTOMER", verb);
		return NULL;
	}
	if (a->npos == 1)
		return json_pack("[s]", a->pos[0]);
	return ws_list(root, e);
}

static int do_gc(struct cli *cli, const char *root, struct ws_args *a)
{
	struct err e = {0};
	json_t *who, *out, *gone;
	struct ws ws;
	size_t i, k;

	(void)cli;
	who = targets(root, a, "gc", &e);
	out = json_object();
	if (!who || !out) {
		json_decref(who);
		json_decref(out);
		return cli_fail(&e);
	}
	for (i = 0; i < json_array_size(who); i++) {
		const char *c = json_string_value(json_array_get(who, i));

		if (ws_open(root, c, false, &ws, &e) < 0)
			break;
		gone = ws_gc(&ws, a->max_age_days * DAY_S, a->dry_run, &e);
		if (!gone)
			break;
		for (k = 0; !a->json && k < json_array_size(gone); k++)
			printf("%s%s/%s\n", a->dry_run ? "would remove " : "removed ", c,
			       json_string_value(json_array_get(gone, k)));
		json_object_set_new(out, c, gone);
	}
	json_decref(who);
	if (e.status) {
		json_decref(out);
		return cli_fail(&e);
	}
	if (a->json)
		return cli_print_json(out);
	json_decref(out);
	return 0;
}

static int do_umount(struct cli *cli, const char *root, struct ws_args *a)
{
	struct err e = {0};
	struct ws ws;
	json_t *who;
	size_t i;
	int rc = 0;

	(void)cli;
	if (!a->all && a->npos != 1) {
		cli_error("workspace umount: name one CUSTOMER or --all");
		return EXIT_USAGE;
	}
	who = targets(root, a, "umount", &e);
	if (!who)
		return cli_fail(&e);
	for (i = 0; i < json_array_size(who); i++) {
		const char *c = json_string_value(json_array_get(who, i));
		char dir[PATH_MAX];

		/* Not ws_open: that would mount what we are about to unmount. */
		memset(&ws, 0, sizeof(ws));
		if (!id_valid(c, "customer", &e) ||
		    snprintf(dir, sizeof(dir), "%s/workspaces/%s", root, c) >= (int)sizeof(dir)) {
			rc = cli_fail(&e);
			continue;
		}
		snprintf(ws.customer, sizeof(ws.customer), "%s", c);
		snprintf(ws.dir, sizeof(ws.dir), "%s", dir);
		snprintf(ws.workspace, sizeof(ws.workspace), "%.*s/workspace", PATH_MAX - 16, dir);
		snprintf(ws.skills, sizeof(ws.skills), "%.*s/skills", PATH_MAX - 16, dir);
		if (ws_quota_umount(&ws, &e) < 0 || ws_umount_unheld(&ws, &e) < 0)
			rc = cli_fail(&e);
	}
	json_decref(who);
	return rc;
}

static const struct verb {
	const char *name;
	int (*run)(struct cli *cli, const char *root, struct ws_args *a);
} verbs[] = {
    {"create", do_create}, {"list", do_list}, {"show", do_show},
    {"rm", do_rm},	   {"gc", do_gc},     {"umount", do_umount},
};

int cmd_workspace(struct cli *cli, int argc, char **argv)
{
	struct ws_args a;
	const char *root;
	int i;
	int rc;

	i = cli_verb("workspace", argc, argv, &verbs[0].name, sizeof(verbs) / sizeof(verbs[0]),
		     sizeof(verbs[0]), usage, &rc);
	if (i < 0)
		return rc;
	rc = parse(argc - 1, argv + 1, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	root = cli_root(cli);
	if (!root)
		return EXIT_USAGE;
	return verbs[i].run(cli, root, &a);
}
