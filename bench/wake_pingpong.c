/* What a wake-up costs on this machine: one byte bounced between two
 * processes over a unix socket pair, each blocked in read() until the other
 * writes, first on two CPUs, then both pinned to one. Prints the microseconds
 * per round trip of each. A jailed tool call needs two such hops more than a
 * call made in-process (jail -> bridge, bridge -> jail), so the tool-call
 * overhead is read against the two-CPU figure. Usage: wake_pingpong [N] */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Microseconds per round trip with the echoing child on @child_cpu and us
 * on @our_cpu; -1 on failure. */
static double bounce(long n, int our_cpu, int child_cpu)
{
	int sv[2];
	char c = 'x';
	double t0, us;
	pid_t pid;
	long i;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		pin(child_cpu);
		close(sv[0]);
		while (read(sv[1], &c, 1) == 1 && write(sv[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -1;
	}
	pin(our_cpu);
	for (i = 0; i < n / 10; i++) /* warm-up */
		if (write(sv[0], &c, 1) != 1 || read(sv[0], &c, 1) != 1)
			break;
	t0 = now_us();
	for (i = 0; i < n; i++)
		if (write(sv[0], &c, 1) != 1 || read(sv[0], &c, 1) != 1)
			break;
	us = i == n ? (now_us() - t0) / (double)n : -1;
	close(sv[0]);
	waitpid(pid, NULL, 0);
	return us;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	double two = bounce(n, 0, 1), one = bounce(n, 0, 0);

	if (two < 0 || one < 0) {
		fprintf(stderr, "wake_pingpong: socketpair/fork failed\n");
		return 1;
	}
	printf("%.1f %.1f\n", two, one);
	return 0;
}
