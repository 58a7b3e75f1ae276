/* The jail's checklist: parent and child steps in the order they run. */
#define _GNU_SOURCE
#include "jail.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/fsx.h"
#include "../common/sigreset.h"
#include "jail_i.h"

#define JAIL_HOSTNAME "mcpfs"

int jail_why(char *why, size_t n, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	len = strlen(why);
	if (saved && len + 3 < n)
		snprintf(why + len, n - len, ": %s", strerrordesc_np(saved));
	return -1;
}

int jail_write_file(const char *path, int flags, mode_t mode, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, mode), rc, saved;

	if (fd < 0)
		return -1;
	rc = fsx_write_all(fd, data, len);
	if (!rc && (flags & O_CREAT) && fchmod(fd, mode) < 0)
		rc = -errno;
	saved = -rc;
	close(fd);
	errno = saved;
	return rc ? -1 : 0;
}

static int stdio_child(struct jail *j, char *why, size_t n)
{
	const int from[3] = {j->spec->stdin_fd, j->spec->stdout_fd, j->spec->stderr_fd};
	int tmp[3], i;

	/* Move all three out of the way first: a source may sit on 0..2. */
	for (i = 0; i < 3; i++) {
		tmp[i] = fcntl(from[i], F_DUPFD_CLOEXEC, 10);
		if (tmp[i] < 0)
			return jail_why(why, n, "fcntl(%d, F_DUPFD)", from[i]);
	}
	for (i = 0; i < 3; i++)
		if (dup2(tmp[i], i) < 0)
			return jail_why(why, n, "dup2(%d, %d)", tmp[i], i);
	for (i = 0; i < 3; i++)
		close(tmp[i]);
	return 0;
}

static int uts_child(struct jail *j, char *why, size_t n)
{
	(void)j;
	if (sethostname(JAIL_HOSTNAME, strlen(JAIL_HOSTNAME)) < 0)
		return jail_why(why, n, "sethostname(%s)", JAIL_HOSTNAME);
	return 0;
}

/* A session of its own: no controlling terminal to push input into (TIOCSTI). */
static int setsid_child(struct jail *j, char *why, size_t n)
{
	(void)j;
	if (setsid() < 0)
		return jail_why(why, n, "setsid()");
	return 0;
}

/* Every inherited descriptor but 0..2 closes at exec; the error pipe stays
 * usable until then. */
static int fds_child(struct jail *j, char *why, size_t n)
{
	(void)j;
	if (syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) < 0)
		return jail_why(why, n, "close_range(3, ~0, CLOSE_RANGE_CLOEXEC)");
	return 0;
}

/* Signals as a fresh process has them: mcpfs blocks some and ignores
 * others (SIGPIPE), and both would survive exec. */
static int signals_child(struct jail *j, char *why, size_t n)
{
	(void)j;
	if (sigreset_all() < 0)
		return jail_why(why, n, "sigprocmask(SIG_SETMASK, {})");
	return 0;
}

/* Die with mcpfs even when it is killed outright. Set after the id change,
 * which clears it; the parent holds the sync socket open until exec, so a
 * hang-up there means it is already gone. */
static int pdeath_child(struct jail *j, char *why, size_t n)
{
	struct pollfd p = {.fd = j->sync_sock[0], .events = POLLIN};

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return jail_why(why, n, "prctl(PR_SET_PDEATHSIG, SIGKILL)");
	if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR))) {
		errno = ESRCH;
		return jail_why(why, n, "parent gone");
	}
	return 0;
}

/* The checklist. A child step waits until the parent finished @needs of its
 * own steps (parent_steps below): the id maps before the id change, the
 * cgroup before the limits and exec. Under v1 the child joins its cgroup
 * itself, first, so that all it allocates is charged there; under v2 the
 * parent moves it and the move overlaps the child's mounts. */
static const struct {
	const char *name;
	jail_child_fn fn;
	unsigned needs;
} child_steps[] = {
    {"cgroup", jail_cgroup_join_child, 0},
    {"signals", signals_child, 0},
    {"stdio", stdio_child, 0},
    {"mount sources", jail_mount_open_child, 0},
    {"user", jail_user_setup_child, 1},
    {"parent death", pdeath_child, 1},
    {"mount", jail_mount_setup_child, 1},
    {"network", jail_net_setup_child, 1},
    {"hostname", uts_child, 1},
    {"setsid", setsid_child, 1},
    {"cgroup namespace", jail_cgroup_setup_child, 2},
    {"park", jail_park_child, 2},
    {"rlimits", jail_rlimit_setup_child, 2},
    {"descriptors", fds_child, 2},
    {"capabilities", jail_caps_setup_child, 2},
    {"seccomp", jail_seccomp_setup_child, 2},
};

static const struct {
	const char *name;
	jail_parent_fn fn;
} parent_steps[] = {
    {"user", jail_user_setup_parent},
    {"cgroup", jail_cgroup_setup_parent},
};

static void child_fail(struct jail *j, const char *step, const char *why)
{
	char line[1024];
	int len = snprintf(line, sizeof(line), "%s: %s\n", step, why);

	if (len > 0 && write(j->err_pipe[1], line, (size_t)len) < 0)
		_exit(126);
	_exit(127);
}

