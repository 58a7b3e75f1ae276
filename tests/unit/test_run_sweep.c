/* run_sweep: a killed run's folder and lock go, whichever of the two it
 * left; a live run's (its lock held) and anything not a run's stay. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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

int main(void)
{
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
	fsx_remove_tree(root);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
