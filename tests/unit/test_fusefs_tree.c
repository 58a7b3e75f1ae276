/* The mount's tree without FUSE: lookup, attributes, listings and bytes
 * against codegen called directly, stable inode numbers, errors, the bounded
 * wait for a slow server, failures, and the invalidations a catalog change
 * sends. A fake source stands in for the hub; a recorder for the kernel. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../../fusefs/inval.h"
#include "../../fusefs/lookup.h"
#include "check.h"

/* ---- the fake hub ---- */

#define NSERVERS 3
static const char *names[NSERVERS] = {"alpha", "beta", "slow-one"};

struct fake {
	pthread_mutex_t lock;
	json_t *tools[NSERVERS]; /* NULL: fails with why */
	uint64_t gen[NSERVERS];
	enum hub_state state[NSERVERS];
	double delay_s[NSERVERS];
	int calls[NSERVERS];
} fake = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int idx(const char *server)
{
	int i;

	for (i = 0; i < NSERVERS; i++)
		if (!strcmp(names[i], server))
			return i;
	return -1;
}

static struct catalog_text *fake_tools(void *ctx, const char *server, uint64_t *generation,
				       struct err *err)
{
	int i = idx(server);
	double delay;
	struct catalog_text *t;

	(void)ctx;
	pthread_mutex_lock(&fake.lock);
	delay = fake.delay_s[i];
	fake.calls[i]++;
	pthread_mutex_unlock(&fake.lock);
	if (delay > 0)
		usleep((useconds_t)(delay * 1e6));
	pthread_mutex_lock(&fake.lock);
	t = fake.tools[i] ? catalog_text_new(fake.tools[i]) : NULL;
	*generation = fake.gen[i];
	pthread_mutex_unlock(&fake.lock);
	if (!t)
		err_set(err, EXIT_UNREACHABLE, "server '%s': boom at start", server);
	return t;
}

static void fake_info(void *ctx, const char *server, struct hub_server_info *out)
{
	int i = idx(server);

	(void)ctx;
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&fake.lock);
	out->state = fake.state[i];
	out->generation = fake.gen[i];
	if (out->state == HUB_FAILED) {
		snprintf(out->why, sizeof(out->why), "server '%s': the connection died", server);
		snprintf(out->log_tail, sizeof(out->log_tail), "last log line of %s", server);
	}
	pthread_mutex_unlock(&fake.lock);
}

static json_t *tool(const char *name)
{
	return json_pack("{s:s, s:s, s:{s:s, s:{s:{s:s}}, s:[s]}}", "name", name, "description",
			 "A test tool.", "inputSchema", "type", "object", "properties", "message",
			 "type", "string", "required", "message");
}

static json_t *toolset(const char *a, const char *b)
{
	json_t *arr = json_array();

	json_array_append_new(arr, tool(a));
	if (b)
		json_array_append_new(arr, tool(b));
	return arr;
}

static void set_server(int i, json_t *tools, uint64_t gen, enum hub_state state)
{
	pthread_mutex_lock(&fake.lock);
	json_decref(fake.tools[i]);
	fake.tools[i] = tools;
	fake.gen[i] = gen;
	fake.state[i] = state;
	pthread_mutex_unlock(&fake.lock);
}

/* ---- the kernel recorder ---- */

#define MAXREC 256
static struct rec {
	pthread_mutex_t lock;
	int n;
	uint64_t ino[MAXREC];
	char name[MAXREC][64]; /* "" for inode invalidations */
} rec = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int rec_inode(void *ctx, uint64_t ino)
{
	(void)ctx;
	pthread_mutex_lock(&rec.lock);
	if (rec.n < MAXREC) {
		rec.ino[rec.n] = ino;
		rec.name[rec.n][0] = '\0';
		rec.n++;
	}
	pthread_mutex_unlock(&rec.lock);
	return 0;
}

