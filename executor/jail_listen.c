/* A listening unix socket made by the child in the jail's own root
 * (jail_spec.listen_path) and handed to the parent over the sync socket: the
 * run's bridge listens on it, and no host folder is bound into the jail for
 * it, so the jail's mount table names no run folder and no host process or
 * other jail can reach the socket by a path. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "jail_i.h"

/* In the child, in its new root before it turns read-only: make the socket,
 * listen, send it, keep no copy. */
int jail_listen_child(struct jail *j, char *why, size_t n)
{
	const char *path = j->spec->listen_path;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = "l", .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = u.buf,
			   .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *c;
	char dir[sizeof(sa.sun_path)];
	char *slash;
	int fd, rc = 0;

	if (!path)
		return 0;
	if (strlen(path) >= sizeof(sa.sun_path) || path[0] != '/') {
		errno = ENAMETOOLONG;
		return jail_why(why, n, "listen path %s", path);
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	memcpy(dir, path, strlen(path) + 1);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (dir[0] && mkdir(dir, 0755) < 0 && errno != EEXIST)
		return jail_why(why, n, "mkdir(%s)", dir);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return jail_why(why, n, "socket(AF_UNIX)");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(path, 0600) < 0 ||
	    listen(fd, 128) < 0) {
		rc = jail_why(why, n, "bind/listen(%s)", path);
		close(fd);
		return rc;
	}
	memset(u.buf, 0, sizeof(u.buf));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(j->sync_sock[0], &m, MSG_NOSIGNAL) != 1)
		rc = jail_why(why, n, "sendmsg(sync socket, SCM_RIGHTS)");
	close(fd);
	return rc;
}

/* In the parent, once the child reached exec: the socket it sent, queued on
 * the sync socket by then. */
int jail_listen_parent(struct jail *j, struct err *err)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = u.buf,
			   .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *c;
	ssize_t r;

	if (!j->spec->listen_path)
		return 0;
	do
		r = recvmsg(j->sync_sock[1], &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	c = r == 1 ? CMSG_FIRSTHDR(&m) : NULL;
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return err_set(err, EXIT_FAILED, "jail: no listening socket from the child (%s)",
			       r < 0 ? strerror(errno) : "none sent");
	memcpy(&j->listen_fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

int jail_take_listen_fd(struct jail *j)
{
	int fd = j->listen_fd;

	j->listen_fd = -1;
	return fd;
}
