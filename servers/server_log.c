#define _GNU_SOURCE
#include "server_log.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fsx.h"

struct server_log {
	pthread_mutex_t lock;
	int fd;	    /* protected by lock */
	char *path; /* immutable */
};

static int open_append(const char *path)
{
	return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
}

struct server_log *server_log_open(const char *path)
{
	struct server_log *l;
	char *dir, *slash;

	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->path = strdup(path);
	dir = strdup(path);
	if (!l->path || !dir)
		goto out_free;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		fsx_mkdirs(dir, 0750);
	}
	free(dir);
	dir = NULL;
	l->fd = open_append(path);
	if (l->fd < 0)
		goto out_free;
	pthread_mutex_init(&l->lock, NULL);
	return l;
out_free:
	free(dir);
	free(l->path);
	free(l);
	return NULL;
}

/* Called with l->lock held. Several processes may share a log: whoever sees
 * it past the cap renames it; the others' O_APPEND writes land in the file
 * they hold until their next rotation check reopens the new one. */
static void rotate_if_big(struct server_log *l)
{
	char old[4096];
	struct stat st;
	int fd;

	if (fstat(l->fd, &st) < 0 || (size_t)st.st_size < SERVER_LOG_MAX)
		return;
	if (snprintf(old, sizeof(old), "%s.1", l->path) >= (int)sizeof(old))
		return;
	rename(l->path, old);
	fd = open_append(l->path);
	if (fd < 0)
		return;
	close(l->fd);
	l->fd = fd;
}

void server_log_write(struct server_log *l, const char *data, size_t n)
{
	ssize_t w;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	rotate_if_big(l);
	while (n) {
		w = write(l->fd, data, n);
		if (w <= 0)
			break;
		data += w;
		n -= (size_t)w;
	}
	pthread_mutex_unlock(&l->lock);
}

void server_log_printf(struct server_log *l, const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	size_t head;
	int n;

	if (!l)
		return;
	/* Our own lines carry a UTC time so a restart sequence can be read back. */
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	head = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
	head += (size_t)snprintf(line + head, sizeof(line) - head,
				 ".%03ldZ mcpfs: ", ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	n = vsnprintf(line + head, sizeof(line) - head - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n = (int)strlen(line);
	line[n++] = '\n';
	server_log_write(l, line, (size_t)n);
}

void server_log_close(struct server_log *l)
{
	if (!l)
		return;
	close(l->fd);
	pthread_mutex_destroy(&l->lock);
	free(l->path);
	free(l);
}

void server_log_tail(const char *path, size_t max_lines, char *out, size_t n)
{
	char buf[4096];
	size_t lines = 0;
	ssize_t r;
	off_t size;
	char *p;
	int fd;

	if (!n)
		return;
	out[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size > (off_t)sizeof(buf) - 1)
		lseek(fd, size - (off_t)sizeof(buf) + 1, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return;
	buf[r] = '\0';
	while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == '\r'))
		buf[--r] = '\0';
	for (p = buf + r; p > buf; p--) {
		if (p[-1] == '\n' && ++lines == max_lines)
			break;
	}
	/* Keep the end when the tail does not fit: the last lines matter most. */
	if (strlen(p) >= n)
		p += strlen(p) - (n - 1);
	snprintf(out, n, "%s", p);
}
