/* Server processes start from one thread that lives as long as mcpfs. A
 * child can ask for SIGKILL when its parent dies (PR_SET_PDEATHSIG), but the
 * kernel means the parent *thread*: forked from a FUSE or bridge worker,
 * which may exit long before mcpfs does, a server would be killed early;
 * forked from this thread, it dies when mcpfs does. Servers that exit at
 * the end of their stdin (the npm ones) need none of this; the others
 * outlived an mcpfs killed with SIGKILL. The thread starts on first use,
 * and again in the child of a fork (the mount daemon), which has no threads.
 *
 * The child is made as posix_spawn makes it: clone(CLONE_VM | CLONE_VFORK)
 * on a stack of its own, so nothing is copied and we wait only until exec. */
#define _GNU_SOURCE
#include "spawner.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/sigreset.h"

/* execvpe builds candidate paths on the stack: room for a long $PATH. */
#define SPAWNER_STACK (256 * 1024)

struct job {
	const struct spawn_spec *spec; /* a spawn, or: */
	int (*fn)(void *arg);	       /* a call of spawner_call */
	void *arg;
	pid_t parent; /* our pid, for the child to check it was not orphaned */
	pid_t pid;
	int err; /* set by the child, which shares our memory until exec */
	bool done;
	struct job *next;
};

/* This process's spawner: a daemon's one piece of process-wide state, as the
 * parent-death signal is tied to a thread of the process. */
static struct {
	pthread_mutex_t lock; /* everything below */
	pthread_cond_t cond;  /* a job was queued, or one is done */
	struct job *head, **tail;
	pid_t owner; /* the process its thread runs in; 0: none */
	void *stack; /* the children's, one at a time (only its thread uses it) */
} sp = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, &sp.head, 0, NULL};

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* In the new process until exec: only system calls, no locks or malloc.
 * Not instrumented by AddressSanitizer, which does not know this stack. */
__attribute__((no_sanitize_address)) static int child_main(void *arg)
{
	struct job *j = arg;
	const struct spawn_spec *s = j->spec;
	const int fds[3] = {s->fd_in, s->fd_out, s->fd_err};
	int i;

	for (i = 0; i < 3; i++)
		if (fds[i] == i ? fcntl(i, F_SETFD, 0) < 0 : dup2(fds[i], i) < 0)
			goto fail;
	if (s->cwd && chdir(s->cwd) < 0)
		goto fail;
	/* whatever another thread opened without O_CLOEXEC */
	if (syscall(SYS_close_range, 3u, ~0u, 0u) < 0)
		goto fail;
	/* its own process group, so shutdown signals reach its children too */
	if (setpgid(0, 0) < 0 || sigreset_all() < 0)
		goto fail;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		goto fail;
	if (getppid() != j->parent) {
		errno = ESRCH; /* mcpfs died meanwhile: the signal came too early */
		goto fail;
	}
	execvpe(s->file, s->argv, s->envp);
fail:
	j->err = errno;
	_exit(127);
}

static void run(struct job *j)
{
	pid_t pid;

	j->parent = getpid();
	pid = clone(child_main, (char *)sp.stack + SPAWNER_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD,
		    j);
	if (pid < 0) {
		j->err = errno;
		return;
	}
	if (j->err) { /* it exited before or at exec */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return;
	}
	j->pid = pid;
}

static void *spawner_main(void *arg)
{
	struct job *j;

	(void)arg;
	pthread_mutex_lock(&sp.lock);
	for (;;) {
		while (!sp.head)
			pthread_cond_wait(&sp.cond, &sp.lock);
		j = sp.head;
		sp.head = j->next;
		if (!sp.head)
			sp.tail = &sp.head;
		pthread_mutex_unlock(&sp.lock);
		if (j->fn)
			j->err = j->fn(j->arg);
		else
			run(j);
		pthread_mutex_lock(&sp.lock);
		j->done = true;
		pthread_cond_broadcast(&sp.cond);
	}
	return NULL;
}

/* The thread runs with every signal blocked: its children run until exec
 * in our memory, where no handler of ours may run. Returns 0 or errno. */
static int start_locked(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	if (!sp.stack) {
		sp.stack = mmap(NULL, SPAWNER_STACK, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (sp.stack == MAP_FAILED) {
			sp.stack = NULL;
			return errno;
		}
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, spawner_main, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		sp.owner = getpid();
	return rc;
}

static void before_fork(void)
{
	pthread_mutex_lock(&sp.lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&sp.lock);
}

/* The child of a fork has no spawner thread, and the jobs queued are its
 * parent's. */
static void after_fork_child(void)
{
	pthread_mutex_init(&sp.lock, NULL);
	pthread_cond_init(&sp.cond, NULL);
	sp.head = NULL;
	sp.tail = &sp.head;
	sp.owner = 0;
}

static void register_atfork(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* Queue @j on the thread and wait until it is done. Returns 0 or errno. */
static int submit(struct job *j)
{
	int rc = 0;

	pthread_once(&atfork_once, register_atfork);
	pthread_mutex_lock(&sp.lock);
	if (sp.owner != getpid())
		rc = start_locked();
	if (rc == 0) {
		*sp.tail = j;
		sp.tail = &j->next;
		pthread_cond_broadcast(&sp.cond);
		while (!j->done)
			pthread_cond_wait(&sp.cond, &sp.lock);
	}
	pthread_mutex_unlock(&sp.lock);
	return rc;
}

int spawner_spawn(const struct spawn_spec *s, pid_t *pid)
{
	struct job j = {.spec = s};
	int rc = submit(&j);

	if (rc)
		return rc;
	*pid = j.pid;
	return j.err;
}

int spawner_call(int (*fn)(void *arg), void *arg)
{
	struct job j = {.fn = fn, .arg = arg};
	int rc = submit(&j);

	return rc ? rc : j.err;
}
