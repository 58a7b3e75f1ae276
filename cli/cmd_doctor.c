/* mcpfs doctor: one line per thing mcpfs needs from the host (kernel parts,
 * runtimes, the config's server programs, the data root), each failing one
 * with its fix; exit 1 when one fails. Nothing is started but probes. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/paths.h"
#include "cli.h"
#include "doctor.h"

struct check {
	const char *name;
	enum doctor_verdict (*run)(struct doctor_line *l);
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mcpfs doctor\n\n"
		   "Check what mcpfs needs from this host, one line each: user namespaces,\n"
		   "cgroups, FUSE and fusermount3, loop devices, seccomp, Python and Node,\n"
		   "the programs of the config's servers, the data root. A failing check says\n"
		   "how to fix it. Exit status 1 when a check fails (warn does not).\n\n"
		   "  -h, --help  this text\n");
}

static const char *const verdict_names[] = {
    [DOCTOR_OK] = "ok",
    [DOCTOR_WARN] = "warn",
    [DOCTOR_FAIL] = "FAIL",
};

static void print_line(const char *name, enum doctor_verdict v, const struct doctor_line *l)
{
	printf("%-5s %-18s %s%s%s\n", verdict_names[v], name, l->found, l->fix[0] ? "; fix: " : "",
	       l->fix);
}

/* A program on $PATH (or @name itself when it holds a '/') into @out. */
static int find_program(const char *name, char *out, size_t n)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(name, '/')) {
		snprintf(out, n, "%s", name);
		return access(out, X_OK);
	}
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		snprintf(out, n, "%.*s/%s", (int)(end - p), p, name);
		if (end > p && access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

static enum doctor_verdict check_fusermount(struct doctor_line *l)
{
	char path[4096];
	struct stat st;

	if (find_program("fusermount3", path, sizeof(path)) < 0) {
		snprintf(l->found, sizeof(l->found), "fusermount3 not on PATH");
		snprintf(l->fix, sizeof(l->fix), "apt-get install fuse3");
		return geteuid() == 0 ? DOCTOR_WARN : DOCTOR_FAIL;
	}
	if (geteuid() != 0 && (stat(path, &st) < 0 || !(st.st_mode & S_ISUID))) {
		snprintf(l->found, sizeof(l->found), "%s is not setuid root", path);
		snprintf(l->fix, sizeof(l->fix), "chmod u+s %s (as the fuse3 package installs it)",
			 path);
		return DOCTOR_FAIL;
	}
	snprintf(l->found, sizeof(l->found), "%s", path);
	return DOCTOR_OK;
}

/* The first line @argv prints to stdout, or "" when it cannot run. */
static void first_line(const char *cmd, char *out, size_t n)
{
	FILE *p = popen(cmd, "re");

	out[0] = '\0';
	if (!p)
		return;
	if (!fgets(out, (int)n, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

/* The jail runs exactly these: its root is the host's /usr. */
static enum doctor_verdict check_runtime(struct doctor_line *l, const char *prog,
					 const char *prefix, int want_major, int want_minor,
					 const char *pkg)
{
	char cmd[256], line[256];
	int major = 0, minor = 0;

	snprintf(cmd, sizeof(cmd), "%s --version 2>/dev/null", prog);
	first_line(cmd, line, sizeof(line));
	if (strncmp(line, prefix, strlen(prefix)) ||
	    sscanf(line + strlen(prefix), "%d.%d", &major, &minor) != 2) {
		snprintf(l->found, sizeof(l->found), "%s does not run%s%s", prog,
			 line[0] ? ": " : "", line);
		snprintf(l->fix, sizeof(l->fix), "apt-get install %s", pkg);
		return DOCTOR_FAIL;
	}
	if (major < want_major || (major == want_major && minor < want_minor)) {
		snprintf(l->found, sizeof(l->found), "%s is %d.%d, older than %d.%d", prog, major,
			 minor, want_major, want_minor);
		snprintf(l->fix, sizeof(l->fix), "install %s %d.%d or newer as %s", pkg, want_major,
			 want_minor, prog);
		return DOCTOR_FAIL;
	}
	snprintf(l->found, sizeof(l->found), "%s %d.%d", prog, major, minor);
	return DOCTOR_OK;
}

static enum doctor_verdict check_python(struct doctor_line *l)
{
	return check_runtime(l, "/usr/bin/python3", "Python ", 3, 9, "python3");
}

/* --import, which the TypeScript loader needs: Node 18.19. */
static enum doctor_verdict check_node(struct doctor_line *l)
{
	return check_runtime(l, "/usr/bin/node", "v", 18, 19, "nodejs");
}

static const struct check host_checks[] = {
    {"user namespaces", doctor_userns}, {"cgroups", doctor_cgroup},    {"fuse", doctor_fuse},
    {"fusermount3", check_fusermount},	{"loop devices", doctor_loop}, {"seccomp", doctor_seccomp},
    {"python", check_python},		{"node", check_node},
};

/* For a missing file inside node_modules: the npm command that puts it there. */
static void npm_fix(const char *path, char *fix, size_t n)
{
	const char *nm = strstr(path, "/node_modules/"), *pkg, *end;
	char lock[4200];

	if (!nm) {
		snprintf(fix, n, "install the server, or fix its args in the config");
		return;
	}
	pkg = nm + strlen("/node_modules/");
	end = strchr(pkg, '/');
	if (end && pkg[0] == '@')
		end = strchr(end + 1, '/');
	snprintf(lock, sizeof(lock), "%.*s/package-lock.json", (int)(nm - path), path);
	if (access(lock, F_OK) == 0)
		snprintf(fix, n, "cd %.*s && npm ci", (int)(nm - path), path);
	else
		snprintf(fix, n, "cd %.*s && npm install %.*s", (int)(nm - path), path,
			 end ? (int)(end - pkg) : (int)strlen(pkg), pkg);
}

/* One stdio server: its command runs and the files its args name exist. */
static enum doctor_verdict check_server(const struct server_config *sc, struct doctor_line *l)
{
	char path[4096];
	size_t i;

	if (sc->disabled) {
		snprintf(l->found, sizeof(l->found), "disabled: %s", sc->disabled);
		return DOCTOR_WARN;
	}
	if (sc->transport != TRANSPORT_STDIO) {
		snprintf(l->found, sizeof(l->found), "remote (%s): not checked here", sc->url);
		return DOCTOR_OK;
	}
	if (find_program(sc->command, path, sizeof(path)) < 0) {
		snprintf(l->found, sizeof(l->found), "command '%s' not found", sc->command);
		snprintf(l->fix, sizeof(l->fix), "%s",
			 !strcmp(sc->command, "node") || !strcmp(sc->command, "npx")
			     ? "apt-get install nodejs npm"
			     : "install it, or fix the server's \"command\" in the config");
		return DOCTOR_FAIL;
	}
	for (i = 0; i < sc->nargs; i++) {
		const char *a = sc->args[i];

		/* ${WORKSPACE} and the like are a customer's, made when it starts */
		if (a[0] != '/' || strstr(a, "${") || access(a, F_OK) == 0)
			continue;
		snprintf(l->found, sizeof(l->found), "%s is missing", a);
		npm_fix(a, l->fix, sizeof(l->fix));
		return DOCTOR_FAIL;
	}
	snprintf(l->found, sizeof(l->found), "%s and its files are in place", path);
	return DOCTOR_OK;
}

static enum doctor_verdict check_root(struct cli *cli, struct doctor_line *l)
{
	struct err e = {0};
	char root[4096], probe[4200];
	int fd;

	if (paths_root(cli->root_flag, root, sizeof(root), &e) < 0) {
		snprintf(l->found, sizeof(l->found), "%s", e.text);
		snprintf(l->fix, sizeof(l->fix),
			 "--root DIR or MCPFS_ROOT=DIR, on a writable disk");
		return DOCTOR_FAIL;
	}
	snprintf(probe, sizeof(probe), "%s/.doctor-XXXXXX", root);
	fd = mkstemp(probe);
	if (fd < 0) {
		snprintf(l->found, sizeof(l->found), "%s is not writable: %m", root);
		snprintf(l->fix, sizeof(l->fix),
			 "chown it to this user, or --root DIR / MCPFS_ROOT=DIR elsewhere");
		return DOCTOR_FAIL;
	}
	close(fd);
	unlink(probe);
	snprintf(l->found, sizeof(l->found), "%s is writable", root);
	return DOCTOR_OK;
}

int cmd_doctor(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const struct config *cfg;
	char name[64];
	size_t i, failed = 0;
	enum doctor_verdict v;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option("doctor", argv);
		}
	}
	if (optind < argc)
		return cli_bad_args("doctor");
	for (i = 0; i < sizeof(host_checks) / sizeof(host_checks[0]); i++) {
		struct doctor_line l = {"", ""};

		v = host_checks[i].run(&l);
		failed += v == DOCTOR_FAIL;
		print_line(host_checks[i].name, v, &l);
	}
	{
		struct doctor_line l = {"", ""};

		v = check_root(cli, &l);
		failed += v == DOCTOR_FAIL;
		print_line("data root", v, &l);
	}
	fflush(stdout);
	cfg = cli_config(cli);
	if (!cfg) {
		printf("%-5s %-18s the config does not load (above)\n", "FAIL", "config");
		return EXIT_FAILED;
	}
	for (i = 0; i < cfg->nservers; i++) {
		struct doctor_line l = {"", ""};

		v = check_server(&cfg->servers[i], &l);
		failed += v == DOCTOR_FAIL;
		snprintf(name, sizeof(name), "server %s", cfg->servers[i].name);
		print_line(name, v, &l);
	}
	printf("config: %s\n", cfg->origin);
	fflush(stdout);
	if (failed)
		cli_error("doctor: %zu check%s failed", failed, failed == 1 ? "" : "s");
	return failed ? EXIT_FAILED : 0;
}
