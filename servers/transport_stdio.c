/* stdio transport: the server is our child; one JSON-RPC message per line on
 * its stdin and stdout; its stderr is drained into the server's log so it never
 * blocks on a full pipe. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/clock.h"
#include "jsonrpc.h"
#include "server_log.h"
#include "launcher.h"
#include "transport.h"

/* How long the server gets to exit after its stdin closes, then after SIGTERM. */
#define STDIO_GRACE_MS 2000
/* How long a reader waits for the exit status of a server whose stdout ended. */
#define STDIO_EXIT_STATUS_MS 300
/* How long a reader waits for the server's last stderr lines to be logged. */
#define STDIO_STDERR_DRAIN_MS 500
/* How long a server may take nothing of a message on its stdin, unless its
 * config sets a timeout: the client's default call timeout. */
#define STDIO_WRITE_TIMEOUT_S 60.0
/* Lines on stdout that are not JSON-RPC (banners, stray prints) are logged and
 * skipped, as the official SDK client does; this many end the connection. */
#define STDIO_MAX_NOISE_LINES 1000

/* Variables a server keeps from our environment; the config's env adds to them. */
static const char *const kept_env[] = {"PATH", "HOME",	 "USER", "LOGNAME",
				       "LANG", "LC_ALL", "TZ",	 "TMPDIR"};

struct transport {
	const struct server_config *sc; /* borrowed */
	struct transport_sink sink;
	struct server_log *log;
	struct server_proc *proc; /* NULL until started */
	int out_fd, err_fd;	  /* read by out_thread, err_thread */
	int stop[2];		  /* written by close() to wake both readers */
	pthread_t out_thread, err_thread;
	bool out_started, err_started; /* the threads, for a half-built transport */

	pthread_mutex_t write_lock;
	int in_fd; /* protected by write_lock; -1 once closed */

	pthread_mutex_t lock;
	bool reaped;		 /* protected by lock */
	int status;		 /* protected by lock; valid when reaped */
	bool closing;		 /* protected by lock; close() has begun: no more on_closed */
	bool closed;		 /* protected by lock; on_closed was called */
	bool faulted;		 /* protected by lock; we ended it over a bad message */
	bool err_eof;		 /* protected by lock; err_thread has logged all of stderr */
	pthread_cond_t err_cond; /* signals err_eof */

	/* Used only by out_thread. */
	struct jsonrpc_lines lines;
	size_t lineno;
	size_t noise; /* lines skipped as not JSON-RPC */
	char fault[ERR_TEXT_MAX];
};

static void init_cond(pthread_cond_t *c)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(c, &ca);
	pthread_condattr_destroy(&ca);
}

static void report_closed(struct transport *t, const char *why)
{
	bool call;

	pthread_mutex_lock(&t->lock);
	call = !t->closing && !t->closed;
	t->closed = true;
	pthread_mutex_unlock(&t->lock);
	server_log_printf(t->log, "connection closed: %s", why);
	if (call)
		t->sink.on_closed(t->sink.ctx, why);
}

/* Reap the child if it exited within @ms. Called with t->lock held. */
static bool wait_exit_locked(struct transport *t, int ms)
{
	if (!t->reaped && t->proc->ops->reap(t->proc, ms, &t->status))
		t->reaped = true;
	return t->reaped;
}

static void describe_exit(struct transport *t, char *out, size_t n)
{
	bool reaped;
	int st;

	pthread_mutex_lock(&t->lock);
	reaped = wait_exit_locked(t, STDIO_EXIT_STATUS_MS);
	st = t->status;
	pthread_mutex_unlock(&t->lock);
	if (!reaped)
		snprintf(out, n, "server '%s' closed its stdout", t->sc->name);
	else if (WIFSIGNALED(st))
		snprintf(out, n, "server '%s' was killed by signal %d", t->sc->name, WTERMSIG(st));
	else
		snprintf(out, n, "server '%s' exited with status %d", t->sc->name, WEXITSTATUS(st));
}

