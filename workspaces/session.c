#define _GNU_SOURCE
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/jsonx.h"
#include "../common/fsx.h"

#define LOG_MAX (64u << 20)	  /* one session log; a new session past it */
#define TASK_MAX (1u << 20)	  /* one task record as stored */
#define FIELD_CAP (64u << 10)	  /* code/output cut to this when a record is too big */
#define TASKS_MAX 10000u	  /* tasks in one session */
#define CHECKPOINT_MAX (1u << 20) /* the checkpoint object as stored */
#define STATE_FILES_MAX 256u	  /* state_files entries */
#define STATE_WALK_MAX 20000u	  /* workspace entries looked at to find them */
#define SESSIONS_MAX 10000u	  /* sessions listed */

static void now_iso(char *out, size_t n)
{
	struct timespec ts;
	struct tm tm;

	size_t k;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	k = strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + k, n - k, ".%03uZ", (unsigned)(ts.tv_nsec / 1000000) % 1000u);
}

static time_t parse_iso(const char *s)
{
	struct tm tm = {0};

	if (!s || sscanf(s, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
			 &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return timegm(&tm);
}

static int sessions_dir(const struct ws *ws, struct err *err)
{
	int cfd, sfd;

	cfd = fsx_open_dir(ws->dir);
	if (cfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", ws->dir, strerror(-cfd));
	sfd = fsx_open_at(cfd, "sessions", O_RDONLY | O_DIRECTORY, 0);
	close(cfd);
	if (sfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", ws->sessions, strerror(-sfd));
	return sfd;
}

/* The lock file beside the log: held across read, change and rename, so two
 * writers never both start from the same old log. */
static int lock_session(int sfd, const struct ws *ws, const char *id, struct err *err)
{
	char name[ID_MAX + 8];
	int fd;

	snprintf(name, sizeof(name), "%s.lock", id);
	fd = fsx_open_at(sfd, name, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return err_set(err, EXIT_FAILED, "open %s/%s: %s", ws->sessions, name,
			       strerror(-fd));
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			err_set(err, EXIT_FAILED, "flock %s/%s: %s", ws->sessions, name,
				strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* The log (new reference); NULL with *missing when there is none yet, NULL
 * with @err when it cannot be read. */
static json_t *read_log(int sfd, const struct ws *ws, const char *id, bool *missing,
			struct err *err)
{
	char name[ID_MAX + 8];
	json_error_t je;
	json_t *log;
	char *text;
	int rc;

	*missing = false;
	snprintf(name, sizeof(name), "%s.json", id);
	rc = fsx_read_at(sfd, name, LOG_MAX, &text, NULL);
	if (rc == -ENOENT) {
		*missing = true;
		return NULL;
	}
	if (rc < 0) {
		err_set(err, EXIT_FAILED, "read %s/%s: %s", ws->sessions, name, strerror(-rc));
		return NULL;
	}
	log = json_loads(text, 0, &je);
	free(text);
	if (!json_is_object(log) || !json_is_array(json_object_get(log, "tasks"))) {
		json_decref(log);
		err_set(err, EXIT_FAILED, "%s/%s: not a session log (line %d: %s)", ws->sessions,
			name, je.line, log ? "no tasks array" : je.text);
		return NULL;
	}
	return log;
}

static json_t *new_log(const struct ws *ws, const char *id)
{
	char now[32];

	now_iso(now, sizeof(now));
	return json_pack("{s:s, s:s, s:s, s:n, s:[], s:[], s:n}", "session_id", id, "customer_uid",
			 ws->customer, "started_at", now, "ended_at", "tasks", "state_files",
			 "checkpoint");
}

static int write_log(int sfd, const struct ws *ws, const char *id, json_t *log, struct err *err)
{
	char name[ID_MAX + 8];
	char *text;
	size_t n;
	int rc;

	text = json_dumps(log, JSON_INDENT(2));
	if (!text)
		return err_set(err, EXIT_FAILED, "session %s: out of memory", id);
	n = strlen(text);
	if (n > LOG_MAX) {
		free(text);
		return err_set(err, EXIT_FAILED,
			       "session %s: the log would pass %u MiB; start a new session", id,
			       LOG_MAX >> 20);
	}
	snprintf(name, sizeof(name), "%s.json", id);
	rc = fsx_write_atomic_at(sfd, name, text, n, 0600);
	free(text);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "write %s/%s: %s", ws->sessions, name,
			       strerror(-rc));
	return 0;
}

/* Lock, read (or start) the log, let @edit change it, write it back. */
static int update(const struct ws *ws, const char *id, bool create,
		  int (*edit)(const struct ws *ws, json_t *log, void *arg, struct err *err),
		  void *arg, struct err *err)
{
	json_t *log = NULL;
	bool missing;
	int sfd, lfd, rc = -1;

	if (!id_valid(id, "session", err))
		return -1;
	sfd = sessions_dir(ws, err);
	if (sfd < 0)
		return -1;
	lfd = lock_session(sfd, ws, id, err);
	if (lfd < 0)
		goto out_close;
	log = read_log(sfd, ws, id, &missing, err);
	if (!log && missing && !create)
		err_set(err, EXIT_USAGE, "customer %s has no session %s", ws->customer, id);
	else if (!log && missing && !(log = new_log(ws, id)))
		err_set(err, EXIT_FAILED, "session %s: out of memory", id);
	if (log && edit(ws, log, arg, err) == 0)
		rc = write_log(sfd, ws, id, log, err);
	json_decref(log);
	close(lfd);
out_close:
	close(sfd);
	return rc;
}

struct state_scan {
	time_t since;
	json_t *files; /* borrowed */
};

static int state_entry(void *ctx, const struct fsx_entry *e)
{
	struct state_scan *s = ctx;

	if (!S_ISREG(e->st->st_mode) || e->st->st_mtime < s->since)
		return 0;
	if (json_array_size(s->files) >= STATE_FILES_MAX)
		return 1;
	json_array_append_new(s->files, json_string(e->rel));
	return 0;
}

/* state_files: what in the shared workspace this session's span created or
 * changed (mtime at or after started_at), found without following symlinks. */
static void scan_state_files(const struct ws *ws, json_t *log)
{
	struct state_scan s;
	int fd;

	s.since = parse_iso(json_string_value(json_object_get(log, "started_at")));
	s.files = json_array();
	fd = fsx_open_dir(ws->workspace);
	if (fd < 0 || !s.files) {
		if (fd >= 0)
			close(fd);
		json_decref(s.files);
		return;
	}
	fsx_walk_at(fd, STATE_WALK_MAX, state_entry, &s);
	close(fd);
	json_object_set_new(log, "state_files", s.files);
}

static size_t dumped_size(const json_t *j)
{
	return json_dumpb(j, NULL, 0, JSON_COMPACT);
}

static void cap_field(json_t *task, const char *key)
{
	const char *s = json_string_value(json_object_get(task, key));
	size_t n = json_string_length(json_object_get(task, key));

	if (!s || n <= FIELD_CAP)
		return;
	/* Cut on a UTF-8 boundary so the log stays valid JSON text. */
	n = FIELD_CAP;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	json_object_set_new(task, key, json_stringn(s, n));
	json_object_set_new(task, "truncated", json_true());
}

/* The first @k elements of @a: a new array, or NULL. */
static json_t *first_of(json_t *a, size_t k)
{
	json_t *out = json_array();
	size_t i;

	for (i = 0; out && i < k; i++)
		if (json_array_append(out, json_array_get(a, i)) < 0) {
			json_decref(out);
			return NULL;
		}
	return out;
}

void session_task_calls(json_t *task, json_int_t *calls, json_int_t *failed)
{
	json_t *by = json_object_get(task, "tool_calls_by_tool"), *x;
	size_t i;

	*calls = *failed = 0;
	if (json_is_array(by)) {
		json_array_foreach(by, i, x)
		{
			*calls += json_integer_value(json_object_get(x, "calls"));
			*failed += json_integer_value(json_object_get(x, "failed"));
		}
		return;
	}
	json_array_foreach(json_object_get(task, "tool_calls"), i, x)
	{
		*calls += 1;
		*failed += !json_is_true(json_object_get(x, "ok"));
	}
}

/* The calls @task made, listed or not. */
static json_int_t calls_made(json_t *task)
{
	json_int_t calls, failed;

	session_task_calls(task, &calls, &failed);
	return calls;
}

/* Say how many calls the list leaves out, when it does. */
static void count_dropped(json_t *task)
{
	json_int_t n =
	    calls_made(task) - (json_int_t)json_array_size(json_object_get(task, "tool_calls"));

	if (n <= 0) {
		json_object_del(task, "tool_calls_dropped");
		return;
	}
	json_object_set_new(task, "tool_calls_dropped", json_integer(n));
	json_object_set_new(task, "truncated", json_true());
}

/* A run calling tools in a loop makes more calls than a task record lists:
 * keep the first ones, as many as fit (found by halving). */
static void cap_calls(json_t *task)
{
	json_t *calls = json_incref(json_object_get(task, "tool_calls")), *kept;
	size_t lo = 0, hi = json_array_size(calls), mid;

	/* The dropped count at its largest first: the real one only shrinks the record. */
	if (json_object_set_new(task, "tool_calls_dropped", json_integer(calls_made(task))) < 0 ||
	    json_object_set_new(task, "truncated", json_true()) < 0)
		goto out;
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		kept = first_of(calls, mid);
		if (kept && json_object_set_new(task, "tool_calls", kept) == 0 &&
		    dumped_size(task) <= TASK_MAX)
			lo = mid;
		else
			hi = mid - 1;
	}
	json_object_set_new(task, "tool_calls", first_of(calls, lo));
out:
	json_decref(calls);
}

static int append_edit(const struct ws *ws, json_t *log, void *arg, struct err *err)
{
	json_t *tasks = json_object_get(log, "tasks"), *task;
	const char *started;
	char id[32];

	if (!json_is_null(json_object_get(log, "ended_at")) && json_object_get(log, "ended_at"))
		return err_set(err, EXIT_USAGE, "session %s of customer %s has ended",
			       json_string_value(json_object_get(log, "session_id")), ws->customer);
	if (json_array_size(tasks) >= TASKS_MAX)
		return err_set(err, EXIT_FAILED, "session has %u tasks; start a new session",
			       TASKS_MAX);
	task = json_deep_copy(arg);
	if (!task)
		return err_set(err, EXIT_FAILED, "out of memory");
	if (dumped_size(task) > TASK_MAX) {
		cap_field(task, "output");
		cap_field(task, "code");
		cap_field(task, "result");
	}
	if (dumped_size(task) > TASK_MAX && json_is_array(json_object_get(task, "tool_calls")))
		cap_calls(task);
	count_dropped(task);
	if (dumped_size(task) > TASK_MAX) {
		json_decref(task);
		return err_set(err, EXIT_FAILED, "task record larger than %u KiB", TASK_MAX >> 10);
	}
	if (!json_is_string(json_object_get(task, "task_id"))) {
		snprintf(id, sizeof(id), "task-%zu", json_array_size(tasks) + 1);
		json_object_set_new(task, "task_id", json_string(id));
	}
	/* The log is written after its first task ran: the session began when
	 * that task did, and what it wrote counts in state_files. */
	started = json_string_value(json_object_get(task, "started_at"));
	if (!json_array_size(tasks) && started &&
	    strcmp(started, json_string_value(json_object_get(log, "started_at")) ?: "~") < 0)
		json_object_set_new(log, "started_at", json_string(started));
	json_array_append_new(tasks, task);
	scan_state_files(ws, log);
	return 0;
}

int session_append_task(const struct ws *ws, const char *session_id, json_t *task, struct err *err)
{
	if (!json_is_object(task))
		return err_set(err, EXIT_FAILED, "session %s: a task record must be an object",
			       session_id);
	return update(ws, session_id, true, append_edit, task, err);
}

static int checkpoint_edit(const struct ws *ws, json_t *log, void *arg, struct err *err)
{
	static const char *const keys[] = {"step", "last_task", "context"};
	json_t *in = arg, *cp;
	char now[32];
	size_t i;

	(void)ws;
	cp = json_object();
	if (!cp)
		return err_set(err, EXIT_FAILED, "out of memory");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		json_object_set(cp, keys[i],
				json_object_get(in, keys[i]) ? json_object_get(in, keys[i])
							     : json_null());
	now_iso(now, sizeof(now));
	json_object_set_new(cp, "timestamp", json_string(now));
	if (dumped_size(cp) > CHECKPOINT_MAX) {
		json_decref(cp);
		return err_set(err, EXIT_FAILED, "checkpoint larger than %u KiB",
			       CHECKPOINT_MAX >> 10);
	}
	json_object_set_new(log, "checkpoint", cp);
	return 0;
}

int session_checkpoint_set(const struct ws *ws, const char *session_id, json_t *checkpoint,
			   struct err *err)
{
	json_t *step = json_object_get(checkpoint, "step");

	if (!json_is_object(checkpoint))
		return err_set(err, EXIT_FAILED, "checkpoint must be an object");
	if (step && !json_is_integer(step) && !json_is_null(step))
		return err_set(err, EXIT_FAILED, "checkpoint step must be an integer");
	return update(ws, session_id, true, checkpoint_edit, checkpoint, err);
}

static int end_edit(const struct ws *ws, json_t *log, void *arg, struct err *err)
{
	char now[32];

	(void)ws;
	(void)arg;
	(void)err;
	if (json_is_string(json_object_get(log, "ended_at")))
		return 0;
	now_iso(now, sizeof(now));
	json_object_set_new(log, "ended_at", json_string(now));
	return 0;
}

int session_end(const struct ws *ws, const char *session_id, struct err *err)
{
	return update(ws, session_id, false, end_edit, NULL, err);
}

json_t *session_load(const struct ws *ws, const char *session_id, struct err *err)
{
	json_t *log;
	bool missing;
	int sfd;

	if (!id_valid(session_id, "session", err))
		return NULL;
	sfd = sessions_dir(ws, err);
	if (sfd < 0)
		return NULL;
	/* No lock: writers rename whole files, so any read sees one version. */
	log = read_log(sfd, ws, session_id, &missing, err);
	close(sfd);
	if (missing)
		err_set(err, EXIT_USAGE, "customer %s has no session %s", ws->customer, session_id);
	return log;
}

json_t *session_checkpoint_get(const struct ws *ws, const char *session_id, struct err *err)
{
	json_t *log, *cp;
	bool missing;
	int sfd;

	if (!id_valid(session_id, "session", err))
		return NULL;
	sfd = sessions_dir(ws, err);
	if (sfd < 0)
		return NULL;
	log = read_log(sfd, ws, session_id, &missing, err);
	close(sfd);
	if (missing)
		return json_null();
	if (!log)
		return NULL;
	cp = json_object_get(log, "checkpoint");
	cp = json_incref(cp ? cp : json_null());
	json_decref(log);
	return cp;
}

static int by_updated_desc(const void *a, const void *b)
{
	const char *x = json_string_value(json_object_get(*(json_t *const *)a, "updated_at"));
	const char *y = json_string_value(json_object_get(*(json_t *const *)b, "updated_at"));
	int c = strcmp(y ? y : "", x ? x : "");

	return c ? c
		 : strcmp(json_string_value(json_object_get(*(json_t *const *)a, "session_id")),
			  json_string_value(json_object_get(*(json_t *const *)b, "session_id")));
}

static json_t *summary(int sfd, const struct ws *ws, const char *id, struct err *err)
{
	char name[ID_MAX + 8], when[32];
	struct stat st;
	json_t *log, *s;
	struct tm tm;
	bool missing;

	log = read_log(sfd, ws, id, &missing, err);
	if (!log)
		return NULL;
	snprintf(name, sizeof(name), "%s.json", id);
	when[0] = '\0';
	if (fstatat(sfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		gmtime_r(&st.st_mtime, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	s = json_pack("{s:s, s:O?, s:O?, s:I, s:s}", "session_id", id, "started_at",
		      json_object_get(log, "started_at"), "ended_at",
		      json_object_get(log, "ended_at"), "tasks",
		      (json_int_t)json_array_size(json_object_get(log, "tasks")), "updated_at",
		      when);
	json_decref(log);
	return s;
}

json_t *session_list(const struct ws *ws, struct err *err)
{
	char id[ID_MAX + 1];
	struct dirent *d;
	json_t *arr, *s;
	struct err ignored;
	size_t n;
	DIR *dir;
	int sfd;

	sfd = sessions_dir(ws, err);
	if (sfd < 0)
		return NULL;
	dir = fdopendir(sfd);
	arr = json_array();
	if (!dir || !arr) {
		err_set(err, EXIT_FAILED, "list %s: %s", ws->sessions, strerror(errno));
		if (!dir)
			close(sfd);
		else
			closedir(dir);
		json_decref(arr);
		return NULL;
	}
	while ((d = readdir(dir)) && json_array_size(arr) < SESSIONS_MAX) {
		n = strlen(d->d_name);
		if (n <= 5 || n - 5 > ID_MAX || strcmp(d->d_name + n - 5, ".json"))
			continue;
		snprintf(id, sizeof(id), "%.*s", (int)(n - 5), d->d_name);
		if (!id_valid(id, "session", NULL))
			continue;
		/* One unreadable log does not hide the others. */
		s = summary(dirfd(dir), ws, id, &ignored);
		if (s)
			json_array_append_new(arr, s);
	}
	closedir(dir);
	if (jsonx_array_sort(arr, by_updated_desc) < 0) {
		json_decref(arr);
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	return arr;
}
