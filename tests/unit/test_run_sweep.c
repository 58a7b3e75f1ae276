/* run_sweep: a killed run's folder and lock go, whichever of the two it
 * left; a live run's (its lock held) and anything not a run's stay. A killed
 * run's cgroups go too, with what is left in them. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/cgroupfs.h"
#include "../../common/fsx.h"
#include "../../executor/run.h"
#include "check.h"

static char root[] = "/tmp/test_run_sweep_XXXXXX";

static bool exists(const char *rel)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/run/%s", root, rel);
	return access(path, F_OK) == 0;
}

static void make(const char *rel, bool folder)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/run/%s", root, rel);
	if (folder) {
		mkdir(path, 0700);
		return;
	}
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
}

/* A lock held as a live run holds it: another open file description. */
static int hold(const char *rel)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/run/%s", root, rel);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A killed run's groups with a process of its jail still in them: pid 1's
 * lock goes with its files, before its processes leave their groups, so a
 * sweep may come first. It kills what is left and removes the groups.
 * Returns why it could not run here, or NULL. */
static const char *group_with_a_process(void)
{
	static const char *const ctl[] = {"memory", "pids"};
	char own[2048], dir[2][2200], pid_s[32];
	int i, st = 0, fd;
	pid_t pid, got = 0;

	for (i = 0; i < 2; i++) {
		if (cgroupfs_own(ctl[i], own, sizeof(own)) < 0)
			return "no cgroup v1 memory and pids here";
		snprintf(dir[i], sizeof(dir[i]), CGROUPFS_ROOT "/%s%s/mcpfs-e", ctl[i],
			 strcmp(own, "/") ? own : "");
		rmdir(dir[i]); /* an earlier test's, killed */
		if (mkdir(dir[i], 0755) < 0) {
			if (i)
				rmdir(dir[0]);
			return "cannot make a cgroup here (not root)";
		}
	}
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
	for (i = 0; i < 2; i++) {
		char procs[4500];

		snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir[i]);
		fd = open(procs, O_WRONLY | O_CLOEXEC);
		CHECK(fd >= 0 && write(fd, pid_s, strlen(pid_s)) > 0, "join %s", dir[i]);
		if (fd >= 0)
			close(fd);
	}
	make("exec-e.lock", false);
	CHECK(run_sweep(root, NULL) == 1, "the run with a process left is swept");
	CHECK(access(dir[0], F_OK) < 0 && access(dir[1], F_OK) < 0, "its groups are gone");
	/* killed by the sweep, it is reaped within the deadline; not killed, it
	 * never is, and the check fails instead of waiting for good */
	for (i = 0; i < 3000 && (got = waitpid(pid, &st, WNOHANG)) == 0; i++)
		usleep(10 * 1000);
	CHECK(got == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "what was left in them was killed");
	if (got != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	for (i = 0; i < 2; i++)
		rmdir(dir[i]);
	return NULL;
}

int main(void)
{
	const char *why;
	char run[4200];
	int live;

	if (!mkdtemp(root))
		return 1;
	CHECK(run_sweep(root, NULL) == 0, "no run folder: nothing to sweep");
	snprintf(run, sizeof(run), "%s/run", root);
	mkdir(run, 0755);
	/* killed: folder (with its socket) and lock */
	make("exec-a", true);
	make("exec-a/bridge.sock", false);
	make("exec-a.lock", false);
	/* killed between the lock and the folder */
	make("exec-b.lock", false);
	/* an older mcpfs's: a folder without a lock */
	make("exec-c", true);
	/* live */
	make("exec-d", true);
	make("exec-d.lock", false);
	live = hold("exec-d.lock");
	CHECK(live >= 0, "hold the live run's lock: %s", strerror(errno));
	/* not a run's */
	make("serve.sock", false);
	make("mount-0123456789abcdef.json", false);

	CHECK(run_sweep(root, NULL) == 3, "three killed runs swept");
	CHECK(!exists("exec-a") && !exists("exec-a.lock"), "a gone");
	CHECK(!exists("exec-b.lock"), "b gone");
	CHECK(!exists("exec-c"), "c gone");
	CHECK(exists("exec-d") && exists("exec-d.lock"), "the live run stays");
	CHECK(exists("serve.sock") && exists("mount-0123456789abcdef.json"), "others stay");
	CHECK(run_sweep(root, NULL) == 0, "a second sweep finds nothing");

	close(live);
	CHECK(run_sweep(root, NULL) == 1, "once its lock is free, d goes too");
	CHECK(!exists("exec-d") && !exists("exec-d.lock"), "d gone");
	why = group_with_a_process();
	if (why)
		printf("the cgroup part did not run: %s\n", why);
	fsx_remove_tree(root);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