static int on_line(void *ctx, const char *line, size_t len)
{
	struct transport *t = ctx;
	struct err e = {0};
	json_t *msg, *m;
	size_t i;

	t->lineno++;
	msg = jsonrpc_decode(line, len, &e);
	if (!msg && ++t->noise <= STDIO_MAX_NOISE_LINES) {
		server_log_printf(t->log,
				  "stdout line %zu is not JSON-RPC (%.200s), skipped: %.200s",
				  t->lineno, e.text, line);
		return 0;
	}
	if (!msg) {
		snprintf(t->fault, sizeof(t->fault),
			 "server '%.100s': more than %d stdout lines were not JSON-RPC; line %zu "
			 "(%.200s): %.60s",
			 t->sc->name, STDIO_MAX_NOISE_LINES, t->lineno, e.text, line);
		return -EPROTO;
	}
	if (!json_is_array(msg)) {
		t->sink.on_message(t->sink.ctx, msg, NULL);
		return 0;
	}
	json_array_foreach(msg, i, m) t->sink.on_message(t->sink.ctx, json_incref(m), NULL);
	json_decref(msg);
	return 0;
}

static bool wait_readable(int fd, int stop)
{
	struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = stop, .events = POLLIN}};

	while (poll(p, 2, -1) < 0)
		if (errno != EINTR)
			return false;
	return !(p[1].revents & POLLIN);
}

/* A server that dies usually says why on stderr just before: let that reach
 * the log before the exit is reported, so the log tail shown to the user has
 * it. Bounded, as a grandchild may hold stderr open. */
static void wait_stderr_logged(struct transport *t)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += STDIO_STDERR_DRAIN_MS * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&t->lock);
	while (!t->err_eof && !t->closing)
		if (pthread_cond_timedwait(&t->err_cond, &t->lock, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&t->lock);
}

static void *out_main(void *arg)
{
	struct transport *t = arg;
	char chunk[65536], why[ERR_TEXT_MAX];
	ssize_t r;
	int rc = 0;

	while (wait_readable(t->out_fd, t->stop[0])) {
		r = read(t->out_fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			describe_exit(t, why, sizeof(why));
			wait_stderr_logged(t);
			report_closed(t, why);
			return NULL;
		}
		rc = jsonrpc_lines_feed(&t->lines, chunk, (size_t)r, on_line, t);
		if (rc)
			break;
	}
	if (rc == -E2BIG)
		snprintf(why, sizeof(why), "server '%s': a message on stdout passed the %u MiB cap",
			 t->sc->name, TRANSPORT_MAX_MESSAGE >> 20);
	else if (rc == -EPROTO)
		memcpy(why, t->fault, sizeof(why));
	else if (rc)
		snprintf(why, sizeof(why), "server '%s': reading stdout: %s", t->sc->name,
			 strerror(-rc));
	if (rc) {
		pthread_mutex_lock(&t->lock);
		t->faulted = true;
		pthread_mutex_unlock(&t->lock);
		report_closed(t, why);
	}
	return NULL;
}

