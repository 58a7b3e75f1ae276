/* The kernel's parts mcpfs needs, each found by trying it where that is
 * cheap (a child that unshares or loads a filter) and by the files that say
 * why not (sysctls, cgroup files, device nodes). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/cgroupfs.h"
#include "doctor.h"

#define CGROUP_FS "/sys/fs/cgroup"

/* A sysctl's value as a number; -1 when it does not exist. */
static long sysctl_long(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "re");
	long v = -1;

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

/* Run @probe in a child: 0 when it worked, else the errno it met. */
static int in_child(int (*probe)(void))
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(probe() < 0 ? (errno & 0xff ? errno & 0xff : 1) : 0);
	if (waitpid(pid, &st, 0) < 0)
		return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EINTR;
}

static int try_userns(void)
{
	return unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID);
}

enum doctor_verdict doctor_userns(struct doctor_line *l)
{
	long max = sysctl_long("/proc/sys/user/max_user_namespaces");
	long clone = sysctl_long("/proc/sys/kernel/unprivileged_userns_clone");
	long aa = sysctl_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	int e = in_child(try_userns);

	if (!e) {
		snprintf(l->found, sizeof(l->found),
			 "user, mount and PID namespaces work (%ld at most)", max);
		return DOCTOR_OK;
	}
	snprintf(l->found, sizeof(l->found), "unshare(NEWUSER|NEWNS|NEWPID): %s", strerror(e));
	if (max == 0)
		snprintf(l->fix, sizeof(l->fix),
			 "user.max_user_namespaces is 0: sysctl -w user.max_user_namespaces=15000 "
			 "(and in /etc/sysctl.d/ to keep it)");
	else if (clone == 0)
		snprintf(l->fix, sizeof(l->fix),
			 "kernel.unprivileged_userns_clone is 0: sysctl -w "
			 "kernel.unprivileged_userns_clone=1 (and in /etc/sysctl.d/)");
	else if (aa == 1)
		snprintf(l->fix, sizeof(l->fix),
			 "AppArmor restricts them: sysctl -w "
			 "kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile "
			 "for mcpfs that allows 'userns,'");
	else
		snprintf(
		    l->fix, sizeof(l->fix),
		    "the kernel lacks CONFIG_USER_NS, or a container's seccomp profile forbids "
		    "unshare: run the container with --security-opt seccomp=unconfined");
	return DOCTOR_FAIL;
}

static bool has_words(const char *file, const char *a, const char *b)
{
	char buf[1024] = "";
	FILE *f = fopen(file, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f) && strstr(buf, a) && strstr(buf, b);
	fclose(f);
	return ok;
}

/* A v2 group mcpfs may make the runs' groups in, into @dir. */
static bool v2_usable(const char *mnt, char *dir, size_t n)
{
	const char *named = getenv("MCPFS_CGROUP");
	char own[2048], file[4300];

	if (named && named[0])
		snprintf(dir, n, "%s", named);
	else if (cgroupfs_own("", own, sizeof(own)) == 0)
		snprintf(dir, n, "%s%s", mnt, strcmp(own, "/") ? own : "");
	else
		return false;
	snprintf(file, sizeof(file), "%s/cgroup.controllers", dir);
	return has_words(file, "memory", "pids") && access(dir, W_OK) == 0;
}

/* v1: our memory and pids groups, writable; the memory one into @dir. */
static bool v1_usable(char *dir, size_t n)
{
	static const char *const ctl[] = {"pids", "memory"};
	char own[2048];
	size_t i;

	for (i = 0; i < 2; i++) {
		if (cgroupfs_own(ctl[i], own, sizeof(own)) < 0)
			return false;
		snprintf(dir, n, CGROUP_FS "/%s%s", ctl[i], strcmp(own, "/") ? own : "");
		if (access(dir, W_OK) < 0)
			return false;
	}
	return true;
}

enum doctor_verdict doctor_cgroup(struct doctor_line *l)
{
	bool unified = cgroupfs_is_v2(CGROUP_FS);
	bool hybrid = !unified && cgroupfs_is_v2(CGROUP_FS "/unified");
	char dir[4200];

