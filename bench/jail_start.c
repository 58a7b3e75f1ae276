/* Jail start-up against bubblewrap (issue 27): the time from asking for a
 * jail to the end of a trivial program in it, mcpfs's jail_start (the binds
 * and limits of a Python run, as executor/run.c asks: the skills, shared
 * skills and tree as overlays) against bwrap with the
 * same namespaces, the same binds and the same seccomp filter (ours, handed
 * to bwrap --seccomp as compiled BPF), interleaved in one run. bwrap makes
 * no cgroup and sets no rlimits; mcpfs does both, and the figure includes
 * them. Prints the medians and their ratio.
 * Usage: jail_start BWRAP N PROGRAM [ARGS...] (run as root) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/filter.h>

#include "../executor/jail.h"

extern const struct sock_fprog jail_seccomp_prog; /* executor/jail_i.h */
extern char **environ;

static char dir[] = "/tmp/mcpfs-jail-bench-XXXXXX";
static char ws[4200], skills[4200], shared[4200], tree[4200], servers[4200], run[4200];
static const char *const envp[] = {"PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8",
				   "MCPFS_BRIDGE=/run/mcpfs/bridge.sock", NULL};
static const char code[] = "pass\n";

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *xs, int n)
{
	qsort(xs, (size_t)n, sizeof(*xs), cmp);
	return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

static double run_mcpfs(char *const *argv, int nul)
{
	const struct jail_bind binds[] = {
	    {ws, JAIL_WORKSPACE, true, false},
	    {skills, JAIL_SKILLS, true, false},
	    {shared, JAIL_SKILLS "/shared", false, true},
	    {tree, JAIL_TREE, false, true},
	    {servers, JAIL_CODE_DIR "/servers", false, true},
	};
	const struct jail_file files[] = {{JAIL_CODE_DIR "/main.py", code, sizeof(code) - 1, 0444}};
	struct jail_spec s = {
	    .argv = (const char *const *)argv,
	    .envp = envp,
	    .binds = binds,
	    .nbinds = sizeof(binds) / sizeof(binds[0]),
	    .files = files,
	    .nfiles = 1,
	    .cwd = JAIL_WORKSPACE,
	    .host_uid = JAIL_CUSTOMER_UID,
	    .host_gid = JAIL_CUSTOMER_UID,
	    .limits = {.cpu_s = 30,
		       .fsize_mb = 256,
		       .nofile = 1024,
		       .nproc = 4096,
		       .data_mb = 2048,
		       .memory_mb = 512,
		       .pids = 256,
		       .tmp_mb = 64},
	    .stdin_fd = nul,
	    .stdout_fd = nul,
	    .stderr_fd = 2,
	    .run_id = "bench-jail-start",
	    .listen_path = JAIL_BRIDGE_DIR "/bridge.sock",
	};
	struct err e = {0};
	struct jail_exit ex;
	struct jail *j;
	double t0 = now_ms(), t;

	j = jail_start(&s, &e);
	if (!j) {
		fprintf(stderr, "jail_start: %s\n", e.text);
		exit(1);
	}
	close(jail_take_listen_fd(j));
	jail_wait(j, &ex);
	jail_free(j);
	t = now_ms() - t0;
	if (ex.exit_code || ex.signal) {
		fprintf(stderr, "jailed program: exit %d, signal %d\n", ex.exit_code, ex.signal);
		exit(1);
	}
	return t;
}

/* The same root as jail_mount.c builds: /usr and the usr-merge links, the
 * devices, proc, tmpfs /tmp and /dev/shm, the run's binds and file. The
 * bridge's socket, which mcpfs's child makes in its root, is a bound folder
 * here, as mcpfs bound it before. */
static double run_bwrap(const char *bwrap, char *const *prog, int seccomp_fd, int nul)
{
	char sfd[16], cfd[16];
	const char *argv[128];
	int a = 0, st, code_fd;
	posix_spawn_file_actions_t fa;
	double t0, t;
	pid_t pid;

	/* bwrap reads the program's file from a descriptor */
	code_fd = memfd_create("main.py", MFD_CLOEXEC);
	if (code_fd < 0 || write(code_fd, code, sizeof(code) - 1) < 0 ||
	    lseek(code_fd, 0, SEEK_SET) < 0 || lseek(seccomp_fd, 0, SEEK_SET) < 0) {
		perror("memfd");
		exit(1);
	}
	snprintf(sfd, sizeof(sfd), "%d", seccomp_fd);
	snprintf(cfd, sizeof(cfd), "%d", code_fd);
#define A(x) argv[a++] = (x)
	A(bwrap);
	A("--unshare-all");
	A("--uid");
	A("1000");
	A("--gid");
	A("1000");
	A("--hostname");
	A("mcpfs");
	A("--new-session");
	A("--die-with-parent");
	A("--cap-drop");
	A("ALL");
	A("--clearenv");
	A("--ro-bind");
	A("/usr");
	A("/usr");
	A("--ro-bind");
	A("/etc/ld.so.cache");
	A("/etc/ld.so.cache");
	A("--symlink");
	A("usr/bin");
	A("/bin");
	A("--symlink");
	A("usr/lib");
	A("/lib");
	A("--symlink");
	A("usr/lib64");
	A("/lib64");
	A("--symlink");
	A("usr/sbin");
	A("/sbin");
	A("--dev");
	A("/dev");
	A("--proc");
	A("/proc");
	A("--tmpfs");
	A("/tmp");
	A("--bind");
	A(ws);
	A(JAIL_WORKSPACE);
	A("--bind");
	A(skills);
	A(JAIL_SKILLS);
	A("--ro-bind");
	A(shared);
	A(JAIL_SKILLS "/shared");
	A("--ro-bind");
	A(tree);
	A(JAIL_TREE);
	A("--ro-bind");
	A(servers);
	A(JAIL_CODE_DIR "/servers");
	A("--ro-bind");
	A(run);
	A(JAIL_BRIDGE_DIR);
	A("--file");
	A(cfd);
	A(JAIL_CODE_DIR "/main.py");
	A("--remount-ro");
	A("/");
	A("--chdir");
	A(JAIL_WORKSPACE);
	A("--seccomp");
	A(sfd);
	A("--");
	for (; *prog; prog++)
		A(*prog);
	argv[a] = NULL;
#undef A
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, nul, 0);
	posix_spawn_file_actions_adddup2(&fa, nul, 1);
	/* dup2 onto itself clears close-on-exec: bwrap must inherit them */
	posix_spawn_file_actions_adddup2(&fa, seccomp_fd, seccomp_fd);
	posix_spawn_file_actions_adddup2(&fa, code_fd, code_fd);
	t0 = now_ms();
	if (posix_spawn(&pid, bwrap, &fa, NULL, (char *const *)argv, (char *const *)envp) != 0) {
		perror("posix_spawn(bwrap)");
		exit(1);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bwrap: status %d\n", st);
		exit(1);
	}
	t = now_ms() - t0;
	posix_spawn_file_actions_destroy(&fa);
	close(code_fd);
	return t;
}