static int child_main(struct jail *j)
{
	char why[512], go;
	unsigned done = 0;
	size_t i;

	close(j->sync_sock[1]);
	close(j->err_pipe[0]);
	close(j->status_pipe[0]);
	for (i = 0; i < sizeof(child_steps) / sizeof(child_steps[0]); i++) {
		/* one byte per finished parent step; EOF means the parent gave up */
		for (; done < child_steps[i].needs; done++)
			if (read(j->sync_sock[0], &go, 1) != 1)
				_exit(127);
		why[0] = '\0';
		errno = 0;
		if (child_steps[i].fn(j, why, sizeof(why)) < 0)
			child_fail(j, child_steps[i].name, why);
	}
	if (jail_init_start(j, why, sizeof(why)) < 0)
		child_fail(j, "init", why);
	execve(j->spec->argv[0], (char *const *)j->spec->argv,
	       (char *const *)(j->envp[0] ? j->envp : j->spec->envp));
	jail_why(why, sizeof(why), "execve(%s)", j->spec->argv[0]);
	child_fail(j, "exec", why);
	return 127;
}

int jail_pidfd(const struct jail *j)
{
	return j->pidfd;
}

void jail_kill(struct jail *j)
{
	if (!j->reaped && j->pidfd >= 0)
		syscall(SYS_pidfd_send_signal, j->pidfd, SIGKILL, NULL, 0);
	jail_cgroup_kill(j);
}

void jail_signal(struct jail *j, int sig)
{
	if (sig == SIGKILL)
		jail_kill(j);
	else if (!j->reaped && j->pid > 0)
		kill(-j->pid, sig); /* the child's setsid made it the group's leader */
}

int jail_wait(struct jail *j, struct jail_exit *out)
{
	siginfo_t si;

	memset(out, 0, sizeof(*out));
	if (!j->reaped) {
		memset(&si, 0, sizeof(si));
		while (waitid(P_PIDFD, (id_t)j->pidfd, &si, WEXITED) < 0)
			if (errno != EINTR)
				return -errno;
		j->reaped = true;
		if (si.si_code == CLD_EXITED)
			out->exit_code = si.si_status;
		else
			out->signal = si.si_status;
		jail_init_status(j, out);
	}
	jail_cgroup_events(j, &out->memory_limit, &out->pids_limit);
	return 0;
}

int jail_status_fd(const struct jail *j)
{
	return j->status_pipe[0];
}