static int rec_entry(void *ctx, uint64_t parent, const char *name)
{
	(void)ctx;
	pthread_mutex_lock(&rec.lock);
	if (rec.n < MAXREC) {
		rec.ino[rec.n] = parent;
		snprintf(rec.name[rec.n], sizeof(rec.name[0]), "%s", name);
		rec.n++;
	}
	pthread_mutex_unlock(&rec.lock);
	return 0;
}

/* Stores: the inode and the bytes' length. */
static struct {
	pthread_mutex_t lock;
	int n;
	uint64_t ino[MAXREC];
	size_t len[MAXREC];
} stored = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int rec_store(void *ctx, uint64_t ino, const char *data, size_t len)
{
	(void)ctx;
	(void)data;
	pthread_mutex_lock(&stored.lock);
	if (stored.n < MAXREC) {
		stored.ino[stored.n] = ino;
		stored.len[stored.n] = len;
		stored.n++;
	}
	pthread_mutex_unlock(&stored.lock);
	return 0;
}

static bool recorded(uint64_t ino, const char *name)
{
	bool found = false;
	int i;

	pthread_mutex_lock(&rec.lock);
	for (i = 0; i < rec.n && !found; i++)
		found = rec.ino[i] == ino && !strcmp(rec.name[i], name ? name : "");
	pthread_mutex_unlock(&rec.lock);
	return found;
}

static void rec_clear(void)
{
	pthread_mutex_lock(&rec.lock);
	rec.n = 0;
	pthread_mutex_unlock(&rec.lock);
}

/* ---- helpers over the tree ---- */

struct listing {
	int n;
	char names[64][128];
	uint64_t inos[64];
	mode_t modes[64];
	int max; /* stop after this many per call (0: no limit) */
	bool plus;
	off_t sizes[64];
	int this_call;
};

static int collect(void *ctx, const char *name, const struct stat *st, off_t next)
{
	struct listing *l = ctx;

	(void)next;
	if (l->max && l->this_call == l->max)
		return 1;
	if (l->n < 64) {
		snprintf(l->names[l->n], sizeof(l->names[0]), "%s", name);
		l->inos[l->n] = st->st_ino;
		l->modes[l->n] = st->st_mode;
		l->sizes[l->n] = st->st_size;
		l->n++;
	}
	l->this_call++;
	return 0;
}

/* The whole listing of @ino, fetched @per entries per call (0: all at once). */
static int list(struct fusefs_tree *t, uint64_t ino, struct listing *l, int per)
{
	bool plus = l->plus;
	int rc;

	memset(l, 0, sizeof(*l));
	l->plus = plus;
	l->max = per;
	do {
		int before = l->n;

		l->this_call = 0;
		rc = fusefs_tree_readdir(t, ino, l->n, l->plus, collect, l);
		if (rc || l->n == before)
			break;
	} while (per);
	return rc;
}

static bool listed(const struct listing *l, const char *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], name))
			return true;
	return false;
}

static uint64_t look(struct fusefs_tree *t, uint64_t parent, const char *name, struct stat *st)
{
	struct stat tmp;

	if (!st)
		st = &tmp;
	return fusefs_tree_lookup(t, parent, name, st) ? 0 : st->st_ino;
}

static bool same_bytes(struct fusefs_tree *t, uint64_t ino, const struct buf *want)
{
	struct fusefs_blob *blob;
	bool same;

	if (fusefs_tree_read(t, ino, &blob))
		return false;
	same = blob->len == want->len && !memcmp(blob->data, want->data, want->len);
	fusefs_blob_unref(blob);
	return same;
}

static bool wait_for(bool (*pred)(void *), void *arg, double s)
{
	double until = clock_now_s() + s;

	while (clock_now_s() < until) {
		if (pred(arg))
			return true;
		usleep(10 * 1000);
	}
	return pred(arg);
}

/* ---- tests ---- */

