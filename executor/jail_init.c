/* The jail's pid 1. The kernel gives a PID namespace's init no signal it
 * has no handler for, so a program running as pid 1 would outlive its own
 * SIGXCPU at the CPU limit and an unhandled kill(getpid(), SIGTERM), and
 * nothing would reap its orphans, zombies that count against the pids
 * limit. So, as bubblewrap and tini do, pid 1 only reaps: the program is its
 * child, and how the program ended goes to the parent on a pipe of its own.
 *
 * Pid 1 is this forked copy of mcpfs, past every setup step (the filter
 * too): raw system calls only, as in any child step, since a copy of a
 * multithreaded process may find locks held by threads it does not have. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail_i.h"

extern char **environ;

/* mcpfs's command line names its config, data root and customer: /proc/1/
 * cmdline must not show it. The kernel reads it from the argument area of
 * our memory, which starts at argv[0] (glibc keeps that pointer as
 * program_invocation_name); its length is what /proc/self/cmdline gives. */
static void wipe_args(void)
{
	char buf[512];
	size_t total = 0, first = strlen(program_invocation_name) + 1;
	ssize_t r;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		if (total == 0 &&
		    ((size_t)r < first || memcmp(buf, program_invocation_name, first)))
			break; /* not where we thought: leave it rather than guess */
		total += (size_t)r;
	}
	close(fd);
	if (total >= first)
		memset(program_invocation_name, 0, total);
}

/* Reap until the program (@prog) ends, report how, and leave: the kernel
 * then kills what is left of the namespace. */
static void __attribute__((noreturn)) init_main(struct jail *j, pid_t prog)
{
	char line[32];
	pid_t p;
	int st, len;

	for (;;) {
		p = (pid_t)syscall(SYS_wait4, -1, &st, 0, NULL);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			_exit(127);
		if (p != prog)
			continue; /* an orphan */
		if (WIFSIGNALED(st))
			len = snprintf(line, sizeof(line), "signal %d\n", WTERMSIG(st));
		else
			len = snprintf(line, sizeof(line), "exit %d\n", WEXITSTATUS(st));
		if (write(j->status_pipe[1], line, (size_t)len) != len)
			_exit(127);
		_exit(0);
	}
}

pid_t jail_init_start(struct jail *j, char *why, size_t n)
{
	pid_t prog = (pid_t)syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL, NULL, NULL);
	char **e;

	if (prog < 0)
		return jail_why(why, n, "clone(SIGCHLD)");
	if (prog == 0)
		return 0;
	/* The program alone holds the error pipe now: EOF there means it
	 * reached exec. Our copy of mcpfs's memory, environment included, is
	 * for nobody to read: not dumpable, the environment and argv wiped. */
	close(j->err_pipe[1]);
	close(j->sync_sock[0]);
	/* Every other descriptor too: in a process that runs many jails at
	 * once, the copy holds whatever other threads had open when it was
	 * made (a lock file, another run's bridge, a server's pipes), and
	 * would keep them for the whole run. */
	syscall(SYS_close_range, 0u, (unsigned)j->status_pipe[1] - 1, 0u);
	syscall(SYS_close_range, (unsigned)j->status_pipe[1] + 1, ~0u, 0u);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	for (e = environ; e && *e; e++)
		memset(*e, 0, strlen(*e));
	wipe_args();
	init_main(j, prog);
}

bool jail_init_status(struct jail *j, struct jail_exit *out)
{
	char line[32];
	ssize_t r;
	int v;

	if (j->status_read)
		return false;
	do
		r = read(j->status_pipe[0], line, sizeof(line) - 1);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return false; /* pid 1 was killed: its own end stands */
	j->status_read = true;
	line[r] = '\0';
	if (sscanf(line, "exit %d", &v) == 1) {
		out->exit_code = v;
		out->signal = 0;
	} else if (sscanf(line, "signal %d", &v) == 1) {
		out->exit_code = 0;
		out->signal = v;
	}
	return true;
}
