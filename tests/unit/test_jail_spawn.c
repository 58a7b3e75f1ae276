/* The jail without the rest of mcpfs: posture, the root's contents, the
 * fail-closed path, and cleanup. Needs root (cgroups, id maps); skips
 * (check.h) otherwise. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../executor/jail.h"
#include "../../workspaces/overlay.h"
#include "../../workspaces/quota.h"
#include "check.h"

static char workspace[] = "/tmp/test_jail_XXXXXX";

/* The limits of every jail here. */
#define UNIT_LIMITS                                                                                \
	{                                                                                          \
		.cpu_s = 10, .fsize_mb = 16, .nofile = 256, .nproc = 4096, .data_mb = 1024,        \
		.memory_mb = 256, .pids = 64, .tmp_mb = 16                                         \
	}

/* Run @script with /usr/bin/python3 in a jail; stdout into @out. Returns the
 * exit code, 128+signal, or -1 when the jail failed (@err says why). */
static int run_py(const char *script, char *out, size_t n, struct jail_spec *over, struct err *err)
{
	const char *argv[] = {"/usr/bin/python3", "-c", script, NULL};
	const char *envp[] = {"PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8", NULL};
	struct jail_bind binds[] = {{workspace, JAIL_WORKSPACE, true, false}};
	struct jail_spec s = {
	    .argv = argv,
	    .envp = envp,
	    .binds = binds,
	    .nbinds = 1,
	    .cwd = JAIL_WORKSPACE,
	    .host_uid = 64000,
	    .host_gid = 64000,
	    .limits = UNIT_LIMITS,
	    .run_id = "unit",
	};
	struct jail_exit ex;
	struct jail *j;
	int p[2], nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	size_t len = 0;
	ssize_t r;

	if (over) {
		if (over->argv)
			s.argv = over->argv;
		if (over->limits.memory_mb)
			s.limits = over->limits;
		if (over->files) {
			s.files = over->files;
			s.nfiles = over->nfiles;
		}
		if (over->binds) {
			s.binds = over->binds;
			s.nbinds = over->nbinds;
		}
	}
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	s.stdin_fd = nul;
	s.stdout_fd = p[1];
	s.stderr_fd = p[1];
	j = jail_start(&s, err);
	close(p[1]);
	close(nul);
	if (!j) {
		close(p[0]);
		return -1;
	}
	while (len < n - 1 && (r = read(p[0], out + len, n - 1 - len)) > 0)
		len += (size_t)r;
	out[len] = '\0';
	close(p[0]);
	jail_wait(j, &ex);
	jail_free(j);
	return ex.signal ? 128 + ex.signal : ex.exit_code;
}

static void test_runs_as_jail_user(void)
{
	char out[4096];
	struct err e = {0};
	int rc = run_py("import os; print(os.getuid(), os.getgid(), os.getgroups(), os.getcwd(), "
			"os.getpid(), sorted(os.listdir('/')))",
			out, sizeof(out), NULL, &e);

	CHECK(rc == 0, "exit %d: %s %s", rc, out, e.text);
	/* pid 2: pid 1 is the jail's init, which reaps */
	CHECK(strstr(out, "1000 1000 [] /workspace 2 ") != NULL, "ids: %s", out);
	CHECK(strstr(out, "'mcp'") == NULL && strstr(out, "'home'") == NULL &&
		  strstr(out, "'root'") == NULL,
	      "root holds only what the jail put there: %s", out);
}

static void test_posture_inside(void)
{
	char out[4096];
	struct err e = {0};
	int rc = run_py("s=open('/proc/self/status').read()\n"
			"import re\n"
			"print(*[l for l in s.splitlines() if re.match('(Seccomp|NoNewPrivs|CapEff|"
			"CapPrm|CapBnd|CapAmb):', l)], sep='|')",
			out, sizeof(out), NULL, &e);

	CHECK(rc == 0, "exit %d: %s %s", rc, out, e.text);
	CHECK(strstr(out, "NoNewPrivs:\t1") && strstr(out, "Seccomp:\t2") &&
		  strstr(out, "CapEff:\t0000000000000000") &&
		  strstr(out, "CapPrm:\t0000000000000000") &&
		  strstr(out, "CapBnd:\t0000000000000000"),
	      "posture: %s", out);
}