static void *err_main(void *arg)
{
	struct transport *t = arg;
	char chunk[8192];
	ssize_t r;

	while (wait_readable(t->err_fd, t->stop[0])) {
		r = read(t->err_fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		server_log_write(t->log, chunk, (size_t)r);
	}
	pthread_mutex_lock(&t->lock);
	t->err_eof = true;
	pthread_cond_broadcast(&t->err_cond);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* The child's environment: a few of ours, then the config's (which wins). */
static char **build_env(const struct server_config *sc)
{
	size_t nk = sizeof(kept_env) / sizeof(kept_env[0]), n = 0, i, j, klen;
	char **env = calloc(nk + sc->nenv + 1, sizeof(char *));
	const char *v;

	if (!env)
		return NULL;
	for (i = 0; i < nk; i++) {
		for (j = 0; j < sc->nenv; j++) {
			klen = strlen(kept_env[i]);
			if (!strncmp(sc->env[j], kept_env[i], klen) && sc->env[j][klen] == '=')
				break;
		}
		v = getenv(kept_env[i]);
		if (j < sc->nenv || !v)
			continue;
		if (asprintf(&env[n], "%s=%s", kept_env[i], v) < 0)
			goto out_free;
		n++;
	}
	for (j = 0; j < sc->nenv; j++) {
		env[n] = strdup(sc->env[j]);
		if (!env[n])
			goto out_free;
		n++;
	}
	return env;
out_free:
	for (i = 0; i < n; i++)
		free(env[i]);
	free(env);
	return NULL;
}

static void free_strv(char **v)
{
	char **p;

	if (!v)
		return;
	for (p = v; *p; p++)
		free(*p);
	free(v);
}

static int spawn(struct transport *t, int in[2], int out[2], int errp[2], struct err *err)
{
	const struct server_config *sc = t->sc;
	struct spawn_spec spec = {.file = sc->command,
				  .cwd = sc->cwd,
				  .fd_in = in[0],
				  .fd_out = out[1],
				  .fd_err = errp[1]};
	char **argv, **envp;
	size_t i;

	argv = calloc(sc->nargs + 2, sizeof(char *));
	envp = build_env(sc);
	if (!argv || !envp) {
		free(argv);
		free_strv(envp);
		return err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
	}
	argv[0] = sc->command;
	for (i = 0; i < sc->nargs; i++)
		argv[i + 1] = sc->args[i];
	spec.argv = argv;
	spec.envp = envp;
	t->proc = sc->launcher ? sc->launcher->start(sc->launcher, sc, &spec, err)
			       : server_proc_plain(sc, &spec, err);
	free(argv);
	free_strv(envp);
	return t->proc ? 0 : -1;
}

static void wake_readers(struct transport *t)
{
	if (write(t->stop[1], "x", 1) < 0)
		server_log_printf(t->log, "write(stop pipe): %s", strerror(errno));
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void stdio_close(struct transport *t);

static struct transport *stdio_open(const struct server_config *sc,
				    const struct transport_sink *sink, const char *log_path,
				    struct err *err)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1};
	struct transport *t;

	t = calloc(1, sizeof(*t));
	if (!t) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
		return NULL;
	}
	t->sc = sc;
	t->sink = *sink;
	t->in_fd = t->out_fd = t->err_fd = t->stop[0] = t->stop[1] = -1;
	t->log = log_path ? server_log_open(log_path) : NULL;
	pthread_mutex_init(&t->write_lock, NULL);
	pthread_mutex_init(&t->lock, NULL);
	init_cond(&t->err_cond);
	jsonrpc_lines_init(&t->lines, TRANSPORT_MAX_MESSAGE);
	/* Our end of stdin does not block (write_all_nosigpipe); the server's does. */
	if (pipe2(in, O_CLOEXEC) < 0 || fcntl(in[1], F_SETFL, O_NONBLOCK) < 0 ||
	    pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    pipe2(t->stop, O_CLOEXEC) < 0) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': pipes: %s", sc->name, strerror(errno));
		goto out_close;
	}
	t->in_fd = in[1];
	t->out_fd = out[0];
	t->err_fd = errp[0];
	in[1] = out[0] = errp[0] = -1;
	server_log_printf(t->log, "starting %s", sc->command);
	if (spawn(t, in, out, errp, err) < 0) {
		server_log_printf(t->log, "%s", err ? err->text : "spawn failed");
		goto out_close;
	}
	close_fd(&in[0]);
	close_fd(&out[1]);
	close_fd(&errp[1]);
	t->err_started = !pthread_create(&t->err_thread, NULL, err_main, t);
	t->out_started = t->err_started && !pthread_create(&t->out_thread, NULL, out_main, t);
	if (t->out_started)
		return t;
	err_set(err, EXIT_UNREACHABLE, "server '%s': pthread_create failed", sc->name);
out_close:
	close_fd(&in[0]);
	close_fd(&out[1]);
	close_fd(&errp[1]);
	t->faulted = true; /* no grace for a server we never spoke to */
	stdio_close(t);
	return NULL;
}

/* write() all of @p to @fd (non-blocking) with SIGPIPE held back: a dead
 * server must give us EPIPE, not kill the whole process, and one that stops
 * reading must not hold us (and every caller queued on write_lock): -ETIMEDOUT
 * when it takes nothing for @timeout_ms. */
static int write_all_nosigpipe(int fd, const char *p, size_t n, long long timeout_ms)
{
	static const struct timespec zero = {0, 0};
	double deadline = clock_now_ms() + (double)timeout_ms;
	struct pollfd pf = {.fd = fd, .events = POLLOUT};
	sigset_t pipe_set, old;
	bool had_pending;
	sigset_t pending;
	double left;
	ssize_t w;
	int rc = 0;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	had_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			left = deadline - clock_now_ms();
			if (left <= 0) {
				rc = -ETIMEDOUT;
				break;
			}
			poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left + 1);
			continue;
		}
		if (w < 0) {
			rc = -errno;
			break;
		}
		p += w;
		n -= (size_t)w;
		deadline = clock_now_ms() + (double)timeout_ms;
	}
	if (rc == -EPIPE && !had_pending)
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* As long as a call may take: the server's own timeout, else the default. */
static long long stdio_write_timeout_ms(const struct transport *t)
{
	return (long long)((t->sc->timeout_s > 0 ? t->sc->timeout_s : STDIO_WRITE_TIMEOUT_S) *
			   1000);
}