static void test_top(struct fusefs_tree *t, const struct cg_root *r)
{
	const struct cg_entry *e;
	struct listing l = {0};
	struct stat st, st2;
	struct buf want;
	uint64_t readme, servers;
	size_t i, n;

	CHECK(fusefs_tree_getattr(t, FUSEFS_ROOT_INO, &st) == 0 && S_ISDIR(st.st_mode) &&
		  (st.st_mode & 07777) == 0555,
	      "top is a 0555 directory");
	CHECK(list(t, FUSEFS_ROOT_INO, &l, 0) == 0, "readdir top");
	CHECK(l.n >= 2 && !strcmp(l.names[0], ".") && !strcmp(l.names[1], ".."), ". and .. first");
	cg_root_list(r, "", &e, &n);
	CHECK((size_t)l.n == n + 2, "top lists %zu entries, got %d", n + 2, l.n);
	for (i = 0; i < n; i++)
		CHECK(listed(&l, e[i].name), "top lists %s", e[i].name);

	readme = look(t, FUSEFS_ROOT_INO, "README.md", &st);
	CHECK(readme > FUSEFS_ROOT_INO && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0444,
	      "README.md is a 0444 file");
	buf_init(&want, 1 << 24);
	cg_root_render(r, "README.md", &want);
	CHECK((size_t)st.st_size == want.len, "README.md size %lld == %zu", (long long)st.st_size,
	      want.len);
	CHECK(same_bytes(t, readme, &want), "README.md bytes == cg_root_render");
	buf_free(&want);
	CHECK(look(t, FUSEFS_ROOT_INO, "README.md", &st2) == readme,
	      "same inode on a second lookup");
	CHECK(fusefs_tree_getattr(t, readme, &st2) == 0 && st2.st_size == st.st_size,
	      "getattr agrees with lookup");

	servers = look(t, FUSEFS_ROOT_INO, "servers", &st);
	CHECK(servers && S_ISDIR(st.st_mode), "servers is a directory");
	CHECK(st.st_nlink == 2 + NSERVERS, "servers has %d links, got %lu", 2 + NSERVERS,
	      (unsigned long)st.st_nlink);
	CHECK(list(t, servers, &l, 3) == 0, "readdir servers in calls of 3");
	cg_root_list(r, "servers", &e, &n);
	CHECK((size_t)l.n == n + 2, "servers lists %zu entries, got %d", n + 2, l.n);
	for (i = 0; i < n; i++)
		CHECK(listed(&l, e[i].name), "servers lists %s", e[i].name);
	CHECK(listed(&l, "slow_one") || listed(&l, cg_root_server_ident(r, 2)),
	      "server folders listed by identifier");

	CHECK(fusefs_tree_lookup(t, FUSEFS_ROOT_INO, "nope", &st) == -ENOENT, "ENOENT at top");
	CHECK(fusefs_tree_lookup(t, readme, "x", &st) == -ENOTDIR, "ENOTDIR under a file");
	CHECK(fusefs_tree_read(t, servers, &(struct fusefs_blob *){NULL}) == -EISDIR,
	      "EISDIR reading a folder");
	CHECK(fusefs_tree_getattr(t, 999999, &st) == -ENOENT, "ENOENT for an unknown inode");
}

/* The kernel's lookups keep a node; FORGET of all of them lets it go, and
 * the path gets a new number when seen again. @ino was listed (plus) once
 * and looked up once: the kernel holds 2. */
