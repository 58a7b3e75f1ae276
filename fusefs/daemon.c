#define _GNU_SOURCE /* pipe2 */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Verdict on the pipe: one status digit, then the error text. */
static int parent_wait(int fd, pid_t child, struct err *err)
{
	char msg[ERR_TEXT_MAX + 2];
	size_t got = 0;
	ssize_t n;
	int wstatus;

	while (got < sizeof(msg) - 1) {
		n = read(fd, msg + got, sizeof(msg) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	msg[got] = '\0';
	if (got && msg[0] == '0')
		return 0;
	if (got && msg[0] >= '1' && msg[0] <= '9') {
		err_set(err, msg[0] - '0', "%s", msg + 1);
		return msg[0] - '0';
	}
	/* No verdict: the daemon died before it could say anything. */
	while (waitpid(child, &wstatus, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(wstatus))
		err_set(err, EXIT_FAILED,
			"mount: the daemon was killed by signal %d before the "
			"mount was ready",
			WTERMSIG(wstatus));
	else
		err_set(err, EXIT_FAILED,
			"mount: the daemon exited (status %d) before the mount "
			"was ready",
			WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
	return EXIT_FAILED;
}

int fusefs_daemon_fork(int *ready_fd, int *status, struct err *err)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return err_set(err, EXIT_FAILED, "mount: pipe2: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		err_set(err, EXIT_FAILED, "mount: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid > 0) {
		close(fds[1]);
		*status = parent_wait(fds[0], pid, err);
		return 1;
	}
	close(fds[0]);
	/* Leave the terminal's session so its ^C and hangup do not reach us.
	 * The working directory stays: servers start lazily from here, and a
	 * config's relative paths mean what they meant to `mcpfs generate`. */
	setsid();
	*ready_fd = fds[1];
	return 0;
}

static void write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

void fusefs_daemon_report(int fd, int status, const char *text, const char *log_path)
{
	char digit = (char)('0' + (status >= 0 && status <= 9 ? status : 1));
	int nul, log;

	write_all(fd, &digit, 1);
	if (status && text)
		write_all(fd, text, strlen(text));
	close(fd);
	if (status)
		return;
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, STDIN_FILENO);
		dup2(nul, STDOUT_FILENO);
		close(nul);
	}
	log = log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
	if (log >= 0) {
		dup2(log, STDERR_FILENO);
		close(log);
	}
}
