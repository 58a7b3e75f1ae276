/* One execution: workspace, tree, a bridge of its own, the jail, the
 * wall-clock timeout, output capture, the result object and the task record. */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <stdatomic.h>
#include <unistd.h>

#include "../common/buf.h"
#include "../common/clock.h"
#include "../common/embed.h"
#include "../policy/policy.h"
#include "../search/search.h"
#include "../servers/config.h"
#include "../servers/hub.h"
#include "../workspaces/idle.h"
#include "../workspaces/session.h"
#include "../workspaces/workspace.h"
#include "bridge.h"
#include "jail.h"
#include "run_pool.h"
#include "run_tree.h"

#define RUN_OUTPUT_MAX (1u << 20)	/* per stream, with --json */
#define RUN_RECORD_CODE_MAX (64u << 10) /* code kept in the task record */
#define RUN_RECORD_OUTPUT_MAX (8u << 10)
#define RUN_RECORD_STDERR_MAX (4u << 10)
#define RUN_MAX_FILES 8 /* the program and the embedded runtime files */
/* The TypeScript runtime's build (sucrase's bundle and its code cache). */
#define RUN_RUNTIME_DIST MCPFS_SRCDIR "/executor/runtime/dist"
#define RUN_RUNTIME_DIST_INSTALLED MCPFS_LIBDIR "/runtime/dist"
#define RUN_BRIDGE_SOCKET "bridge.sock" /* in JAIL_BRIDGE_DIR */

struct capture {
	int fd; /* read end, -1 at EOF */
	struct buf b;
	bool truncated;
};

struct run {
	const struct run_opts *o; /* borrowed until run_free */
	int cancel_fd;		  /* eventfd: run_cancel writes, supervise reads */
	atomic_bool cancelled;
	bool started, waited;
	struct ws ws;
	uid_t host_uid; /* the jail's user outside (jail_host_ids): not root */
	gid_t host_gid;
	char id[64];
	char session[ID_MAX + 1];
	char tree[4096], tree_servers[4200];
	bool tree_live;		  /* tree is the live mount (run_tree_dir) */
	char skills_shared[4096]; /* the operator's skills, read-only for every customer */
	char lock_path[4200];
	int lock_fd;	 /* lock_path, locked while the run lives; else -1 */
	int ws_hold;	 /* the workspace held (workspaces/idle.h) when we opened it; else -1 */
	int slot_fd;	 /* the customer's maxRuns slot (policy_run_slot), else -1 */
	bool pool_noted; /* run_pool_take noted it: run_pool_done at the end */
	struct search_source policed; /* the bridge's search under the customer's policy */
	char token[64], env_token[128];
	char rt_paths[RUN_MAX_FILES][128]; /* jail paths of the runtime files */
	struct bridge *bridge;
	struct jail *jail;
	struct capture out, errs;
	bool timed_out;
	bool interrupted; /* run_cancel stopped it */
	struct jail_exit ex;
	struct jail_limits in_force; /* jail_limits_in_force, for the result */
	double t0, duration_ms;
	char started_at[96], ended_at[96];
	json_t *calls;	 /* new: the first calls, for the session log */
	json_t *by_tool; /* new: every call, summed per tool */
	size_t ncalls;
};

static void iso_now(char *out, size_t n)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

/* The length of the valid UTF-8 sequence at @p (@left bytes there), or 0.
 * Valid as RFC 3629 and jansson have it: no overlong forms, no surrogates,
 * nothing past U+10FFFF. NUL counts as invalid. */