static void test_forget(struct fusefs_tree *t, uint64_t dir, uint64_t ino, const char *name)
{
	size_t before = fusefs_inodes_count(&t->inodes);
	struct stat st;
	uint64_t again;
	int i;

	fusefs_tree_forget(t, ino, 1);
	CHECK(fusefs_inodes_count(&t->inodes) == before && look(t, dir, name, NULL) == ino,
	      "one forget of two keeps %s's number", name);
	fusefs_tree_forget(t, ino, 2);
	CHECK(fusefs_inodes_count(&t->inodes) == before - 1, "forgotten: reclaimed (%zu -> %zu)",
	      before, fusefs_inodes_count(&t->inodes));
	CHECK(fusefs_tree_getattr(t, ino, &st) == -ENOENT, "a forgotten number is gone");
	again = look(t, dir, name, NULL);
	CHECK(again && again != ino, "seen again: a new number (%llu, was %llu)",
	      (unsigned long long)again, (unsigned long long)ino);
	fusefs_tree_forget(t, again, 1);
	/* Churn: a thousand lookups and forgets leave the table as it was. */
	for (i = 0; i < 1000; i++)
		fusefs_tree_forget(t, look(t, dir, name, NULL), 1);
	CHECK(fusefs_inodes_count(&t->inodes) == before - 1, "flat under churn: %zu, was %zu",
	      fusefs_inodes_count(&t->inodes), before - 1);
}

static void test_server(struct fusefs_tree *t, const struct cg_root *r)
{
	const struct cg_entry *e;
	struct cg_server *want_srv;
	struct listing l = {0};
	struct stat st;
	struct buf want;
	uint64_t servers, alpha, ino;
	size_t i, n;

	servers = look(t, FUSEFS_ROOT_INO, "servers", NULL);
	alpha = look(t, servers, "alpha", &st);
	CHECK(alpha && S_ISDIR(st.st_mode), "servers/alpha is a directory");
	CHECK(fake.calls[0] == 0, "looking at the folder itself starts nothing");
	/* readdirplus, as the kernel asks where lookups follow: its entries count as lookups,
	 * so their numbers stay while the kernel holds them. */
	l.plus = true;
	CHECK(list(t, alpha, &l, 2) == 0, "readdir servers/alpha");
	CHECK(fake.calls[0] == 1, "the listing fetched the catalog once (%d)", fake.calls[0]);

	want_srv = cg_server_new(r, 0, fake.tools[0], NULL, NULL);
	cg_server_list(want_srv, &e, &n);
	CHECK((size_t)l.n == n + 2, "alpha lists %zu entries, got %d", n + 2, l.n);
	buf_init(&want, 1 << 24);
	for (i = 0; i < n; i++) {
		CHECK(listed(&l, e[i].name), "alpha lists %s", e[i].name);
		ino = look(t, alpha, e[i].name, &st);
		CHECK(ino && S_ISREG(st.st_mode), "lookup alpha/%s", e[i].name);
		buf_reset(&want);
		cg_server_render(want_srv, e[i].name, &want);
		CHECK((size_t)st.st_size == want.len, "alpha/%s size", e[i].name);
		CHECK(same_bytes(t, ino, &want), "alpha/%s bytes == cg_server_render", e[i].name);
		CHECK(l.inos[i + 2] == ino, "readdir and lookup agree on the inode of %s",
		      e[i].name);
	}
	buf_free(&want);
	test_forget(t, alpha, l.inos[2], e[0].name);
	cg_server_free(want_srv);
	CHECK(listed(&l, "get_sum.py") && listed(&l, "echo.ts"), "tool files listed");
	CHECK(fusefs_tree_lookup(t, alpha, "missing.py", &st) == -ENOENT, "ENOENT in a folder");
	CHECK(fake.calls[0] == 1, "files came from the cached catalog (%d calls)", fake.calls[0]);
}