static void mk(char *out, const char *name)
{
	snprintf(out, 4200, "%s/%s", dir, name);
	if (mkdir(out, 0755) < 0 || chown(out, JAIL_CUSTOMER_UID, JAIL_CUSTOMER_UID) < 0) {
		perror(out);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int n, i, sfd, nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	double *m, *b, mm, bm;
	char point[4300]; /* the shared skills' mount point, made in skills */

	if (argc < 4 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: jail_start BWRAP N PROGRAM [ARGS...]\n");
		return 2;
	}
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	chmod(dir, 0755);
	mk(ws, "workspace");
	mk(skills, "skills");
	mk(shared, "shared");
	mk(tree, "tree");
	mk(servers, "tree/servers");
	mk(run, "run");
	/* our filter as bwrap takes it: the raw sock_filter array */
	sfd = memfd_create("seccomp", MFD_CLOEXEC);
	if (sfd < 0 || write(sfd, jail_seccomp_prog.filter,
			     jail_seccomp_prog.len * sizeof(struct sock_filter)) < 0) {
		perror("seccomp memfd");
		return 1;
	}
	/* MCPFS_BENCH_BALLAST_MB: memory this process holds, touched, as a
	 * daemon does; a fork-like clone copies its page tables */
	if (getenv("MCPFS_BENCH_BALLAST_MB")) {
		size_t len = (size_t)atol(getenv("MCPFS_BENCH_BALLAST_MB")) << 20;
		char *ballast = malloc(len);

		if (ballast)
			memset(ballast, 1, len);
	}
	m = calloc((size_t)n, sizeof(*m));
	b = calloc((size_t)n, sizeof(*b));
	run_mcpfs(argv + 3, nul); /* warm both: page cache, first cgroup */
	run_bwrap(argv[1], argv + 3, sfd, nul);
	for (i = 0; i < n; i++) {
		m[i] = run_mcpfs(argv + 3, nul);
		b[i] = run_bwrap(argv[1], argv + 3, sfd, nul);
	}
	mm = median(m, n);
	bm = median(b, n);
	printf("%s: mcpfs jail %.2f ms (%.2f-%.2f), bwrap %.2f ms (%.2f-%.2f), ratio %.2f "
	       "(median of %d, interleaved)\n",
	       argv[3], mm, m[0], m[n - 1], bm, b[0], b[n - 1], mm / bm, n);
	free(m);
	free(b);
	rmdir(servers);
	rmdir(tree);
	rmdir(ws);
	snprintf(point, sizeof(point), "%s/shared", skills);
	rmdir(point);
	rmdir(skills);
	rmdir(shared);
	rmdir(run);
	rmdir(dir);
	return 0;
}