static void test_denials(void)
{
	char out[4096];
	struct err e = {0};
	int rc =
	    run_py("import os, errno, ctypes\n"
		   "r = []\n"
		   "e = open('/proc/self/environ').read()\n"
		   "r.append('OWNENV' if e == 'PATH=/usr/bin:/bin\\0HOME=/tmp\\0LANG=C.UTF-8\\0' "
		   "else 'HOSTENV ' + e)\n"
		   "for p in ['/proc/1/environ', '/proc/1/mem', '/etc/shadow', '/root']:\n"
		   "    try: open(p).read(); r.append('OPEN ' + p)\n"
		   "    except OSError as x: r.append(errno.errorcode[x.errno])\n"
		   "try: open('/usr/x', 'w'); r.append('WROTE')\n"
		   "except OSError as x: r.append(errno.errorcode[x.errno])\n"
		   "libc = ctypes.CDLL(None, use_errno=True)\n"
		   "r.append(str(libc.unshare(0x10000000)) + errno.errorcode[ctypes.get_errno()])\n"
		   "r.append(str(libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)) + "
		   "errno.errorcode[ctypes.get_errno()])\n"
		   "print(' '.join(r))",
		   out, sizeof(out), NULL, &e);

	CHECK(rc == 0, "exit %d: %s %s", rc, out, e.text);
	CHECK(strstr(out, "OWNENV EACCES EACCES ENOENT ENOENT EROFS -1EPERM -1EPERM") != NULL,
	      "denials: %s", out);
}

static void test_fail_closed(void)
{
	const char *argv[] = {"/nonexistent/interpreter", NULL};
	struct jail_spec over = {.argv = argv};
	char out[256];
	struct err e = {0};
	int rc = run_py("", out, sizeof(out), &over, &e);

	CHECK(rc == -1, "a missing program is a setup failure, got %d: %s", rc, out);
	CHECK(strstr(e.text, "execve(/nonexistent/interpreter)") != NULL, "err: %s", e.text);
}

static void test_files_written(void)
{
	static const char code[] = "print('from a file')\n";
	const char *argv[] = {"/usr/bin/python3", "/run/code/main.py", NULL};
	struct jail_file f = {"/run/code/main.py", code, sizeof(code) - 1, 0444};
	struct jail_spec over = {.argv = argv, .files = &f, .nfiles = 1};
	char out[256];
	struct err e = {0};
	int rc = run_py("", out, sizeof(out), &over, &e);

	CHECK(rc == 0 && !strcmp(out, "from a file\n"), "exit %d: %s %s", rc, out, e.text);
}

/* Neutral binds are file systems of their own: mountinfo shows "/" as
 * their root and no host path, and the read-only one refuses writes. A
 * folder with the customer's overlay over it (workspaces/overlay.h), bound
 * as it is, shows "/" too; what is written there lands in the folder, and
 * the host sees it through the same path. */