static void test_plus_and_store(struct fusefs_tree *t, struct fusefs_inval *v)
{
	struct fusefs_blob *held;
	struct fusefs_snap *snap;
	struct listing l = {0};
	struct stat st;
	uint64_t servers, alpha;
	int i;
	bool sizes_ok = true, stores_ok = true;

	servers = look(t, FUSEFS_ROOT_INO, "servers", NULL);
	alpha = look(t, servers, "alpha", NULL);
	memset(&l, 0, sizeof(l));
	l.plus = true;
	CHECK(fusefs_tree_readdir(t, alpha, 0, true, collect, &l) == 0 && l.n > 4,
	      "readdirplus alpha");
	for (i = 2; i < l.n; i++) {
		if (look(t, alpha, l.names[i], &st) != l.inos[i] || st.st_size != l.sizes[i] ||
		    !S_ISREG(l.modes[i]))
			sizes_ok = false;
	}
	CHECK(sizes_ok, "readdirplus attributes match lookup");
	pthread_mutex_lock(&stored.lock);
	stored.n = 0;
	pthread_mutex_unlock(&stored.lock);
	fusefs_tree_listed(t, alpha, 0, l.n);
	CHECK(fusefs_inval_drain(v, 5), "the store job ran");
	pthread_mutex_lock(&stored.lock);
	CHECK(stored.n == l.n - 2, "every listed file still held was stored (%d of %d)", stored.n,
	      l.n - 2);
	for (i = 0; i < stored.n; i++)
		if (stored.ino[i] != l.inos[i + 2] || stored.len[i] != (size_t)l.sizes[i + 2])
			stores_ok = false;
	pthread_mutex_unlock(&stored.lock);
	CHECK(stores_ok, "stores carry each file's inode and whole size");
	snap = fusefs_slot_peek(&t->slots[0]);
	held = snap ? fusefs_cache_get(&snap->cache, "echo.py") : NULL;
	CHECK(snap && !held, "stored files are no longer held by the daemon");
	fusefs_blob_unref(held);
	for (i = 2; i < l.n && strcmp(l.names[i], "echo.py"); i++)
		;
	CHECK(i < l.n && look(t, alpha, "echo.py", &st) && st.st_size == l.sizes[i],
	      "their sizes are still known");
	fusefs_snap_unref(snap);
}

static bool beta_failed(void *arg)
{
	struct fusefs_tree *t = arg;
	struct fusefs_snap *s = fusefs_slot_peek(&t->slots[1]);
	bool ok = s && !s->ok;

	fusefs_snap_unref(s);
	return ok;
}

static void test_failure(struct fusefs_tree *t)
{
	struct fusefs_blob *blob = NULL;
	struct listing l = {0};
	uint64_t servers, beta, readme;

	servers = look(t, FUSEFS_ROOT_INO, "servers", NULL);
	beta = look(t, servers, "beta", NULL);
	CHECK(list(t, beta, &l, 0) == 0 && l.n == 3 && listed(&l, "README.md"),
	      "a failed server's folder holds only README.md (%d entries)", l.n);
	readme = look(t, beta, "README.md", NULL);
	CHECK(readme && fusefs_tree_read(t, readme, &blob) == 0, "read beta/README.md");
	CHECK(blob && memmem(blob->data, blob->len, "boom at start", 13),
	      "the README says why: %.*s", blob ? (int)blob->len : 0, blob ? blob->data : "");
	fusefs_blob_unref(blob);
	CHECK(beta_failed(t), "beta's snapshot is a failure");
}

static bool slow_ready(void *arg)
{
	struct fusefs_tree *t = arg;
	struct fusefs_snap *s = fusefs_slot_peek(&t->slots[2]);
	bool ok = s && s->ok;

	fusefs_snap_unref(s);
	return ok;
}

static void test_slow(struct fusefs_tree *t, struct fusefs_inval *v)
{
	struct fusefs_blob *blob = NULL;
	struct listing l = {0};
	uint64_t servers, slow, readme;
	double t0;

	servers = look(t, FUSEFS_ROOT_INO, "servers", NULL);
	slow = look(t, servers, "slow_one", NULL);
	CHECK(slow, "servers/slow_one exists");
	rec_clear();
	t0 = clock_now_s();
	CHECK(list(t, slow, &l, 0) == 0 && l.n == 3, "a slow server lists only README.md");
	CHECK(clock_now_s() - t0 < 1.0, "the wait is bounded (%.2f s)", clock_now_s() - t0);
	readme = look(t, slow, "README.md", NULL);
	CHECK(readme && fusefs_tree_read(t, readme, &blob) == 0 && blob &&
		  memmem(blob->data, blob->len, "still starting", 14),
	      "its README says it is still starting");
	fusefs_blob_unref(blob);
	CHECK(wait_for(slow_ready, t, 5), "the catalog arrives later");
	CHECK(fusefs_inval_drain(v, 5), "the swap was processed");
	CHECK(recorded(slow, NULL), "the folder's inode was invalidated");
	CHECK(recorded(slow, "README.md"), "the stand-in README's entry was invalidated");
	CHECK(recorded(readme, NULL), "the stand-in README's inode was invalidated");
	CHECK(list(t, slow, &l, 0) == 0 && listed(&l, "solo.py"), "now it lists its tools");
}

