#include "slot.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"

#define RETRY_MIN_S 1.0
#define RETRY_MAX_S 30.0

int fusefs_slot_init(struct fusefs_slot *s, const struct cg_root *root, size_t index,
		     const struct fusefs_source *src, struct fusefs_budget *budget, double wait_s,
		     fusefs_swap_fn on_swap, void *swap_ctx)
{
	pthread_condattr_t ca;
	int rc;

	memset(s, 0, sizeof(*s));
	s->root = root;
	s->index = index;
	s->name = cg_root_server_name(root, index);
	s->src = src;
	s->budget = budget;
	s->wait_s = wait_s;
	s->on_swap = on_swap;
	s->swap_ctx = swap_ctx;
	s->retry_s = RETRY_MIN_S;
	rc = -pthread_mutex_init(&s->lock, NULL);
	if (rc)
		return rc;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = -pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		pthread_mutex_destroy(&s->lock);
	return rc;
}

/* Fetch the catalog and build its snapshot; no lock held. A catalog handed
 * back while the hub reports the server failed is stale: show the failure. */
static struct fusefs_snap *load(struct fusefs_slot *s)
{
	struct hub_server_info info;
	struct err e = {0};
	struct fusefs_snap *snap;
	uint64_t gen = 0;
	struct catalog_text *tools;
	json_t *notes;

	tools = s->src->tools(s->src->ctx, s->name, &gen, &e);
	memset(&info, 0, sizeof(info));
	s->src->info(s->src->ctx, s->name, &info);
	if (tools && info.state == HUB_FAILED) {
		catalog_text_free(tools);
		tools = NULL;
		snprintf(e.text, sizeof(e.text), "%s", info.why[0] ? info.why : "server failed");
	}
	if (!tools && !e.text[0])
		snprintf(e.text, sizeof(e.text), "%s", info.why[0] ? info.why : "no catalog");
	snap = fusefs_snap_new(s->root, s->index, tools, gen, tools ? NULL : e.text,
			       info.log_tail[0] ? info.log_tail : NULL, false, s->budget);
	/* Read after the tools: the notes of the same catalog or a newer one,
	 * which the next generation's snapshot shows anyway. */
	notes = tools && snap && s->src->notes ? s->src->notes(s->src->ctx, s->name) : NULL;
	if (notes)
		cg_server_set_notes(snap->cg, notes);
	json_decref(notes);
	catalog_text_free(tools);
	return snap;
}

static bool same(const struct fusefs_snap *a, const struct fusefs_snap *b)
{
	if (a->provisional || b->provisional || a->ok != b->ok)
		return false;
	if (a->ok)
		return a->generation == b->generation;
	return !strcmp(a->status, b->status);
}

/* Called with the lock held; may drop it around on_swap. */
static void install(struct fusefs_slot *s, struct fusefs_snap *snap)
{
	struct fusefs_snap *old = s->cur;

	if (snap->ok) {
		s->retry_s = RETRY_MIN_S;
	} else {
		s->retry_at = clock_now_s() + s->retry_s;
		s->retry_s = s->retry_s * 2 > RETRY_MAX_S ? RETRY_MAX_S : s->retry_s * 2;
	}
	if (old && same(old, snap)) {
		fusefs_snap_unref(snap);
		return;
	}
	s->cur = snap;
	pthread_cond_broadcast(&s->cond);
	if (!old)
		return;
	fusefs_snap_ref(snap);
	pthread_mutex_unlock(&s->lock);
	s->on_swap(s->swap_ctx, s->index, old, snap);
	pthread_mutex_lock(&s->lock);
}

static void *worker(void *arg)
{
	struct fusefs_slot *s = arg;
	struct fusefs_snap *snap;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->want && !s->stop)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->stop)
			break;
		s->want = false;
		s->busy = true;
		pthread_mutex_unlock(&s->lock);
		snap = load(s);
		pthread_mutex_lock(&s->lock);
		s->busy = false;
		if (snap)
			install(s, snap);
		pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Called with the lock held. */
static void request(struct fusefs_slot *s)
{
	if (s->stop)
		return;
	s->want = true;
	if (!s->started) {
		if (pthread_create(&s->thread, NULL, worker, s)) {
			fprintf(stderr, "mcpfs: mount: pthread_create(loader %s) failed\n",
				s->name);
			s->want = false;
			return;
		}
		s->started = true;
	}
	pthread_cond_broadcast(&s->cond);
}

static struct timespec deadline(double wait_s)
{
	struct timespec ts;
	double t = clock_now_s() + wait_s;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	return ts;
}

struct fusefs_snap *fusefs_slot_get(struct fusefs_slot *s)
{
	struct timespec until = deadline(s->wait_s);
	struct fusefs_snap *snap;
	char status[128];

	pthread_mutex_lock(&s->lock);
	if (!s->cur && !s->busy && !s->want)
		request(s);
	while (!s->cur && s->started && !s->stop)
		if (pthread_cond_timedwait(&s->cond, &s->lock, &until) == ETIMEDOUT)
			break;
	if (!s->cur) {
		snprintf(status, sizeof(status),
			 "still starting after %.0f s; this folder fills in when it is ready",
			 s->wait_s);
		s->cur = fusefs_snap_new(s->root, s->index, NULL, 0, status, NULL, true, s->budget);
	}
	snap = s->cur ? fusefs_snap_ref(s->cur) : NULL;
	pthread_mutex_unlock(&s->lock);
	return snap;
}

struct fusefs_snap *fusefs_slot_peek(struct fusefs_slot *s)
{
	struct fusefs_snap *snap;

	pthread_mutex_lock(&s->lock);
	snap = s->cur ? fusefs_snap_ref(s->cur) : NULL;
	pthread_mutex_unlock(&s->lock);
	return snap;
}

void fusefs_slot_reload(struct fusefs_slot *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->cur)
		request(s);
	pthread_mutex_unlock(&s->lock);
}

void fusefs_slot_poll(struct fusefs_slot *s, double now)
{
	struct hub_server_info info;
	bool due = false;

	pthread_mutex_lock(&s->lock);
	if (!s->cur || s->busy || s->want) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	if (!s->cur->ok) {
		if (!s->cur->provisional && now >= s->retry_at)
			request(s);
		pthread_mutex_unlock(&s->lock);
		return;
	}
	pthread_mutex_unlock(&s->lock);

	memset(&info, 0, sizeof(info));
	s->src->info(s->src->ctx, s->name, &info);

	pthread_mutex_lock(&s->lock);
	if (s->cur && s->cur->ok)
		due = info.state == HUB_FAILED ||
		      (info.state == HUB_READY && info.generation != s->cur->generation);
	if (due && !s->busy && !s->want)
		request(s);
	pthread_mutex_unlock(&s->lock);
}

void fusefs_slot_stop(struct fusefs_slot *s)
{
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (s->started)
		pthread_join(s->thread, NULL);
	s->started = false;
}

void fusefs_slot_destroy(struct fusefs_slot *s)
{
	fusefs_snap_unref(s->cur);
	s->cur = NULL;
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
}