static size_t utf8_seq_len(const unsigned char *p, size_t left)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, k;

	if (p[0] < 0x80)
		return p[0] ? 1 : 0;
	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (left < n || p[1] < lo || p[1] > hi)
		return 0;
	for (k = 2; k < n; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* @s as a JSON string, each byte of invalid UTF-8 replaced by U+FFFD, so
 * that a program's binary output costs only those bytes. New, or NULL. */
static json_t *utf8_string(const char *s, size_t len)
{
	static const char repl[] = "\xef\xbf\xbd";
	const unsigned char *u = (const unsigned char *)s;
	struct buf b;
	size_t i = 0, n;
	json_t *j;

	buf_init(&b, 4 * len + 16);
	while (i < len) {
		n = utf8_seq_len(u + i, len - i);
		if (n) {
			buf_append(&b, s + i, n);
			i += n;
		} else {
			buf_append(&b, repl, 3);
			i++;
		}
	}
	j = json_stringn(b.data ? b.data : "", b.len);
	buf_free(&b);
	return j;
}

/* Read what is there; past the cap, keep draining so the writer never blocks. */
static void capture_read(struct capture *c)
{
	char chunk[65536];
	ssize_t r = read(c->fd, chunk, sizeof(chunk));
	size_t room;

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (r <= 0) {
		close(c->fd);
		c->fd = -1;
		return;
	}
	room = c->b.max - c->b.len;
	if ((size_t)r > room)
		c->truncated = true;
	buf_append(&c->b, chunk, (size_t)r > room ? room : (size_t)r);
}

/* Wait for the program to end (its jail's teardown need not: jail_ended),
 * reading captured output, killing the jail at the deadline or when
 * run_cancel is called. */
static void supervise(struct run *r, double timeout_ms)
{
	struct pollfd p[4];
	struct capture *caps[3] = {NULL, &r->out, &r->errs};
	bool alive = true;
	uint64_t n64;
	double left;
	int n, i;

	while (alive || r->out.fd >= 0 || r->errs.fd >= 0) {
		p[0].fd = alive ? jail_status_fd(r->jail) : -1;
		p[0].events = POLLIN;
		for (i = 1; i < 3; i++) {
			p[i].fd = caps[i]->fd;
			p[i].events = POLLIN;
		}
		p[3].fd = alive && !r->interrupted ? r->cancel_fd : -1;
		p[3].events = POLLIN;
		left = r->t0 + timeout_ms - clock_now_ms();
		if (alive && left <= 0 && !r->timed_out) {
			r->timed_out = true;
			jail_kill(r->jail);
		}
		n = poll(p, 4, alive && !r->timed_out ? (int)ceil(left > 0 ? left : 0) : 1000);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (p[0].revents)
			alive = false;
		if (p[3].revents && read(r->cancel_fd, &n64, sizeof(n64)) == sizeof(n64)) {
			r->interrupted = true;
			jail_kill(r->jail);
		}
		for (i = 1; i < 3; i++)
			if (p[i].revents)
				capture_read(caps[i]);
	}
}

/* The run's lock (run_sweep.c), under the sweep lock so that a sweep never
 * finds the run unlocked. */
static int run_lock_make(struct run *r, struct err *err)
{
	char base[3900];
	int sweep, rc = -1;

	snprintf(base, sizeof(base), "%s/run", r->o->root);
	if (mkdir(base, 0755) < 0 && errno != EEXIST)
		return err_set(err, EXIT_FAILED, "mkdir %s: %s", base, strerror(errno));
	sweep = run_sweep_lock(r->o->root, LOCK_SH);
	if (sweep < 0)
		return err_set(err, EXIT_FAILED, "%s/" RUN_SWEEP_LOCK ": %s", r->o->root,
			       strerror(-sweep));
	snprintf(r->lock_path, sizeof(r->lock_path), "%s/exec-%s" RUN_LOCK_SUFFIX, base, r->id);
	r->lock_fd = open(r->lock_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (r->lock_fd < 0 || flock(r->lock_fd, LOCK_EX) < 0)
		err_set(err, EXIT_FAILED, "%s: %s", r->lock_path, strerror(errno));
	else
		rc = 0;
	close(sweep);
	return rc;
}

/* The run's tools/search: what the customer's policy hides is left out of
 * the results, as it is out of the tree. */
static json_t *policed_search(void *ctx, const char *query, const struct search_opts *o,
			      struct err *err)
{
	struct run *r = ctx;
	json_t *res = r->o->search->query(r->o->search->ctx, query, o, err);

	policy_filter_results(policy_rules(r->o->policy, r->o->customer), r->o->hub, res);
	return res;
}

/* The run's bridge, on the socket its jail made (jail_spec.listen_path);
 * its calls end by the run's deadline, so a call never outlives the jail. */
static int bridge_start(struct run *r, double timeout_s, struct err *err)
{
	struct bridge_opts bo = {0};

	bo.hub = r->o->hub;
	bo.search = r->o->search;
	if (r->o->search && policy_rules_key(policy_rules(r->o->policy, r->o->customer))[0]) {
		r->policed = (struct search_source){policed_search, r};
		bo.search = &r->policed;
	}
	bo.asker = r->o->asker;
	bo.token = r->token;
	bo.customer = r->ws.customer;
	bo.workspace = r->ws.workspace;
	bo.ws = &r->ws;
	bo.session = r->session;
	bo.deadline_s = r->t0 / 1e3 + timeout_s;
	bo.on_call = r->o->on_tool_call;
	bo.on_call_ctx = r->o->on_tool_call_ctx;
	r->bridge = bridge_adopt(jail_take_listen_fd(r->jail), &bo, err);
	return r->bridge ? 0 : -1;
}

static const char *run_code_path(enum run_lang lang)
{
	return lang == RUN_LANG_TYPESCRIPT ? JAIL_CODE_DIR "/main.ts" : JAIL_CODE_DIR "/main.py";
}

static const char *runtime_dist(void)
{
	return access(RUN_RUNTIME_DIST "/sucrase.js", F_OK) == 0 ? RUN_RUNTIME_DIST
								 : RUN_RUNTIME_DIST_INSTALLED;
}

/* Start the jail with the run's binds, files and environment; @park: the
 * program is handed over later (jail_handoff). */
static int jail_up(struct run *r, int out_fd, int err_fd, bool park, struct err *err)
{
	const struct run_opts *o = r->o;
	const bool ts = o->lang == RUN_LANG_TYPESCRIPT;
	const char *py_argv[] = {"/usr/bin/python3", "-s", JAIL_CODE_DIR "/main.py", NULL};
	/* ts.cjs links each module itself (runtime/README.md); hide the
	 * warning vm modules print, which every run would otherwise show. */
	const char *ts_argv[] = {"/usr/bin/node",
				 "--experimental-vm-modules",
				 "--disable-warning=ExperimentalWarning",
				 JAIL_RUNTIME_DIR "/ts.cjs",
				 JAIL_CODE_DIR "/main.ts",
				 NULL};
	const char *envp[] = {"PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8",
			      BRIDGE_ENV_SOCKET "=" JAIL_BRIDGE_DIR "/" RUN_BRIDGE_SOCKET,
			      r->env_token,
			      /* "/" makes /skills importable as the package skills */
			      "PYTHONPATH=" JAIL_TREE ":/", NULL};
	/* Neutral: file systems of their own, so that the jail's mount table
	 * names no host path (the data root, the customer, the config's tree).
	 * The read-write ones are the roots of their own already where the
	 * host can make them so: the workspace's image, or the overlay of a
	 * workspace or skills folder (workspaces/overlay.h). Rootless they are
	 * plain folders, bound as they are, and show their paths: an overlay
	 * per run would not show what another run or the host saves while the
	 * run looks for it (overlayfs keeps a lookup that found nothing), and
	 * two runs of a customer would stack two overlays on one folder. The
	 * live mount is a file system of its own too (its mount table line
	 * reads "/" or "/servers", fuse.mcpfs): bound as it is, it costs an
	 * open nothing more, where an overlay's second open of each file made
	 * a walk of /mcp 1.7x a walk of tmpfs (BENCHMARKS.md). */
	struct jail_bind binds[] = {
	    {r->ws.workspace, JAIL_WORKSPACE, true, false},
	    {r->ws.skills, JAIL_SKILLS, true, false},
	    {r->skills_shared, JAIL_SKILLS "/shared", false, true},
	    {r->tree, JAIL_TREE, false, !r->tree_live},
	    {r->tree_servers, JAIL_CODE_DIR "/servers", false, !r->tree_live},
	    {runtime_dist(), JAIL_RUNTIME_DIR "/dist", false, true},
	};
	struct jail_file files[RUN_MAX_FILES];
	struct jail_spec s = {0};
	size_t nfiles = 0, i;
	double timeout = o->timeout_s > 0 ? o->timeout_s : RUN_DEFAULT_TIMEOUT_S;
	unsigned long mem = o->memory_mb ? o->memory_mb : RUN_DEFAULT_MEMORY_MB;
	int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	/* Else the bind of the missing folder fails with an O_PATH error. */
	if (ts && access(runtime_dist(), F_OK) < 0) {
		if (in_fd >= 0)
			close(in_fd);
		return err_set(err, EXIT_FAILED,
			       "TypeScript needs the jail's runtime (sucrase, built), in neither "
			       "%s nor %s: run 'make deps' (it runs npm ci in executor/runtime), "
			       "then 'make' and 'make install', in mcpfs's source folder",
			       RUN_RUNTIME_DIST, RUN_RUNTIME_DIST_INSTALLED);
	}
	if (in_fd < 0)
		return err_set(err, EXIT_FAILED, "open /dev/null: %s", strerror(errno));
	if (!park)
		files[nfiles++] =
		    (struct jail_file){run_code_path(o->lang), o->code, o->code_len, 0444};
	for (i = 0; ts && executor_embedded_files[i].name && nfiles < RUN_MAX_FILES; i++) {
		snprintf(r->rt_paths[nfiles], sizeof(r->rt_paths[nfiles]), JAIL_RUNTIME_DIR "/%s",
			 executor_embedded_files[i].name);
		files[nfiles] =
		    (struct jail_file){r->rt_paths[nfiles], executor_embedded_files[i].data,
				       executor_embedded_files[i].len, 0444};
		nfiles++;
	}
	s.argv = ts ? ts_argv : py_argv;
	s.envp = envp;
	s.binds = binds;
	s.nbinds = sizeof(binds) / sizeof(binds[0]) - (ts ? 0 : 1);
	s.files = files;
	s.nfiles = nfiles;
	s.cwd = JAIL_WORKSPACE;
	s.host_uid = r->host_uid;
	s.host_gid = r->host_gid;
	s.limits = (struct jail_limits){
	    .cpu_s = ceil(timeout),
	    .fsize_mb = 256,
	    .nofile = 1024,
	    .nproc = 4096,
	    .data_mb = mem < 1024 ? 2048 : 2 * mem,
	    .memory_mb = mem,
	    .pids = 256,
	    .tmp_mb = 64,
	};
	s.stdin_fd = o->capture ? in_fd : o->stdin_fd >= 0 ? o->stdin_fd : in_fd;
	s.stdout_fd = out_fd;
	s.stderr_fd = err_fd;
	s.run_id = r->id;
	s.listen_path = JAIL_BRIDGE_DIR "/" RUN_BRIDGE_SOCKET;
	s.cgroup_parent = o->cgroup_parent;
	s.park_file = park ? run_code_path(o->lang) : NULL;
	r->t0 = clock_now_ms();
	iso_now(r->started_at, sizeof(r->started_at));
	r->jail = jail_start(&s, err);
	if (r->jail)
		r->in_force = *jail_limits_in_force(r->jail);
	close(in_fd);
	return r->jail ? 0 : -1;
}

/* What bounded the run: seconds, MiB and counts by the names `limits` uses
 * for what was hit; memory and pids only where a cgroup held them. */
static json_t *in_force_new(struct run *r)
{
	const struct jail_limits *l = &r->in_force;
	json_t *o = json_pack("{s:f,s:f,s:I,s:I,s:I,s:I,s:I}", "timeout",
			      r->o->timeout_s > 0 ? r->o->timeout_s : RUN_DEFAULT_TIMEOUT_S, "cpu",
			      l->cpu_s, "file_size", (json_int_t)l->fsize_mb, "open_files",
			      (json_int_t)l->nofile, "processes", (json_int_t)l->nproc, "data",
			      (json_int_t)l->data_mb, "tmp", (json_int_t)l->tmp_mb);

	if (o && l->memory_mb)
		json_object_set_new(o, "memory", json_integer((json_int_t)l->memory_mb));
	if (o && l->pids)
		json_object_set_new(o, "pids", json_integer((json_int_t)l->pids));
	if (o && r->o->capture)
		json_object_set_new(o, "output", json_integer(RUN_OUTPUT_MAX >> 20));
	return o;
}

static json_t *result_new(struct run *r)
{
	json_t *limits = json_array(), *res;

	if (r->timed_out)
		json_array_append_new(limits, json_string("timeout"));
	if (r->ex.memory_limit)
		json_array_append_new(limits, json_string("memory"));
	if (r->ex.pids_limit)
		json_array_append_new(limits, json_string("pids"));
	if (r->ex.signal == SIGXCPU)
		json_array_append_new(limits, json_string("cpu"));
	if (r->ex.signal == SIGXFSZ)
		json_array_append_new(limits, json_string("file_size"));
	if (r->out.truncated || r->errs.truncated)
		json_array_append_new(limits, json_string("output"));
	if (r->interrupted)
		json_array_append_new(limits, json_string("interrupted"));
	res = json_pack("{s:i,s:i,s:b,s:o,s:o,s:{s:b,s:b},s:f,s:I,s:o,s:o,s:s,s:s,s:s}",
			"exit_code", r->ex.signal ? 128 + r->ex.signal : r->ex.exit_code, "signal",
			r->ex.signal, "timed_out", r->timed_out, "stdout",
			utf8_string(r->out.b.data ? r->out.b.data : "", r->out.b.len), "stderr",
			utf8_string(r->errs.b.data ? r->errs.b.data : "", r->errs.b.len),
			"truncated", "stdout", r->out.truncated, "stderr", r->errs.truncated,
			"duration_ms", r->duration_ms, "tool_calls", (json_int_t)r->ncalls,
			"limits", limits, "limits_in_force", in_force_new(r), "customer",
			r->ws.customer, "session_id", r->session, "run_id", r->id);
	return res;
}

/* The output filter on the result or the task record, failing closed: what
 * it could not rewrite is withheld, with the reason in its place. */
static void filter_output(struct run *r, json_t *obj)
{
	static const char *const fields[] = {"stdout",	    "stderr",	 "output", "code",
					     "description", "arguments", "error"};
	struct err e = {0};
	char line[ERR_TEXT_MAX + 32];
	size_t i;

	if (r->o->output_filter(r->o->output_ctx, r->ws.customer, r->session, obj, &e) == 0)
		return;
	snprintf(line, sizeof(line), "(withheld: %s)\n", e.text);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (json_object_get(obj, fields[i]))
			json_object_set_new(obj, fields[i], json_string(line));
}

/* Why the run ended, in a word or two: the limit that ended it, else the
 * signal, else its exit. */
static json_t *end_reason(json_t *res)
{
	json_t *limits = json_object_get(res, "limits"), *l;
	size_t i;

	json_array_foreach(limits, i, l)
	{
		if (strcmp(json_string_value(l), "output")) /* output is cut, the run goes on */
			return json_sprintf("%s limit", json_string_value(l));
	}
	if (json_integer_value(json_object_get(res, "signal")))
		return json_sprintf("signal %d",
				    (int)json_integer_value(json_object_get(res, "signal")));
	return json_sprintf("exit %d", (int)json_integer_value(json_object_get(res, "exit_code")));
}

void run_record(struct run *r, json_t *res)
{
	const struct run_opts *o = r->o;
	size_t code_len = o->code_len < RUN_RECORD_CODE_MAX ? o->code_len : RUN_RECORD_CODE_MAX;
	size_t out_len =
	    r->out.b.len < RUN_RECORD_OUTPUT_MAX ? r->out.b.len : RUN_RECORD_OUTPUT_MAX;
	size_t err_len =
	    r->errs.b.len < RUN_RECORD_STDERR_MAX ? r->errs.b.len : RUN_RECORD_STDERR_MAX;
	struct err e = {0};
	json_t *task, *call;
	size_t i;

	task = json_pack(
	    "{s:s,s:s,s:o,s:{s:O,s:O,s:O},s:o,s:O,s:O,s:O,s:s,s:s,s:s}", "task_id", r->id,
	    "description", o->description ? o->description : "", "code",
	    utf8_string(o->code, code_len), "result", "exit_code",
	    json_object_get(res, "exit_code"), "timed_out", json_object_get(res, "timed_out"),
	    "limits", json_object_get(res, "limits"), "output",
	    utf8_string(r->out.b.data ? r->out.b.data : "", out_len), "tool_calls",
	    r->calls ? r->calls : json_null(), "tool_calls_by_tool",
	    r->by_tool ? r->by_tool : json_null(), "exit_code", json_object_get(res, "exit_code"),
	    "started_at", r->started_at, "ended_at", r->ended_at, "language",
	    o->lang == RUN_LANG_TYPESCRIPT ? "typescript" : "python");
	if (task) {
		json_object_set_new(task, "stderr",
				    utf8_string(r->errs.b.data ? r->errs.b.data : "", err_len));
		json_object_set_new(task, "end_reason", end_reason(res));
		json_object_set_new(task, "duration_ms", json_real(r->duration_ms));
	}
	if (task && o->output_filter) {
		filter_output(r, task);
		json_array_foreach(json_object_get(task, "tool_calls"), i, call)
		    filter_output(r, call);
	}
	if (!task || session_append_task(&r->ws, r->session, task, &e) < 0)
		fprintf(stderr, "mcpfs: exec: session log: %s\n", task ? e.text : "out of memory");
	json_decref(task);
}

/* The tree the run imports from (run_tree.h) into r->tree. */
static int tree_ready(struct run *r, struct err *err)
{
	const struct run_opts *o = r->o;
	int rc = run_tree_dir(o->root, o->cfg, o->hub, policy_rules(o->policy, o->customer),
			      r->tree, sizeof(r->tree), err);

	if (rc < 0)
		return -1;
	r->tree_live = rc == 1;
	snprintf(r->tree_servers, sizeof(r->tree_servers), "%s/servers", r->tree);
	return 0;
}

static int workspace_ready(struct run *r, struct err *err)
{
	const char *customer = r->o->customer ? r->o->customer : "default";
	struct stat ws, skills;

	if (r->o->ws)
		r->ws = *r->o->ws;
	else if (ws_open_held(r->o->root, customer, &r->ws, &r->ws_hold, err) < 0)
		return -1;
	if (ws_skills_shared(r->o->root, r->skills_shared, sizeof(r->skills_shared), err) < 0)
		return -1;
	if (stat(r->ws.workspace, &ws) < 0 || stat(r->ws.skills, &skills) < 0)
		return err_set(err, EXIT_FAILED, "stat %s: %s", r->ws.dir, strerror(errno));
	/* Both: a customer's server may have made the workspace its own alone. */
	if ((ws.st_uid != r->host_uid || skills.st_uid != r->host_uid) &&
	    ws_chown(&r->ws, r->host_uid, r->host_gid, err) < 0)
		return -1;
	return 0;
}

/* A run into a session that has ended would run, write its files, and only
 * then fail to be recorded: it is refused before its code starts. */
static int session_open(struct run *r, struct err *err)
{
	struct err e = {0};
	json_t *log;
	bool ended;

	if (!r->o->session)
		return 0;
	log = session_load(&r->ws, r->session, &e);
	if (!log)
		return 0; /* a new session, or one the append will report on */
	ended = json_is_string(json_object_get(log, "ended_at"));
	json_decref(log);
	if (ended)
		return err_set(err, EXIT_USAGE,
			       "session %s of customer %s has ended: nothing was run (start a new "
			       "session)",
			       r->session, r->ws.customer);
	return 0;
}

struct run *run_new(const struct run_opts *o, struct err *err)
{
	struct run *r = calloc(1, sizeof(*r));

	if (!r) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	r->o = o;
	jail_host_ids(JAIL_CUSTOMER_UID, &r->host_uid, &r->host_gid);
	r->out.fd = r->errs.fd = r->lock_fd = r->ws_hold = r->slot_fd = -1;
	buf_init(&r->out.b, RUN_OUTPUT_MAX);
	buf_init(&r->errs.b, RUN_OUTPUT_MAX);
	r->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->cancel_fd < 0) {
		err_set(err, EXIT_FAILED, "eventfd: %s", strerror(errno));
		run_free(r);
		return NULL;
	}
	return r;
}

void run_cancel(struct run *r)
{
	uint64_t one = 1;

	atomic_store(&r->cancelled, true);
	if (write(r->cancel_fd, &one, sizeof(one)) < 0) {
		/* the counter is already set: a cancel is pending */
	}
}

/* The run's pipes and jail (@park: parked, its program to come). */
static int jail_make(struct run *r, bool park, struct err *err)
{
	const struct run_opts *o = r->o;
	int po[2] = {-1, -1}, pe[2] = {-1, -1}, rc = -1;

	if (o->capture && (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0)) {
		err_set(err, EXIT_FAILED, "pipe2: %s", strerror(errno));
		goto out;
	}
	/* A run cancelled while it was set up never starts its code. */
	if (atomic_load(&r->cancelled)) {
		err_set(err, EXIT_FAILED, "run cancelled before its code started");
		goto out;
	}
	if (jail_up(r, o->capture ? po[1] : STDOUT_FILENO, o->capture ? pe[1] : STDERR_FILENO, park,
		    err) < 0)
		goto out;
	if (o->capture) {
		r->out.fd = po[0];
		r->errs.fd = pe[0];
		po[0] = pe[0] = -1;
	}
	rc = 0;
out:
	if (po[0] >= 0)
		close(po[0]);
	if (po[1] >= 0)
		close(po[1]);
	if (pe[0] >= 0)
		close(pe[0]);
	if (pe[1] >= 0)
		close(pe[1]);
	return rc;
}

int run_park(struct run *r, struct err *err)
{
	if (r->started)
		return err_set(err, EXIT_USAGE, "run: started twice");
	r->started = true;
	if (run_id_new(r->id, sizeof(r->id)) < 0)
		return err_set(err, EXIT_FAILED, "getrandom: %s", strerror(errno));
	if (workspace_ready(r, err) < 0 || tree_ready(r, err) < 0 || run_lock_make(r, err) < 0)
		return -1;
	/* the token's entry comes with the program (jail_handoff) */
	snprintf(r->env_token, sizeof(r->env_token), "%s=", BRIDGE_ENV_TOKEN);
	return jail_make(r, true, err);
}

const char *run_parked_tree(const struct run *r)
{
	return r->tree;
}

void run_unpark(struct run *r)
{
	if (r && r->ws_hold >= 0) {
		close(r->ws_hold); /* never used: the idle sweep keeps its last use's stamp */
		r->ws_hold = -1;
	}
	run_free(r);
}

/* Take over parked run @p's workspace hold, folders, lock, pipes and jail,
 * and free the rest of it. */
static void run_adopt(struct run *r, struct run *p)
{
	memcpy(r->id, p->id, sizeof(r->id));
	r->ws = p->ws;
	memcpy(r->skills_shared, p->skills_shared, sizeof(r->skills_shared));
	memcpy(r->lock_path, p->lock_path, sizeof(r->lock_path));
	r->ws_hold = p->ws_hold;
	r->lock_fd = p->lock_fd;
	r->jail = p->jail;
	r->out.fd = p->out.fd;
	r->errs.fd = p->errs.fd;
	p->ws_hold = p->lock_fd = p->out.fd = p->errs.fd = -1;
	p->jail = NULL;
	run_free(p);
}

/* Hand the adopted jail its program; when it cannot take it (it died
 * parked), make a jail of the run's own instead. */
static int jail_hand(struct run *r, double timeout, struct err *err)
{
	const struct run_opts *o = r->o;
	struct jail_handoff h = {o->code, o->code_len, r->env_token, ceil(timeout)};
	struct err e = {0};

	if (atomic_load(&r->cancelled))
		return err_set(err, EXIT_FAILED, "run cancelled before its code started");
	r->t0 = clock_now_ms();
	iso_now(r->started_at, sizeof(r->started_at));
	if (jail_handoff(r->jail, &h, &e) == 0) {
		r->in_force = *jail_limits_in_force(r->jail);
		return 0;
	}
	jail_free(r->jail);
	r->jail = NULL;
	close(r->out.fd);
	close(r->errs.fd);
	r->out.fd = r->errs.fd = -1;
	return jail_make(r, false, err);
}

int run_start(struct run *r, struct err *err)
{
	const struct run_opts *o = r->o;
	double timeout = o->timeout_s > 0 ? o->timeout_s : RUN_DEFAULT_TIMEOUT_S;
	struct run *parked = NULL;

	if (r->started)
		return err_set(err, EXIT_USAGE, "run: started twice");
	r->started = true;
	if (tree_ready(r, err) < 0)
		return -1;
	if (o->pool && o->capture) {
		parked = run_pool_take(o->pool, o, r->tree);
		r->pool_noted = true;
	}
	if (parked)
		run_adopt(r, parked);
	else if (run_id_new(r->id, sizeof(r->id)) < 0)
		return err_set(err, EXIT_FAILED, "getrandom: %s", strerror(errno));
	snprintf(r->session, sizeof(r->session), "%s", o->session ? o->session : r->id);
	if ((!r->jail && workspace_ready(r, err) < 0) || session_open(r, err) < 0 ||
	    policy_run_slot(policy_rules(o->policy, o->customer), r->ws.dir, &r->slot_fd, err) <
		0 ||
	    (!r->jail && run_lock_make(r, err) < 0))
		return -1;
	if (bridge_token_new(r->token, sizeof(r->token)) < 0)
		return err_set(err, EXIT_FAILED, "getrandom: %s", strerror(errno));
	snprintf(r->env_token, sizeof(r->env_token), "%s=%s", BRIDGE_ENV_TOKEN, r->token);
	if (r->jail ? jail_hand(r, timeout, err) < 0 : jail_make(r, false, err) < 0)
		return -1;
	/* The code may connect already: the socket queues it until then. A
	 * bridge that cannot start ends the run (run_free reaps the jail). */
	if (bridge_start(r, timeout, err) < 0) {
		jail_kill(r->jail);
		return -1;
	}
	return 0;
}

json_t *run_wait(struct run *r, int *status, struct err *err)
{
	const struct run_opts *o = r->o;
	double timeout = o->timeout_s > 0 ? o->timeout_s : RUN_DEFAULT_TIMEOUT_S;
	json_t *res;

	if (!r->jail || r->waited) {
		err_set(err, EXIT_USAGE, "run: nothing to wait for");
		return NULL;
	}
	r->waited = true;
	supervise(r, timeout * 1e3);
	jail_ended(r->jail, &r->ex);
	r->duration_ms = clock_now_ms() - r->t0;
	iso_now(r->ended_at, sizeof(r->ended_at));
	/* after the program: every call it made is answered. What it left
	 * running dies with its jail, in run_free, after the answer. */
	bridge_stop(r->bridge);
	r->ncalls = bridge_ncalls(r->bridge);
	r->calls = bridge_calls(r->bridge);
	r->by_tool = bridge_calls_by_tool(r->bridge);
	res = result_new(r);
	if (!res) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	*status = r->ex.signal ? 128 + r->ex.signal : r->ex.exit_code;
	if (o->output_filter)
		filter_output(r, res);
	if (o->record)
		run_record(r, res);
	return res;
}

void run_free(struct run *r)
{
	if (!r)
		return;
	jail_free(r->jail); /* what the program left, or a run never waited for: killed, reaped */
	bridge_free(r->bridge);
	ws_release(r->ws_hold); /* the jail is gone: the sweep may unmount */
	if (r->lock_fd >= 0) {
		unlink(r->lock_path);
		close(r->lock_fd);
	}
	if (r->slot_fd >= 0)
		close(r->slot_fd);
	if (r->out.fd >= 0)
		close(r->out.fd);
	if (r->errs.fd >= 0)
		close(r->errs.fd);
	if (r->cancel_fd >= 0)
		close(r->cancel_fd);
	buf_free(&r->out.b);
	buf_free(&r->errs.b);
	json_decref(r->calls);
	json_decref(r->by_tool);
	if (r->pool_noted)
		run_pool_done(r->o->pool, r->o); /* its customer's next jail may be made */
	free(r);
}

json_t *run_exec(const struct run_opts *o, int *status, struct err *err)
{
	struct run *r = run_new(o, err);
	json_t *res = NULL;

	if (r && run_start(r, err) == 0)
		res = run_wait(r, status, err);
	run_free(r);
	return res;
}
