/* A parked jail: made ahead of its program (serve's pool, run_pool.h), it
 * stops after its namespaces, mounts and cgroup, before the steps that
 * depend on the program or lock the jail down. jail_handoff sends the
 * program over the sync socket; the child writes it into its root, still
 * writable, turns the root read-only and goes on with the checklist
 * (rlimits, capabilities, seccomp, exec) as an unparked jail does. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/fsx.h"
#include "jail_i.h"

struct park_msg {
	double cpu_s;
	uint64_t len;	  /* the program's bytes, after the entry */
	uint32_t env_len; /* the environment entry's bytes, first */
};

/* Read all @len bytes; -1 (errno set, 0 at EOF) when they do not come. */
static int read_full(int fd, void *p, size_t len)
{
	ssize_t r;

	while (len) {
		r = read(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p = (char *)p + r;
		len -= (size_t)r;
	}
	return 0;
}

/* The spec's environment with @entry in place of its own NAME= entry. */
static void env_with(struct jail *j, const char *entry)
{
	const char *const *envp = j->spec->envp;
	size_t name = strcspn(entry, "=") + 1, i, k = 0, max = sizeof(j->envp) / sizeof(j->envp[0]);

	for (i = 0; envp[i] && k + 2 < max; i++)
		if (!entry[0] || strncmp(envp[i], entry, name))
			j->envp[k++] = envp[i];
	if (entry[0])
		j->envp[k++] = entry;
	j->envp[k] = NULL;
}

/* The program's bytes from the socket into @path, in pieces: no malloc. */
static int write_program(int sock, const char *path, uint64_t len, char *why, size_t n)
{
	char chunk[16384];
	size_t piece;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);

	if (fd < 0)
		return jail_why(why, n, "open(%s)", path);
	while (len) {
		piece = len < sizeof(chunk) ? (size_t)len : sizeof(chunk);
		if (read_full(sock, chunk, piece) < 0) {
			close(fd);
			return jail_why(why, n, "read(sync socket, the program)");
		}
		if (fsx_write_all(fd, chunk, piece) < 0) {
			close(fd);
			return jail_why(why, n, "write(%s)", path);
		}
		len -= piece;
	}
	if (fchmod(fd, 0444) < 0) {
		close(fd);
		return jail_why(why, n, "fchmod(%s)", path);
	}
	close(fd);
	return 0;
}

/* Close every descriptor but 0..2 and @keep (ascending): a copy of mcpfs's
 * table would hold other runs' pipes open for as long as this one waits. */
static int close_others(const int keep[3], char *why, size_t n)
{
	unsigned from = 3;
	int i;

	for (i = 0; i < 3; i++) {
		if (keep[i] > (int)from &&
		    syscall(SYS_close_range, from, (unsigned)keep[i] - 1, 0u) < 0)
			return jail_why(why, n, "close_range(%u, %d)", from, keep[i] - 1);
		if (keep[i] >= (int)from)
			from = (unsigned)keep[i] + 1;
	}
	if (syscall(SYS_close_range, from, ~0u, 0u) < 0)
		return jail_why(why, n, "close_range(%u, ~0)", from);
	return 0;
}

static void sort3(int v[3])
{
	int i, k, t;

	for (i = 0; i < 2; i++)
		for (k = 0; k < 2 - i; k++)
			if (v[k] > v[k + 1]) {
				t = v[k];
				v[k] = v[k + 1];
				v[k + 1] = t;
			}
}

int jail_park_child(struct jail *j, char *why, size_t n)
{
	const struct jail_spec *s = j->spec;
	int keep[3] = {j->sync_sock[0], j->err_pipe[1], j->status_pipe[1]};
	struct park_msg m;

	if (!s->park_file)
		return 0;
	sort3(keep);
	if (close_others(keep, why, n) < 0)
		return -1;
	if (send(j->sync_sock[0], "p", 1, MSG_NOSIGNAL) != 1)
		return jail_why(why, n, "send(sync socket, parked)");
	/* EOF: the jail is retired unused; nobody waits for a line */
	if (read_full(j->sync_sock[0], &m, sizeof(m)) < 0)
		_exit(127);
	if (m.env_len > JAIL_HANDOFF_ENV_MAX) {
		errno = E2BIG;
		return jail_why(why, n, "hand-off environment entry (%u bytes)", m.env_len);
	}
	if (read_full(j->sync_sock[0], j->env, m.env_len) < 0)
		return jail_why(why, n, "read(sync socket, environment)");
	j->env[m.env_len] = '\0';
	env_with(j, j->env);
	if (write_program(j->sync_sock[0], s->park_file, m.len, why, n) < 0 ||
	    jail_mount_root_readonly(why, n) < 0)
		return -1;
	j->in_force.cpu_s = m.cpu_s;
	return 0;
}

/* The child sends its listening socket (jail_listen.c), then "p" once
 * parked; a child that failed sends its line on the error pipe and exits. */
int jail_park_parent(struct jail *j, struct err *err)
{
	struct pollfd p = {.fd = j->sync_sock[1], .events = POLLIN};
	char c = 0;
	ssize_t r;

	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return err_set(err, EXIT_FAILED, "jail: poll(sync socket): %s",
				       strerror(errno));
	if (jail_listen_parent(j, err) == 0) {
		do
			r = recv(j->sync_sock[1], &c, 1, 0);
		while (r < 0 && errno == EINTR);
		if (r == 1 && c == 'p')
			return 0;
		err_set(err, EXIT_FAILED, "jail: the child ended before it parked");
	}
	jail_read_verdict(j, err); /* the child's own line, when it wrote one, wins */
	return -1;
}

int jail_handoff(struct jail *j, const struct jail_handoff *h, struct err *err)
{
	struct pollfd p = {.fd = j->pidfd, .events = POLLIN};
	struct park_msg m = {.cpu_s = h->cpu_s, .len = h->len};
	size_t env_len = h->env ? strlen(h->env) : 0;

	if (!j->parked)
		return err_set(err, EXIT_USAGE, "jail: not parked, or handed a program already");
	j->parked = false;
	if (env_len > JAIL_HANDOFF_ENV_MAX)
		return err_set(err, EXIT_USAGE, "jail: hand-off environment entry too long");
	/* a parked jail killed meanwhile (the OOM killer, an operator) */
	if (poll(&p, 1, 0) != 0)
		return err_set(err, EXIT_FAILED, "jail: the parked jail has ended");
	m.env_len = (uint32_t)env_len;
	if (fsx_send_all(j->sync_sock[1], &m, sizeof(m)) < 0 ||
	    fsx_send_all(j->sync_sock[1], h->env, env_len) < 0 ||
	    fsx_send_all(j->sync_sock[1], h->data, h->len) < 0) {
		err_set(err, EXIT_FAILED, "jail: send(sync socket, the program): %s",
			strerror(errno));
		jail_read_verdict(j, err);
		return -1;
	}
	j->in_force.cpu_s = h->cpu_s;
	if (jail_read_verdict(j, err) < 0)
		return -1;
	close(j->sync_sock[1]);
	j->sync_sock[1] = -1;
	close(j->err_pipe[0]);
	j->err_pipe[0] = -1;
	return 0;
}
