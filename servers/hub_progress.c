/* The progress line: a thread polls hub_info a few times a second (the
 * hub's own threads are left alone), and draws with "\r" and erase-line,
 * cut to the terminal's width so it never wraps. */
#include "hub_progress.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../common/clock.h"
#include "hub.h"

#define PROGRESS_TICK_MS 250
#define PROGRESS_QUIET_S 0.5 /* a start quicker than this draws nothing */

struct hub_progress {
	struct hub *h;
	int fd;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;    /* under lock */
	bool drawn;   /* the thread's own */
	double since; /* the thread's own: when servers began to start; 0: none is */
};

static void draw(struct hub_progress *p, const char *text)
{
	struct winsize ws;
	size_t width = 80, len = strlen(text);
	char out[1200];
	int n;

	if (ioctl(p->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		width = ws.ws_col - 1;
	if (len > width)
		len = width;
	n = snprintf(out, sizeof(out), "\r\033[K%.*s", (int)len, text);
	if (n > 0 && write(p->fd, out, (size_t)n) < 0)
		return;
	p->drawn = len > 0;
}

/* Append ", NAME" (or "@head NAME" for the first) to @b. */
static void add_name(char *b, size_t n, const char *head, const char *name)
{
	size_t used = strlen(b);

	if (used < n)
		snprintf(b + used, n - used, "%s %s", used ? "," : head, name);
}

/* One look at the hub: the line to show, or "" when no server is starting:
 * "mcpfs: starting a, b (3 s); ready: c; failed: d". */
static void line_of(struct hub_progress *p, char *text, size_t n)
{
	struct hub_server_info in;
	char starting[512] = "", ready[512] = "", failed[512] = "";
	double now = clock_now_s();
	size_t i;

	for (i = 0; i < hub_count(p->h); i++) {
		hub_info(p->h, hub_name(p->h, i), &in);
		/* ready means initialized; done means its catalog is in */
		if (in.state == HUB_FAILED)
			add_name(failed, sizeof(failed), "; failed:", in.name);
		else if (in.state == HUB_READY && in.generation)
			add_name(ready, sizeof(ready), "; ready:", in.name);
		else if (in.state != HUB_IDLE)
			add_name(starting, sizeof(starting), "mcpfs: starting", in.name);
	}
	text[0] = '\0';
	if (!starting[0]) {
		p->since = 0;
		return;
	}
	if (!p->since)
		p->since = now;
	if (now - p->since >= PROGRESS_QUIET_S)
		snprintf(text, n, "%s (%.0f s)%s%s", starting, now - p->since, ready, failed);
}

static void *progress_main(void *arg)
{
	struct hub_progress *p = arg;
	char text[1600], shown[1600] = "";
	struct timespec ts;
	bool stop = false;

	while (!stop) {
		line_of(p, text, sizeof(text));
		if (strcmp(text, shown)) {
			draw(p, text);
			snprintf(shown, sizeof(shown), "%s", text);
		}
		pthread_mutex_lock(&p->lock);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += PROGRESS_TICK_MS * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		while (!p->stop && pthread_cond_timedwait(&p->wake, &p->lock, &ts) != ETIMEDOUT)
			;
		stop = p->stop;
		pthread_mutex_unlock(&p->lock);
	}
	if (p->drawn)
		draw(p, "");
	return NULL;
}

struct hub_progress *hub_progress_start(struct hub *h, int fd)
{
	struct hub_progress *p;
	pthread_condattr_t ca;

	if (!h || !isatty(fd))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->h = h;
	p->fd = fd;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&p->thread, NULL, progress_main, p)) {
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return NULL;
	}
	return p;
}

void hub_progress_stop(struct hub_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
