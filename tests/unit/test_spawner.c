/* The spawner: the child's descriptors, process group and signals, errors
 * from exec, a child that outlives the thread that asked for it, and the
 * child of a fork spawning on its own. (That a server dies with a killed
 * mcpfs is an end-to-end test: test_client_faults.py.) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../servers/spawner.h"
#include "check.h"

extern char **environ;

struct pipes {
	int in[2], out[2], err[2];
};

static int spawn_sh(const char *script, const char *cwd, struct pipes *p, pid_t *pid)
{
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	struct spawn_spec s = {.file = "sh", .argv = argv, .envp = environ, .cwd = cwd};
	int rc;

	if (pipe2(p->in, O_CLOEXEC) < 0 || pipe2(p->out, O_CLOEXEC) < 0 ||
	    pipe2(p->err, O_CLOEXEC) < 0)
		return errno;
	s.fd_in = p->in[0];
	s.fd_out = p->out[1];
	s.fd_err = p->err[1];
	rc = spawner_spawn(&s, pid);
	close(p->in[0]);
	close(p->out[1]);
	close(p->err[1]);
	return rc;
}

static void close_pipes(struct pipes *p)
{
	close(p->in[1]);
	close(p->out[0]);
	close(p->err[0]);
}

static int wait_status(pid_t pid)
{
	int st = -1;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

static void test_child_setup(void)
{
	struct pipes p;
	char buf[4096] = "", err[256] = "";
	ssize_t n, m;
	pid_t pid;
	int rc;

	/* blocked signals, process group, descriptors beyond 2, stdin */
	rc = spawn_sh("grep SigBlk /proc/self/status; ps -o pgid= -p $$ | tr -d ' ';"
		      " echo $$; ls /proc/self/fd | wc -l; echo oops >&2; read x; echo \"got $x\"",
		      "/tmp", &p, &pid);
	CHECK(rc == 0, "spawn: %s", strerror(rc));
	if (rc)
		return;
	n = write(p.in[1], "hello\n", 6);
	CHECK(n == 6, "write stdin");
	n = 0;
	while ((m = read(p.out[0], buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
		n += m;
	buf[n > 0 ? n : 0] = 0;
	m = read(p.err[0], err, sizeof(err) - 1);
	err[m > 0 ? m : 0] = 0;
	CHECK(strstr(buf, "SigBlk:\t0000000000000000\n") != NULL, "no signal blocked: %s", buf);
	{
		char want[64];

		snprintf(want, sizeof(want), "\n%d\n%d\n", (int)pid, (int)pid);
		CHECK(strstr(buf, want) != NULL, "a process group of its own: %s", buf);
	}
	/* ls sees 0, 1, 2 and its own directory descriptor */
	CHECK(strstr(buf, "\n4\n") != NULL, "no descriptor but 0..2: %s", buf);
	CHECK(strstr(buf, "got hello\n") != NULL, "stdin and stdout: %s", buf);
	CHECK(!strcmp(err, "oops\n"), "stderr: %s", err);
	CHECK(WIFEXITED(wait_status(pid)), "exits");
	close_pipes(&p);
}

static void test_errors(void)
{
	char *argv[] = {"no-such-command-here", NULL};
	struct spawn_spec s = {
	    .file = argv[0], .argv = argv, .envp = environ, .fd_in = 0, .fd_out = 1, .fd_err = 2};
	struct pipes p;
	pid_t pid = -1;
	int rc;

	rc = spawner_spawn(&s, &pid);
	CHECK(rc == ENOENT, "a missing command: %s", strerror(rc));
	rc = spawn_sh("true", "/no/such/dir", &p, &pid);
	CHECK(rc == ENOENT, "a missing folder: %s", strerror(rc));
	close_pipes(&p);
}

static void *spawn_and_exit(void *arg)
{
	struct pipes *p = arg;
	pid_t pid = -1;

	if (spawn_sh("exec sleep 30", NULL, p, &pid))
		return (void *)(intptr_t)-1;
	return (void *)(intptr_t)pid;
}

/* The parent-death signal is tied to the spawner thread, not to the thread
 * that asked: that one may end first, as FUSE and bridge workers do. */
static void test_outlives_asking_thread(void)
{
	const struct timespec wait = {0, 200 * 1000 * 1000};
	struct pipes p;
	pthread_t t;
	void *ret;
	pid_t pid;

	pthread_create(&t, NULL, spawn_and_exit, &p);
	pthread_join(t, &ret);
	pid = (pid_t)(intptr_t)ret;
	CHECK(pid > 0, "spawned from a thread");
	if (pid <= 0)
		return;
	nanosleep(&wait, NULL);
	CHECK(waitpid(pid, NULL, WNOHANG) == 0, "alive after that thread ended");
	kill(pid, SIGKILL);
	wait_status(pid);
	close_pipes(&p);
}

/* A forked child (the mount daemon) has no spawner thread: it gets one. */
static void test_after_fork(void)
{
	pid_t child = fork();
	int st;

	if (child == 0) {
		struct pipes p;
		pid_t pid;
		int rc = spawn_sh("exit 7", NULL, &p, &pid);

		_exit(rc == 0 && WEXITSTATUS(wait_status(pid)) == 7 ? 0 : 1);
	}
	st = wait_status(child);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "spawns in a forked child");
}

int main(void)
{
	test_child_setup();
	test_errors();
	test_outlives_asking_thread();
	test_after_fork();
	test_child_setup(); /* and still in the parent */
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