static bool alpha_gen(void *arg)
{
	struct fusefs_tree *t = arg;
	struct fusefs_snap *s = fusefs_slot_peek(&t->slots[0]);
	bool ok = s && s->ok && s->generation == 2;

	fusefs_snap_unref(s);
	return ok;
}

static bool alpha_down(void *arg)
{
	struct fusefs_tree *t = arg;
	struct fusefs_snap *s = fusefs_slot_peek(&t->slots[0]);
	bool ok = s && !s->ok;

	fusefs_snap_unref(s);
	return ok;
}

/* Polls as the invalidation thread's tick would (its tick is long here). */
static bool alpha_up(void *arg)
{
	struct fusefs_tree *t = arg;
	struct fusefs_snap *s;
	bool ok;

	fusefs_tree_poll(t);
	s = fusefs_slot_peek(&t->slots[0]);
	ok = s && s->ok;

	fusefs_snap_unref(s);
	return ok;
}

static void test_change(struct fusefs_tree *t, struct fusefs_inval *v)
{
	struct fusefs_blob *blob = NULL;
	struct listing l = {0};
	struct stat st;
	uint64_t servers, alpha, gone, readme;

	servers = look(t, FUSEFS_ROOT_INO, "servers", NULL);
	alpha = look(t, servers, "alpha", NULL);
	gone = look(t, alpha, "echo.py", NULL);
	rec_clear();
	set_server(0, toolset("get-sum", "added-later"), 2, HUB_READY);
	fusefs_tree_changed(t, "alpha");
	CHECK(wait_for(alpha_gen, t, 5), "the change loads generation 2");
	CHECK(fusefs_inval_drain(v, 5), "the swap was processed");
	CHECK(recorded(alpha, "echo.py"), "the removed tool's entry was invalidated");
	CHECK(recorded(gone, NULL), "the removed tool's inode was invalidated");
	CHECK(recorded(alpha, NULL), "the folder was invalidated");
	CHECK(list(t, alpha, &l, 0) == 0 && listed(&l, "added_later.py") && !listed(&l, "echo.py"),
	      "the listing shows the new tool, not the removed one");
	CHECK(fusefs_tree_lookup(t, alpha, "echo.py", &st) == -ENOENT, "removed: ENOENT");
	CHECK(fusefs_tree_getattr(t, gone, &st) == -ENOENT, "the old inode is ENOENT");
	CHECK(look(t, alpha, "added_later.py", NULL), "added: found");

	/* The poll notices a dead server without being told. */
	rec_clear();
	set_server(0, toolset("get-sum", "added-later"), 2, HUB_FAILED);
	fusefs_tree_poll(t);
	CHECK(wait_for(alpha_down, t, 5), "the poll shows the failure");
	readme = look(t, alpha, "README.md", NULL);
	CHECK(readme && fusefs_tree_read(t, readme, &blob) == 0 && blob &&
		  memmem(blob->data, blob->len, "connection died", 15) &&
		  memmem(blob->data, blob->len, "last log line of alpha", 22),
	      "the README says why, with the log tail");
	fusefs_blob_unref(blob);
	CHECK(fusefs_tree_lookup(t, alpha, "get_sum.py", &st) == -ENOENT,
	      "a failed folder has no tool files");
	set_server(0, toolset("get-sum", "added-later"), 3, HUB_READY);
	CHECK(wait_for(alpha_up, t, 4), "a retry brings it back (backoff 1 s)");
	CHECK(look(t, alpha, "get_sum.py", NULL), "tool files are back");
}