int jail_ended(struct jail *j, struct jail_exit *out)
{
	memset(out, 0, sizeof(*out));
	if (j->reaped || !jail_init_status(j, out))
		return jail_wait(j, out);
	jail_cgroup_events(j, &out->memory_limit, &out->pids_limit);
	return 0;
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

void jail_free(struct jail *j)
{
	siginfo_t si;

	if (!j)
		return;
	if (j->pid > 0 && !j->reaped) {
		jail_kill(j);
		while (waitid(P_PIDFD, (id_t)j->pidfd, &si, WEXITED) < 0 && errno == EINTR)
			;
	}
	jail_cgroup_close(j);
	jail_cgroup_kill(j);
	jail_cgroup_remove(j);
	if (j->pidfd >= 0)
		close(j->pidfd);
	if (j->listen_fd >= 0)
		close(j->listen_fd);
	close_pair(j->sync_sock);
	close_pair(j->err_pipe);
	close_pair(j->status_pipe);
	free(j);
}

/* Read the child's verdict: EOF at exec (the pipe is CLOEXEC) or one line. */
int jail_read_verdict(struct jail *j, struct err *err)
{
	char line[1024];
	size_t len = 0;
	ssize_t r;

	while (len < sizeof(line) - 1) {
		r = read(j->err_pipe[0], line + len, sizeof(line) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	line[len] = '\0';
	if (len == 0)
		return 0;
	if (line[len - 1] == '\n')
		line[len - 1] = '\0';
	return err_set(err, EXIT_FAILED, "jail: %s", line);
}

/* The raw system call, fork-like: the child runs on a copy of this stack
 * (no stack of its own to set up, nothing for the sanitizers to mistake)
 * and never returns from child_main. Under cgroup v2 the child starts in its
 * group (CLONE_INTO_CGROUP): moving a process later waits for an RCU grace
 * period, ~10 ms. Kernels before 5.7 lack it; then the parent moves it. */
static pid_t clone_raw(struct jail *j, int flags)
{
	struct clone_args ca = {
	    .flags = (uint64_t)(flags & ~CSIGNAL) | CLONE_INTO_CGROUP,
	    .pidfd = (uint64_t)(uintptr_t)&j->pidfd,
	    .exit_signal = (uint64_t)(flags & CSIGNAL),
	};
	pid_t pid;

	if (j->cg.dirfd >= 0) {
		ca.cgroup = (uint64_t)j->cg.dirfd;
		pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
		if (pid >= 0) {
			j->cg.born_inside = true;
			return pid;
		}
		if (errno != ENOSYS && errno != E2BIG && errno != EINVAL)
			return pid;
	}
	return (pid_t)syscall(SYS_clone, (unsigned long)flags, NULL, &j->pidfd, NULL, NULL);
}

/* The kernel charges what a user namespace holds (inotify instances, nested
 * namespaces, ...) to the namespace's owner, the euid of its creator: made
 * by root, a jail could use up root's per-user limits for the whole host.
 * So root creates it with the jail's host uid as its euid, in this thread
 * alone (raw system calls change one thread's ids; glibc's change them all),
 * keeping fsuid 0 for the file checks of the cgroup and the bind sources,
 * and takes its euid back at once. The id change leaves the process not
 * dumpable; it was before and is again. */
static pid_t clone_child(struct jail *j, int flags)
{
	bool as_root = geteuid() == 0;
	int saved, dumpable = 0;
	pid_t pid;

	if (as_root) {
		dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
		if (syscall(SYS_setresuid, -1, j->spec->host_uid, -1) < 0)
			return -1;
		syscall(SYS_setfsuid, 0);
	}
	pid = clone_raw(j, flags);
	if (pid == 0 || !as_root)
		return pid;
	saved = errno;
	if (syscall(SYS_setresuid, -1, 0, -1) < 0)
		abort(); /* this thread would go on without root: never */
	syscall(SYS_setfsuid, 0);
	if (dumpable > 0)
		prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0);
	errno = saved;
	return pid;
}

struct jail *jail_start(const struct jail_spec *s, struct err *err)
{
	const int flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
			  CLONE_PIDFD | SIGCHLD | (s->share_net ? 0 : CLONE_NEWNET);
	struct jail *j = calloc(1, sizeof(*j));
	size_t i;

	if (!j) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	j->spec = s;
	j->pid = -1;
	j->pidfd = -1;
	j->listen_fd = -1;
	j->sync_sock[0] = j->sync_sock[1] = j->err_pipe[0] = j->err_pipe[1] = -1;
	j->status_pipe[0] = j->status_pipe[1] = -1;
	j->cg.tasks_fds[0] = j->cg.tasks_fds[1] = j->cg.dirfd = -1;
	if (s->nbinds > JAIL_MAX_BINDS || !s->host_uid || !s->host_gid) {
		err_set(err, EXIT_USAGE, "jail: at most %d binds and a non-zero host uid/gid",
			JAIL_MAX_BINDS);
		goto out_free;
	}
	j->rootless = geteuid() != 0;
	if (j->rootless && (s->host_uid != geteuid() || s->host_gid != getegid())) {
		err_set(err, EXIT_USAGE,
			"jail: a normal user's jail maps only its own uid and gid");
		goto out_free;
	}
	if (jail_cgroup_create(j, err) < 0)
		goto out_free;
	/* A socket, not a pipe, for the parent's go-ahead: a child that failed
	 * and left must give the parent EPIPE, not SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, j->sync_sock) < 0 ||
	    pipe2(j->err_pipe, O_CLOEXEC) < 0 || pipe2(j->status_pipe, O_CLOEXEC) < 0) {
		err_set(err, EXIT_FAILED, "jail: socketpair/pipe2: %s", strerror(errno));
		goto out_free;
	}
	j->pid = clone_child(j, flags);
	if (j->pid == 0)
		_exit(child_main(j));
	if (j->pid < 0) {
		err_set(err, EXIT_FAILED,
			"jail: clone(NEWUSER|NEWPID|NEWNS|%sNEWIPC|NEWUTS): %s ('mcpfs doctor' "
			"says why and how to fix it)",
			s->share_net ? "" : "NEWNET|", strerror(errno));
		goto out_free;
	}
	close(j->sync_sock[0]);
	close(j->err_pipe[1]);
	close(j->status_pipe[1]);
	j->sync_sock[0] = j->err_pipe[1] = j->status_pipe[1] = -1;
	for (i = 0; i < sizeof(parent_steps) / sizeof(parent_steps[0]); i++) {
		if (parent_steps[i].fn(j, err) < 0) {
			err_prefix(err, "jail: %s", parent_steps[i].name);
			goto out_child;
		}
		if (send(j->sync_sock[1], "g", 1, MSG_NOSIGNAL) != 1) {
			err_set(err, EXIT_FAILED, "jail: send(sync socket): %s", strerror(errno));
			goto out_child;
		}
	}
	if (s->park_file) {
		if (jail_park_parent(j, err) < 0)
			goto out_free;
		j->parked = true;
		return j;
	}
	if (jail_read_verdict(j, err) < 0 || jail_listen_parent(j, err) < 0)
		goto out_free;
	close(j->sync_sock[1]);
	j->sync_sock[1] = -1;
	close(j->err_pipe[0]);
	j->err_pipe[0] = -1;
	return j;
out_child:
	/* The child may have failed first, and be why this step failed: its
	 * line wins. Without a go-ahead it cannot exec; the hang-up ends it. */
	close(j->sync_sock[1]);
	j->sync_sock[1] = -1;
	jail_read_verdict(j, err);
out_free:
	jail_free(j);
	return NULL;
}
