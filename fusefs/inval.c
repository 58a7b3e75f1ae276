#include "inval.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct fusefs_inval_job {
	struct fusefs_inval_job *next;
	size_t server;
	struct fusefs_snap *old;      /* owned: what the kernel may have cached */
	struct fusefs_snap *new_snap; /* owned; NULL for a store job */
	size_t first, count;	      /* store job: entries of old */
};

static void job_free(struct fusefs_inval_job *j)
{
	fusefs_snap_unref(j->old);
	fusefs_snap_unref(j->new_snap);
	free(j);
}

struct fusefs_inval *fusefs_inval_new(double tick_s)
{
	struct fusefs_inval *v = calloc(1, sizeof(*v));
	pthread_condattr_t ca;

	if (!v)
		return NULL;
	v->tick_s = tick_s;
	if (pthread_mutex_init(&v->lock, NULL))
		goto out_free;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_cond_init(&v->cond, &ca)) {
		pthread_condattr_destroy(&ca);
		pthread_mutex_destroy(&v->lock);
		goto out_free;
	}
	pthread_condattr_destroy(&ca);
	return v;
out_free:
	free(v);
	return NULL;
}

/* Drop what the kernel may hold for the folder as @old showed it: the
 * folder's attributes and cached listing, each name's dentry, and each file's
 * attributes and pages. New names need nothing: misses are never cached. */
static void run_job(struct fusefs_inval *v, const struct fusefs_inval_job *j)
{
	const struct cg_entry *e;
	uint64_t dir, ino;
	size_t i, n;

	dir = fusefs_tree_server_ino(v->tree, j->server, NULL);
	if (!dir)
		return;
	v->ops.inval_inode(v->ops.ctx, dir);
	if (cg_server_list(j->old->cg, &e, &n))
		return;
	for (i = 0; i < n; i++) {
		ino = fusefs_tree_server_ino(v->tree, j->server, e[i].name);
		if (!ino)
			continue;
		v->ops.inval_entry(v->ops.ctx, dir, e[i].name);
		v->ops.inval_inode(v->ops.ctx, ino);
	}
}

/* Store each listed file still rendered in our cache into the kernel, then
 * drop our copy. Only while the snapshot is the folder's current one. */
static void run_store(struct fusefs_inval *v, const struct fusefs_inval_job *j)
{
	struct fusefs_snap *cur = fusefs_slot_peek(&v->tree->slots[j->server]);
	const struct cg_entry *e;
	struct fusefs_blob *blob;
	size_t i, n;
	uint64_t ino;

	if (cur != j->old || cg_server_list(j->old->cg, &e, &n))
		goto out_unref;
	for (i = j->first; i < n && i < j->first + j->count; i++) {
		blob = fusefs_cache_get(&j->old->cache, e[i].name);
		if (!blob)
			continue;
		ino = fusefs_tree_server_ino(v->tree, j->server, e[i].name);
		if (ino && v->ops.store(v->ops.ctx, ino, blob->data, blob->len) == 0)
			fusefs_cache_drop(&j->old->cache, e[i].name);
		fusefs_blob_unref(blob);
	}
out_unref:
	fusefs_snap_unref(cur);
}

/* A swap was lost: drop whatever the kernel holds below the server folders,
 * as run_job does for one folder (the folders' inodes, so their listings,
 * and each file's entry and inode). The top never changes. */
static void run_flush(struct fusefs_inval *v)
{
	struct fusefs_known *k;
	long i, n = fusefs_inodes_known(&v->tree->inodes, &k);

	if (n < 0) {
		fprintf(stderr, "mcpfs: mount: out of memory invalidating after a lost change; "
				"the kernel's copy lasts until its timeout\n");
		return;
	}
	for (i = 0; i < n; i++) {
		if (k[i].kind == FUSEFS_SERVER_FILE)
			v->ops.inval_entry(v->ops.ctx, k[i].parent, k[i].name);
		v->ops.inval_inode(v->ops.ctx, k[i].ino);
	}
	fusefs_known_free(k, n);
}