	if (unified || hybrid) {
		if (v2_usable(unified ? CGROUP_FS : CGROUP_FS "/unified", dir, sizeof(dir))) {
			snprintf(l->found, sizeof(l->found),
				 "cgroup v2: memory and pids can be limited in %s", dir);
			return DOCTOR_OK;
		}
	}
	if (!unified && v1_usable(dir, sizeof(dir))) {
		snprintf(l->found, sizeof(l->found),
			 "cgroup v1%s: memory and pids can be limited (groups made in %s and its "
			 "pids twin)",
			 hybrid ? " (hybrid)" : "", dir);
		return DOCTOR_OK;
	}
	snprintf(l->found, sizeof(l->found),
		 "cgroup %s: no group with memory and pids that mcpfs may write",
		 unified  ? "v2"
		 : hybrid ? "v1 (hybrid)"
			  : "v1");
	if (geteuid() == 0) {
		snprintf(l->fix, sizeof(l->fix),
			 "run mcpfs in a delegated group (systemd-run --scope -p Delegate=yes "
			 "mcpfs ...), or name one with memory and pids in MCPFS_CGROUP");
		return DOCTOR_FAIL;
	}
	snprintf(l->fix, sizeof(l->fix),
		 "runs get rlimits only; for memory and pids limits start mcpfs in a delegated "
		 "group: systemd-run --user --scope -p Delegate=yes mcpfs ...");
	return DOCTOR_WARN;
}

enum doctor_verdict doctor_fuse(struct doctor_line *l)
{
	struct stat st;
	int fd;

	if (stat("/dev/fuse", &st) < 0) {
		snprintf(l->found, sizeof(l->found), "/dev/fuse: %s", strerror(errno));
		snprintf(l->fix, sizeof(l->fix),
			 "modprobe fuse (in a container: --device /dev/fuse); without it 'mcpfs "
			 "mount' and 'serve --mount' fail, 'generate' still works");
		return DOCTOR_FAIL;
	}
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != 10 || minor(st.st_rdev) != 229) {
		snprintf(l->found, sizeof(l->found),
			 "/dev/fuse is not the FUSE device (char 10:229)");
		snprintf(l->fix, sizeof(l->fix), "rm /dev/fuse; mknod -m 0666 /dev/fuse c 10 229");
		return DOCTOR_FAIL;
	}
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(l->found, sizeof(l->found), "open(/dev/fuse): %s", strerror(errno));
		snprintf(l->fix, sizeof(l->fix), "chmod 0666 /dev/fuse (Debian's default)");
		return DOCTOR_FAIL;
	}
	close(fd);
	snprintf(l->found, sizeof(l->found), "/dev/fuse opens");
	return DOCTOR_OK;
}

enum doctor_verdict doctor_loop(struct doctor_line *l)
{
	static const char *const mkfs[] = {"/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4"};
	bool have_mkfs = access(mkfs[0], X_OK) == 0 || access(mkfs[1], X_OK) == 0;

	if (geteuid() != 0) {
		snprintf(l->found, sizeof(l->found),
			 "not root: workspaces are plain folders, their quota not enforced");
		snprintf(l->fix, sizeof(l->fix), "quotas need loop mounts, which need root");
		return DOCTOR_WARN;
	}
	if (access("/dev/loop-control", R_OK | W_OK) < 0 || !have_mkfs) {
		snprintf(l->found, sizeof(l->found),
			 "%s: workspaces are plain folders, their quota not enforced",
			 !have_mkfs ? "no mkfs.ext4" : "/dev/loop-control missing");
		snprintf(l->fix, sizeof(l->fix), "%s",
			 !have_mkfs ? "apt-get install e2fsprogs"
				    : "modprobe loop (in a container: --device /dev/loop-control)");
		return DOCTOR_WARN;
	}
	snprintf(l->found, sizeof(l->found),
		 "/dev/loop-control and mkfs.ext4: workspaces get enforced quotas");
	return DOCTOR_OK;
}

static int try_seccomp(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {1, &allow};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

enum doctor_verdict doctor_seccomp(struct doctor_line *l)
{
	int e = in_child(try_seccomp);

	if (e) {
		snprintf(l->found, sizeof(l->found), "prctl(PR_SET_SECCOMP, FILTER): %s",
			 strerror(e));
		snprintf(l->fix, sizeof(l->fix),
			 "a kernel with CONFIG_SECCOMP_FILTER: the jail refuses to run without it");
		return DOCTOR_FAIL;
	}
	snprintf(l->found, sizeof(l->found), "seccomp filters load");
	return DOCTOR_OK;
}
