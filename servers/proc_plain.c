/* A server started plainly: a child of ours in a process group of its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"

struct proc_plain {
	struct server_proc base; /* first */
	pid_t pid;
	bool reaped;
};

static void plain_signal(struct server_proc *p, int sig)
{
	struct proc_plain *pp = (struct proc_plain *)p;

	/* the group: children the server left behind hold our pipes open */
	kill(-pp->pid, sig);
}

static bool plain_reap(struct server_proc *p, int ms, int *status)
{
	struct proc_plain *pp = (struct proc_plain *)p;
	struct pollfd pfd;
	int fd, st = 0;
	pid_t r;

	if (pp->reaped)
		return true;
	fd = (int)syscall(SYS_pidfd_open, pp->pid, 0);
	if (fd >= 0) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		while (ms > 0 && poll(&pfd, 1, ms) < 0 && errno == EINTR)
			;
		close(fd);
	} else {
		struct timespec d = {0, 10 * 1000 * 1000};

		for (; ms > 0 && waitpid(pp->pid, &st, WNOHANG) == 0; ms -= 10)
			nanosleep(&d, NULL);
	}
	r = waitpid(pp->pid, &st, WNOHANG);
	if (r == pp->pid || (r < 0 && errno == ECHILD)) {
		pp->reaped = true;
		*status = r == pp->pid ? st : 0;
	}
	return pp->reaped;
}

static void plain_free(struct server_proc *p)
{
	struct proc_plain *pp = (struct proc_plain *)p;

	if (!pp)
		return;
	kill(-pp->pid, SIGKILL);
	if (!pp->reaped)
		while (waitpid(pp->pid, NULL, 0) < 0 && errno == EINTR)
			;
	free(pp);
}

static const struct server_proc_ops plain_ops = {
    .signal = plain_signal,
    .reap = plain_reap,
    .free = plain_free,
};

struct server_proc *server_proc_plain(const struct server_config *sc, const struct spawn_spec *s,
				      struct err *err)
{
	struct proc_plain *pp = calloc(1, sizeof(*pp));
	int rc;

	if (!pp) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
		return NULL;
	}
	pp->base.ops = &plain_ops;
	rc = spawner_spawn(s, &pp->pid);
	if (rc) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': spawn(%s%s%s): %s", sc->name, s->file,
			s->cwd ? " in " : "", s->cwd ? s->cwd : "", strerror(rc));
		free(pp);
		return NULL;
	}
	return &pp->base;
}