static void test_neutral_binds(void)
{
	static const char script[] =
	    "import errno\n"
	    "print(open('/mcp/f').read(), end='')\n"
	    "open('/skills/new', 'w').write('kept')\n"
	    "try:\n    open('/mcp/x', 'w')\nexcept OSError as e:\n"
	    "    print(errno.errorcode[e.errno])\n"
	    "for line in open('/proc/self/mountinfo'):\n"
	    "    f = line.split()\n"
	    "    if f[4] in ('/mcp', '/skills'): print(f[3], f[4], line.split(' - "
	    "')[1].split()[0])\n"
	    "print(open('/proc/self/mountinfo').read())\n"; /* for the host path check */
	char base[] = "/tmp/test_jail_nb_XXXXXX", ro[64], f[PATH_MAX + 8], out[8192];
	char want[256];
	struct ws ws = {0};
	struct jail_bind binds[] = {{workspace, JAIL_WORKSPACE, true, false},
				    {ro, JAIL_TREE, false, true},
				    {ws.skills, JAIL_SKILLS, true, false}};
	struct jail_spec over = {.binds = binds, .nbinds = 3};
	struct err e = {0};
	FILE *fp;
	int rc;

	if (!mkdtemp(base) || chmod(base, 0755) < 0) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(ro, sizeof(ro), "%s/ro", base);
	snprintf(ws.dir, sizeof(ws.dir), "%s", base);
	snprintf(ws.skills, sizeof(ws.skills), "%s/skills", base);
	snprintf(f, sizeof(f), "%s/f", ro);
	mkdir(ro, 0755);
	mkdir(ws.skills, 0755);
	CHECK(chown(ws.skills, 64000, 64000) == 0, "chown");
	CHECK(ws_overlay_mount(&ws, "skills", &e) == 0 && ws_is_mount(&ws, ws.skills),
	      "skills overlay: %s", e.text);
	fp = fopen(f, "w");
	if (fp) {
		fputs("in ro\n", fp);
		fclose(fp);
	}
	rc = run_py(script, out, sizeof(out), &over, &e);
	snprintf(want, sizeof(want), "in ro\nEROFS\n/ /mcp overlay\n/ /skills overlay\n");
	CHECK(rc == 0 && !strncmp(out, want, strlen(want)), "exit %d: %s %s", rc, out, e.text);
	CHECK(!strstr(out, base), "the mount table names %s: %s", base, out);
	snprintf(f, sizeof(f), "%s/new", ws.skills);
	fp = fopen(f, "r");
	CHECK(fp && fgets(want, sizeof(want), fp) && !strcmp(want, "kept"), "%s not written", f);
	if (fp)
		fclose(fp);
	CHECK(ws_umount_locked(&ws, ws.skills, false, &e) == 1 && !ws_is_mount(&ws, ws.skills),
	      "umount: %s", e.text);
	fp = fopen(f, "r"); /* in the folder itself */
	CHECK(fp && fgets(want, sizeof(want), fp) && !strcmp(want, "kept"), "%s not kept", f);
	if (fp)
		fclose(fp);
	snprintf(f, sizeof(f), "rm -rf %s", base);
	CHECK(system(f) == 0, "%s", f);
}

/* jail_ended tells the program's end from pid 1's line, before pid 1 is
 * reaped: the program's code, not pid 1's 0, while a child the program left
 * is still being killed; jail_free then leaves nothing. */
static void test_ended_before_teardown(void)
{
	const char *argv[] = {
	    "/usr/bin/python3", "-c",
	    "import os, time\nif os.fork() == 0:\n    time.sleep(60)\nos._exit(3)\n", NULL};
	const char *envp[] = {"PATH=/usr/bin:/bin", NULL};
	struct jail_spec s = {
	    .argv = argv,
	    .envp = envp,
	    .cwd = "/",
	    .host_uid = 64000,
	    .host_gid = 64000,
	    .limits = UNIT_LIMITS,
	    .run_id = "unit-ended",
	};
	struct pollfd p = {.events = POLLIN};
	struct jail_exit ex;
	struct err e = {0};
	struct jail *j;
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC), rc;

	s.stdin_fd = s.stdout_fd = s.stderr_fd = nul;
	j = jail_start(&s, &e);
	close(nul);
	CHECK(j != NULL, "jail_start: %s", e.text);
	if (!j)
		return;
	p.fd = jail_status_fd(j);
	CHECK(poll(&p, 1, 30000) == 1, "the program's end was never told");
	rc = jail_ended(j, &ex);
	CHECK(rc == 0 && ex.exit_code == 3 && ex.signal == 0, "jail_ended: %d, exit %d, signal %d",
	      rc, ex.exit_code, ex.signal);
	jail_free(j);
}

int main(void)
{
	if (geteuid() != 0)
		return CHECK_SKIP("the jail needs root (id maps, cgroups)");
	if (!mkdtemp(workspace) || chown(workspace, 64000, 64000) < 0) {
		perror("mkdtemp");
		return 1;
	}
	test_runs_as_jail_user();
	test_posture_inside();
	test_denials();
	test_fail_closed();
	test_files_written();
	test_neutral_binds();
	test_ended_before_teardown();
	rmdir(workspace);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