static int stdio_send(struct transport *t, json_t *msg, struct err *err)
{
	struct buf b;
	int rc;

	buf_init(&b, TRANSPORT_MAX_MESSAGE);
	rc = jsonrpc_encode_line(msg, &b);
	if (rc) {
		buf_free(&b);
		err_set(err, EXIT_FAILED, "server '%s': message to send: %s", t->sc->name,
			rc == -E2BIG ? "larger than the cap" : "out of memory");
		return rc;
	}
	pthread_mutex_lock(&t->write_lock);
	rc = t->in_fd < 0 ? -EPIPE
			  : write_all_nosigpipe(t->in_fd, b.data, b.len, stdio_write_timeout_ms(t));
	pthread_mutex_unlock(&t->write_lock);
	buf_free(&b);
	if (rc == -ETIMEDOUT) {
		/* Part of a message may be in the pipe: the stream is beyond
		 * repair. Stop the server; its exit is reported as a crash. */
		server_log_printf(t->log, "stdin not read for %lld ms: SIGKILL",
				  stdio_write_timeout_ms(t));
		t->proc->ops->signal(t->proc, SIGKILL);
		err_set(err, EXIT_UNREACHABLE,
			"server '%s' stopped reading its stdin: nothing taken for %.0f s; it was "
			"stopped",
			t->sc->name, (double)stdio_write_timeout_ms(t) / 1000);
	} else if (rc == -EPIPE) {
		/* It closed stdin by exiting, most likely: say how it ended,
		 * once its last words on stderr are in the log. */
		char why[ERR_TEXT_MAX];

		describe_exit(t, why, sizeof(why));
		wait_stderr_logged(t);
		err_set(err, EXIT_UNREACHABLE, "%s", why);
	} else if (rc) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': write to stdin: %s", t->sc->name,
			strerror(-rc));
	}
	return rc;
}

static void stdio_ready(struct transport *t, const char *protocol_version)
{
	(void)t;
	(void)protocol_version;
}

/* Also frees a half-built transport (stdio_open's error path): no process,
 * or threads not started. */
static void stdio_close(struct transport *t)
{
	bool done;

	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->closing = true;
	pthread_cond_broadcast(&t->err_cond);
	pthread_mutex_unlock(&t->lock);
	pthread_mutex_lock(&t->write_lock);
	close_fd(&t->in_fd);
	pthread_mutex_unlock(&t->write_lock);

	if (t->proc) {
		pthread_mutex_lock(&t->lock);
		/* A server we stopped reading may be blocked writing: no grace. */
		done = wait_exit_locked(t, t->faulted ? 0 : STDIO_GRACE_MS);
		if (!done) {
			server_log_printf(t->log, "no exit %d ms after stdin closed: SIGTERM",
					  STDIO_GRACE_MS);
			t->proc->ops->signal(t->proc, SIGTERM);
			done = wait_exit_locked(t, STDIO_GRACE_MS);
		}
		if (!done)
			server_log_printf(t->log, "no exit after SIGTERM: SIGKILL");
		pthread_mutex_unlock(&t->lock);
		/* Kills what is left, children the server left behind in its
		 * group among them: they hold our pipes open. */
		t->proc->ops->free(t->proc);
	}
	if (t->stop[1] >= 0)
		wake_readers(t);
	if (t->out_started)
		pthread_join(t->out_thread, NULL);
	if (t->err_started)
		pthread_join(t->err_thread, NULL);
	close_fd(&t->out_fd);
	close_fd(&t->err_fd);
	close_fd(&t->stop[0]);
	close_fd(&t->stop[1]);
	jsonrpc_lines_free(&t->lines);
	server_log_close(t->log);
	pthread_mutex_destroy(&t->write_lock);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->err_cond);
	free(t);
}

const struct transport_ops transport_stdio_ops = {
    .name = "stdio",
    .open = stdio_open,
    .send = stdio_send,
    .ready = stdio_ready,
    .close = stdio_close,
};