static struct timespec tick_deadline(double s)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)s;
	ts.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static void *inval_thread(void *arg)
{
	struct fusefs_inval *v = arg;
	struct fusefs_inval_job *j;
	struct timespec until = tick_deadline(v->tick_s);

	pthread_mutex_lock(&v->lock);
	while (!v->stop) {
		j = v->head;
		if (j) {
			v->head = j->next;
			if (!v->head)
				v->tail = NULL;
			pthread_mutex_unlock(&v->lock);
			if (j->new_snap)
				run_job(v, j);
			else if (v->ops.store)
				run_store(v, j);
			job_free(j);
			pthread_mutex_lock(&v->lock);
			v->queued--;
			pthread_cond_broadcast(&v->cond);
			continue;
		}
		if (v->lost) {
			v->lost = false;
			pthread_mutex_unlock(&v->lock);
			run_flush(v);
			pthread_mutex_lock(&v->lock);
			v->queued--;
			pthread_cond_broadcast(&v->cond);
			continue;
		}
		if (pthread_cond_timedwait(&v->cond, &v->lock, &until) != ETIMEDOUT)
			continue;
		/* The poll may swap snapshots, which queues jobs: no lock held. */
		pthread_mutex_unlock(&v->lock);
		fusefs_tree_poll(v->tree);
		until = tick_deadline(v->tick_s);
		pthread_mutex_lock(&v->lock);
	}
	pthread_mutex_unlock(&v->lock);
	return NULL;
}

int fusefs_inval_start(struct fusefs_inval *v, struct fusefs_tree *tree,
		       const struct fusefs_notify_ops *ops)
{
	int rc;

	v->tree = tree;
	v->ops = *ops;
	rc = pthread_create(&v->thread, NULL, inval_thread, v);
	if (rc)
		return -rc;
	v->started = true;
	return 0;
}

/* Queue @j; or free it and return false when stopped or past @limit jobs. */
static bool enqueue(struct fusefs_inval *v, struct fusefs_inval_job *j, size_t limit)
{
	pthread_mutex_lock(&v->lock);
	if (v->stop || v->queued >= limit) {
		pthread_mutex_unlock(&v->lock);
		job_free(j);
		return false;
	}
	if (v->tail)
		v->tail->next = j;
	else
		v->head = j;
	v->tail = j;
	v->queued++;
	pthread_cond_broadcast(&v->cond);
	pthread_mutex_unlock(&v->lock);
	return true;
}

/* A swap could not be queued: flush once the jobs ahead are done (one flush
 * covers any number of lost swaps). */
static void lose(struct fusefs_inval *v)
{
	pthread_mutex_lock(&v->lock);
	if (!v->stop && !v->lost) {
		v->lost = true;
		v->queued++;
		pthread_cond_broadcast(&v->cond);
	}
	pthread_mutex_unlock(&v->lock);
}

void fusefs_inval_push(void *ctx, size_t server, struct fusefs_snap *old,
		       struct fusefs_snap *new_snap)
{
	struct fusefs_inval_job *j = calloc(1, sizeof(*j));

	if (!j) {
		fusefs_snap_unref(old);
		fusefs_snap_unref(new_snap);
		lose(ctx);
		return;
	}
	j->server = server;
	j->old = old;
	j->new_snap = new_snap;
	if (!enqueue(ctx, j, FUSEFS_INVAL_QUEUE_MAX))
		lose(ctx);
}

void fusefs_inval_listed(void *ctx, size_t server, struct fusefs_snap *snap, size_t first,
			 size_t count)
{
	struct fusefs_inval_job *j = calloc(1, sizeof(*j));

	if (!j) {
		fusefs_snap_unref(snap); /* only an optimization is lost */
		return;
	}
	j->server = server;
	j->old = snap;
	j->first = first;
	j->count = count;
	/* Stores are an optimization: they never crowd out an invalidation. */
	enqueue(ctx, j, FUSEFS_INVAL_QUEUE_MAX / 2);
}

bool fusefs_inval_drain(struct fusefs_inval *v, double timeout_s)
{
	struct timespec until = tick_deadline(timeout_s);
	bool drained;

	pthread_mutex_lock(&v->lock);
	while (v->queued && !v->stop)
		if (pthread_cond_timedwait(&v->cond, &v->lock, &until) == ETIMEDOUT)
			break;
	drained = v->queued == 0;
	pthread_mutex_unlock(&v->lock);
	return drained;
}

void fusefs_inval_stop(struct fusefs_inval *v)
{
	pthread_mutex_lock(&v->lock);
	v->stop = true;
	pthread_cond_broadcast(&v->cond);
	pthread_mutex_unlock(&v->lock);
	if (v->started)
		pthread_join(v->thread, NULL);
	v->started = false;
}

void fusefs_inval_free(struct fusefs_inval *v)
{
	struct fusefs_inval_job *j;

	if (!v)
		return;
	fusefs_inval_stop(v);
	while ((j = v->head)) {
		v->head = j->next;
		job_free(j);
	}
	pthread_cond_destroy(&v->cond);
	pthread_mutex_destroy(&v->lock);
	free(v);
}