/* A swap the full queue cannot take is not lost: once the jobs ahead are
 * through, whatever the kernel holds below the server folders is dropped. */
static void test_lost(struct fusefs_tree *t)
{
	struct fusefs_notify_ops nops = {.inval_inode = rec_inode, .inval_entry = rec_entry};
	struct fusefs_inval *q = fusefs_inval_new(60);
	uint64_t servers, alpha, sum;
	int i;

	servers = look(t, FUSEFS_ROOT_INO, "servers", NULL);
	alpha = look(t, servers, "alpha", NULL);
	sum = look(t, alpha, "get_sum.py", NULL);
	CHECK(q && alpha && sum, "a queue, and names the kernel holds");
	if (!q || !alpha || !sum) {
		fusefs_inval_free(q);
		return;
	}
	/* No thread yet: jobs of no snapshot (nothing to do) fill the queue. */
	for (i = 0; i < FUSEFS_INVAL_QUEUE_MAX; i++)
		fusefs_inval_push(q, 0, NULL, NULL);
	rec_clear();
	fusefs_inval_push(q, 0, NULL, NULL);
	CHECK(fusefs_inval_start(q, t, &nops) == 0, "the thread starts");
	CHECK(fusefs_inval_drain(q, 30), "the queue and the flush ran");
	CHECK(recorded(alpha, "get_sum.py"), "a file's entry was invalidated");
	CHECK(recorded(sum, NULL), "the file's inode was invalidated");
	CHECK(recorded(alpha, NULL), "the folder's inode (its listing) was invalidated");
	CHECK(!recorded(FUSEFS_ROOT_INO, "servers"), "the top stays");
	fusefs_inval_free(q);
}

int main(void)
{
	const char *const cfg_names[NSERVERS] = {"alpha", "beta", "slow-one"};
	struct fusefs_notify_ops nops = {
	    .inval_inode = rec_inode, .inval_entry = rec_entry, .store = rec_store};
	struct fusefs_source src = {.tools = fake_tools, .info = fake_info};
	double waits[NSERVERS] = {5, 5, 0.3};
	struct fusefs_tree_opts o = {0};
	struct fusefs_inval *v;
	struct fusefs_tree *t;
	struct cg_root *r;

	set_server(0, toolset("get-sum", "echo"), 1, HUB_READY);
	set_server(1, NULL, 0, HUB_FAILED);
	set_server(2, toolset("solo", NULL), 1, HUB_READY);
	fake.delay_s[2] = 1.0;

	r = cg_root_new(cfg_names, NSERVERS, CG_LANG_ALL, cg_templates_embedded());
	v = fusefs_inval_new(60);
	o.root = r;
	o.src = &src;
	o.wait_s = waits;
	o.cache_max = 1 << 24;
	o.on_swap = fusefs_inval_push;
	o.swap_ctx = v;
	o.on_listed = fusefs_inval_listed;
	o.listed_ctx = v;
	t = fusefs_tree_new(&o);
	if (!r || !v || !t || fusefs_inval_start(v, t, &nops)) {
		printf("setup failed\n");
		return 1;
	}

	test_top(t, r);
	test_server(t, r);
	test_plus_and_store(t, v);
	test_failure(t);
	test_slow(t, v);
	test_change(t, v);
	test_lost(t);

	/* Loaders first (they queue swaps), then the queue (its jobs hold
	 * snapshots charged to the tree's budget), then the tree. */
	fusefs_tree_stop(t);
	fusefs_inval_free(v);
	fusefs_tree_free(t);
	cg_root_free(r);
	for (int i = 0; i < NSERVERS; i++)
		json_decref(fake.tools[i]);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
