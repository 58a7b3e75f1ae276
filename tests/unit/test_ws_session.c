/* Workspaces, session logs and skills front matter: ids, symlink refusal,
 * atomic writes under SIGKILL, concurrent appends. Prints "N passed, N failed". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <limits.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../../common/fsx.h"
#include "../../skills/skills.h"
#include "../../workspaces/session.h"
#include "../../workspaces/workspace.h"
#include "check.h"

static char root[256];

static const struct {
	const char *id;
	bool ok;
} ids[] = {
    {"acme", true},
    {"A", true},
    {"a.b_c-d9", true},
    {"0123456789012345678901234567890123456789012345678901234567890123", true},
    {"01234567890123456789012345678901234567890123456789012345678901234", false},
    {"", false},
    {".", false},
    {"..", false},
    {"../x", false},
    {"a/b", false},
    {".hidden", false},
    {"-dash", false},
    {"sp ace", false},
    {"nl\n", false},
    {"\xc3\xa9t\xc3\xa9", false},
};

static void test_ids(void)
{
	struct err e = {0};
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		err_clear(&e);
		CHECK(id_valid(ids[i].id, "customer", &e) == ids[i].ok, "id '%s'", ids[i].id);
		CHECK(ids[i].ok || (e.status == EXIT_USAGE && !strchr(e.text, '\n')),
		      "id '%s' error text", ids[i].id);
	}
	CHECK(!id_valid(NULL, "customer", &e), "NULL id");
}

static void test_symlinks(void)
{
	char path[PATH_MAX + 32], target[PATH_MAX + 32];
	struct err e = {0};
	struct ws ws;
	int fd;

	CHECK(ws_open(root, "alice", true, &ws, &e) == 0, "create alice: %s", e.text);
	CHECK(ws_open(root, "alice", true, &ws, &e) == 0, "create is idempotent: %s", e.text);
	CHECK(ws_open(root, "nobody", false, &ws, &e) < 0 && e.status == EXIT_USAGE,
	      "open without create of a missing customer");
	/* A customer folder that is a symlink to another customer's. */
	snprintf(path, sizeof(path), "%s/workspaces/mallory", root);
	snprintf(target, sizeof(target), "%s/workspaces/alice", root);
	CHECK(symlink(target, path) == 0, "symlink");
	err_clear(&e);
	CHECK(ws_open(root, "mallory", false, &ws, &e) < 0 && strstr(e.text, "symlink"),
	      "symlinked customer refused: %s", e.text);
	CHECK(ws_open(root, "mallory", true, &ws, &e) < 0, "symlinked customer refused (create)");
	/* A subfolder replaced by a symlink. */
	CHECK(ws_open(root, "bob", true, &ws, &e) == 0, "create bob");
	CHECK(fsx_remove_tree(ws.sessions) == 0 && symlink(target, ws.sessions) == 0,
	      "plant sessions symlink");
	err_clear(&e);
	CHECK(ws_open(root, "bob", false, &ws, &e) < 0 && strstr(e.text, "sessions"),
	      "symlinked sessions refused: %s", e.text);
	/* Symlinks planted by the customer's code inside the workspace. */
	CHECK(ws_open(root, "alice", false, &ws, &e) == 0, "reopen alice");
	snprintf(path, sizeof(path), "%s/passwd", ws.workspace);
	CHECK(symlink("/etc/passwd", path) == 0, "plant passwd symlink");
	snprintf(path, sizeof(path), "%s/up", ws.workspace);
	CHECK(symlink("..", path) == 0, "plant .. symlink");
	fd = fsx_open_dir(ws.workspace);
	CHECK(fd >= 0, "open workspace");
	CHECK(fsx_open_at(fd, "passwd", O_RDONLY, 0) == -ELOOP, "planted symlink not followed");
	CHECK(fsx_open_at(fd, "up/quota.json", O_RDONLY, 0) == -ELOOP,
	      "symlinked dir not followed");
	CHECK(fsx_open_at(fd, "../quota.json", O_RDONLY, 0) == -EXDEV, "'..' escape refused");
	CHECK(fsx_open_at(fd, "/etc/passwd", O_RDONLY, 0) == -EXDEV, "absolute path refused");
	close(fd);
	/* A planted symlink where the session log goes is replaced, not followed. */
	snprintf(path, sizeof(path), "%s/s1.json", ws.sessions);
	snprintf(target, sizeof(target), "%s/victim", root);
	CHECK(fsx_write_atomic(target, "keep", 4, 0600) == 0, "victim");
	CHECK(symlink(target, path) == 0, "plant log symlink");
	CHECK(session_checkpoint_get(&ws, "s1", &e) == NULL, "reading through a symlink refused");
}

struct swap {
	const char *top; /* the walked folder */
	int topfd, same_entry, through_path;
};

/* At "a/b", swap folder a for a symlink to a folder that holds another b,
 * as jailed code could while a walk runs, then look at b both ways. */
static int swap_entry(void *ctx, const struct fsx_entry *e)
{
	struct swap *sw = ctx;
	char a[PATH_MAX + 8], moved[PATH_MAX + 16], other[PATH_MAX + 16];
	struct stat st;

	if (strcmp(e->rel, "a/b"))
		return 0;
	snprintf(a, sizeof(a), "%s/a", sw->top);
	snprintf(moved, sizeof(moved), "%s/a.moved", sw->top);
	snprintf(other, sizeof(other), "%s/other", sw->top);
	if (rename(a, moved) < 0 || symlink(other, a) < 0)
		return -errno;
	sw->same_entry =
	    fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_ino == e->st->st_ino;
	sw->through_path =
	    fstatat(sw->topfd, e->rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_ino == e->st->st_ino;
	return 0;
}

static void test_walk_entry_survives_swap(void)
{
	char top[PATH_MAX], path[PATH_MAX + 16];
	struct swap sw = {.top = top};
	int rc;

	snprintf(top, sizeof(top), "%s/walk", root);
	snprintf(path, sizeof(path), "%s/a/b", top);
	CHECK(fsx_mkdirs(path, 0755) == 0, "mkdir a/b");
	snprintf(path, sizeof(path), "%s/other/b", top);
	CHECK(fsx_mkdirs(path, 0755) == 0, "mkdir other/b");
	sw.topfd = fsx_open_dir(top);
	rc = fsx_walk_at(sw.topfd, 100, swap_entry, &sw);
	CHECK(rc == 0, "walk: %d", rc);
	CHECK(sw.same_entry && !sw.through_path,
	      "an entry's folder and name reach it after its path was swapped: %d %d",
	      sw.same_entry, sw.through_path);
	close(sw.topfd);
}

static json_t *task(int writer, int i)
{
	return json_pack("{s:s, s:i, s:i, s:s, s:i}", "description", "unit", "writer", writer, "i",
			 i, "code", "print(1)", "exit_code", 0);
}

static int append_n(const struct ws *ws, const char *sid, int writer, int n)
{
	struct err e = {0};
	json_t *t;
	int i, rc;

	for (i = 0; i < n; i++) {
		t = task(writer, i);
		rc = session_append_task(ws, sid, t, &e);
		json_decref(t);
		if (rc < 0) {
			fprintf(stderr, "append: %s\n", e.text);
			return 1;
		}
	}
	return 0;
}

static void test_concurrent(void)
{
	struct err e = {0};
	struct ws ws;
	pid_t pid[2];
	json_t *log, *t;
	int st, w, i, seen[2][100] = {{0}};
	size_t k;

	CHECK(ws_open(root, "carol", true, &ws, &e) == 0, "create carol");
	for (w = 0; w < 2; w++) {
		pid[w] = fork();
		if (pid[w] == 0)
			_exit(append_n(&ws, "busy", w, 100));
	}
	for (w = 0; w < 2; w++)
		CHECK(waitpid(pid[w], &st, 0) == pid[w] && WIFEXITED(st) && !WEXITSTATUS(st),
		      "writer %d", w);
	log = session_load(&ws, "busy", &e);
	CHECK(log != NULL, "load: %s", e.text);
	CHECK(json_array_size(json_object_get(log, "tasks")) == 200, "200 tasks, got %zu",
	      json_array_size(json_object_get(log, "tasks")));
	json_array_foreach(json_object_get(log, "tasks"), k, t)
	{
		w = (int)json_integer_value(json_object_get(t, "writer"));
		i = (int)json_integer_value(json_object_get(t, "i"));
		if (w >= 0 && w < 2 && i >= 0 && i < 100)
			seen[w][i]++;
	}
	for (w = 0, st = 0; w < 2; w++)
		for (i = 0; i < 100; i++)
			st += seen[w][i] == 1;
	CHECK(st == 200, "every task exactly once (%d)", st);
	json_decref(log);
}

/* The number of tasks in the log @sid, 0 while there is none. */
static size_t task_count(const struct ws *ws, const char *sid)
{
	struct err e = {0};
	json_t *log = session_load(ws, sid, &e);
	size_t n = json_array_size(json_object_get(log, "tasks"));

	json_decref(log);
	return n;
}

/* Wait until the writer @pid has added a task past @prev: the kill that
 * follows then lands while it writes, however slowly a loaded machine lets
 * it start. False if it ended or the (generous) deadline passed. */
static bool writer_started(const struct ws *ws, pid_t pid, size_t prev)
{
	struct timespec tick = {0, 1000000};
	double deadline = clock_now_s() + 120;
	int st;

	while (clock_now_s() < deadline) {
		if (task_count(ws, "crash") > prev)
			return true;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			printf("the writer ended before its first task: status %d\n", st);
			return false;
		}
		nanosleep(&tick, NULL);
	}
	return false;
}

static void test_sigkill(void)
{
	struct timespec ts;
	struct err e = {0};
	struct ws ws;
	size_t prev = 0, n;
	json_t *log;
	pid_t pid;
	int round, bad = 0, stalled = 0, st;

	CHECK(ws_open(root, "dave", true, &ws, &e) == 0, "create dave");
	srand((unsigned)getpid());
	for (round = 0; round < 40; round++) {
		pid = fork();
		if (pid == 0)
			_exit(append_n(&ws, "crash", 0, 1000000));
		/* Every round gets a task in, then dies at a random instant of
		 * the writes that follow. */
		stalled += !writer_started(&ws, pid, prev);
		ts.tv_sec = 0;
		ts.tv_nsec = (rand() % 3000) * 1000L;
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		err_clear(&e);
		log = session_load(&ws, "crash", &e);
		if (!log && e.status == EXIT_USAGE && prev == 0)
			continue; /* killed before the first write: no log yet is fine */
		n = json_array_size(json_object_get(log, "tasks"));
		if (!log || n < prev) {
			bad++;
			printf("round %d: %s (%zu < %zu)\n", round, log ? "lost tasks" : e.text, n,
			       prev);
		}
		prev = n;
		json_decref(log);
	}
	CHECK(bad == 0, "log valid after every SIGKILL (%d bad rounds)", bad);
	CHECK(stalled == 0, "every round's writer got a task in (%d did not)", stalled);
	CHECK(prev > 0, "the writer got some tasks in");
}

static void test_checkpoint_end(void)
{
	struct err e = {0};
	struct ws ws;
	json_t *cp, *t;

	CHECK(ws_open(root, "erin", true, &ws, &e) == 0, "create erin");
	cp = session_checkpoint_get(&ws, "s", &e);
	CHECK(json_is_null(cp), "no checkpoint yet");
	json_decref(cp);
	cp = json_pack("{s:i, s:s, s:{s:s}}", "step", 3, "last_task", "t2", "context", "k", "v");
	CHECK(session_checkpoint_set(&ws, "s", cp, &e) == 0, "set: %s", e.text);
	json_decref(cp);
	cp = session_checkpoint_get(&ws, "s", &e);
	CHECK(json_integer_value(json_object_get(cp, "step")) == 3 &&
		  json_is_string(json_object_get(cp, "timestamp")) &&
		  !strcmp(json_string_value(json_object_get(json_object_get(cp, "context"), "k")),
			  "v"),
	      "checkpoint read back");
	json_decref(cp);
	cp = json_pack("{s:s}", "step", "x");
	CHECK(session_checkpoint_set(&ws, "s", cp, &e) < 0, "non-integer step refused");
	json_decref(cp);
	CHECK(session_end(&ws, "s", &e) == 0, "end");
	t = task(0, 0);
	err_clear(&e);
	CHECK(session_append_task(&ws, "s", t, &e) < 0 && strstr(e.text, "ended"),
	      "append to ended session refused: %s", e.text);
	json_decref(t);
	CHECK(session_end(&ws, "nope", &e) < 0 && e.status == EXIT_USAGE, "end unknown session");
	CHECK(session_append_task(&ws, "../x", NULL, &e) < 0, "bad session id");
}

/* A session's log is written after its first task ran: what the task wrote
 * before the log existed is among state_files (it once missed the file when
 * the log came a second after it). */
static void test_state_files_of_first_task(void)
{
	struct err e = {0};
	struct timespec old[2];
	char path[PATH_MAX + 16], started[32];
	struct ws ws;
	struct tm tm;
	json_t *t, *log, *files;
	time_t then = time(NULL) - 60;
	FILE *f;

	CHECK(ws_open(root, "fred", true, &ws, &e) == 0, "create fred");
	snprintf(path, sizeof(path), "%s/out.txt", ws.workspace);
	f = fopen(path, "w");
	CHECK(f && fputs("1", f) >= 0 && fclose(f) == 0, "write out.txt");
	old[0].tv_sec = old[1].tv_sec = then + 1; /* written during the task */
	old[0].tv_nsec = old[1].tv_nsec = 0;
	utimensat(AT_FDCWD, path, old, 0);
	gmtime_r(&then, &tm);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%S.000Z", &tm);
	t = task(0, 0);
	json_object_set_new(t, "started_at", json_string(started));
	CHECK(session_append_task(&ws, "s", t, &e) == 0, "append: %s", e.text);
	json_decref(t);
	log = session_load(&ws, "s", &e);
	files = json_object_get(log, "state_files");
	CHECK(json_array_size(files) == 1 &&
		  !strcmp(json_string_value(json_array_get(files, 0)), "out.txt"),
	      "out.txt, written before the log, is in state_files");
	CHECK(!strcmp(json_string_value(json_object_get(log, "started_at")), started),
	      "the session began with its first task");
	json_decref(log);
}

/* Append to session @sid a task record with @listed calls of echo (every
 * tenth failed) and a summary, as the bridge makes it, counting @made.
 * Returns the record as the log keeps it (a new reference), or NULL. */
static json_t *append_calls(const struct ws *ws, const char *sid, size_t listed, json_int_t made)
{
	json_t *t = task(0, 0), *calls = json_array(), *log;
	struct err e = {0};
	size_t i;
	int rc;

	for (i = 0; i < listed; i++)
		json_array_append_new(calls,
				      json_pack("{s:s,s:s,s:f,s:b}", "server", "everything", "tool",
						"echo", "duration_ms", 0.25, "ok", i % 10 != 0));
	json_object_set_new(t, "tool_calls", calls);
	json_object_set_new(t, "tool_calls_by_tool",
			    json_pack("[{s:s,s:s,s:I,s:I,s:f}]", "server", "everything", "tool",
				      "echo", "calls", made, "failed", made / 10, "duration_ms",
				      0.25 * (double)made));
	rc = session_append_task(ws, sid, t, &e);
	json_decref(t);
	CHECK(rc == 0, "append to %s: %s", sid, e.text);
	log = session_load(ws, sid, &e);
	t = json_incref(json_array_get(json_object_get(log, "tasks"), 0));
	json_decref(log);
	return t;
}

/* A run that called tools 30,000 times: more calls than a task record
 * lists. The record is kept with the first calls and the whole summary. */
static void test_many_calls(void)
{
	struct err e = {0};
	struct ws ws;
	json_t *got, *by;
	size_t kept, dropped;

	CHECK(ws_open(root, "frank", true, &ws, &e) == 0, "create frank");
	got = append_calls(&ws, "loop", 30000, 30000);
	kept = json_array_size(json_object_get(got, "tool_calls"));
	dropped = (size_t)json_integer_value(json_object_get(got, "tool_calls_dropped"));
	CHECK(kept > 1000 && kept < 30000 && kept + dropped == 30000,
	      "the first calls kept (%zu), the rest counted (%zu)", kept, dropped);
	CHECK(json_is_true(json_object_get(got, "truncated")), "marked truncated");
	CHECK(json_dumpb(got, NULL, 0, JSON_COMPACT) <= (1u << 20), "within the record cap");
	by = json_array_get(json_object_get(got, "tool_calls_by_tool"), 0);
	CHECK(json_integer_value(json_object_get(by, "calls")) == 30000 &&
		  json_integer_value(json_object_get(by, "failed")) == 3000 &&
		  json_real_value(json_object_get(by, "duration_ms")) == 7500.0,
	      "the summary kept whole");
	json_decref(got);

	/* The bridge listed fewer calls than were made: said although small. */
	got = append_calls(&ws, "capped", 5, 8);
	CHECK(json_array_size(json_object_get(got, "tool_calls")) == 5 &&
		  json_integer_value(json_object_get(got, "tool_calls_dropped")) == 3 &&
		  json_is_true(json_object_get(got, "truncated")),
	      "3 calls past the bridge's list counted as dropped");
	json_decref(got);

	got = append_calls(&ws, "whole", 5, 5);
	CHECK(got && !json_object_get(got, "tool_calls_dropped") &&
		  !json_object_get(got, "truncated"),
	      "a whole list: nothing dropped, not truncated");
	json_decref(got);
}

static const struct {
	const char *text;
	const char *error; /* NULL: valid */
} mds[] = {
    {"---\nname: ok\ndescription: fine\n---\nbody\n", NULL},
    {"---\r\nname: ok\r\ndescription: 'quoted: yes'\r\n---\r\n", NULL},
    {"---\nname: ok\ndescription: |\n  two\n  lines\nmetadata:\n  a: b\n---\n", NULL},
    {"name: ok\n", "does not start"},
    {"---\nname: ok\ndescription: x\n", "not closed"},
    {"---\ndescription: x\n---\n", "no name"},
    {"---\nname: ok\n---\n", "no description"},
    {"---\nname: Not-Ok\ndescription: x\n---\n", "forbidden"},
    {"---\nname: a--b\ndescription: x\n---\n", "forbidden"},
    {"---\nname: shared\ndescription: x\n---\n", "reserved"},
    {"---\nname ok\n---\n", "key: value"},
};

static void test_frontmatter(void)
{
	struct err e;
	json_t *fm;
	size_t i;

	for (i = 0; i < sizeof(mds) / sizeof(mds[0]); i++) {
		err_clear(&e);
		fm = skill_parse(mds[i].text, &e);
		if (!mds[i].error)
			CHECK(fm != NULL, "case %zu valid: %s", i, e.text);
		else
			CHECK(!fm && strstr(e.text, mds[i].error),
			      "case %zu: wanted '%s', got '%s'", i, mds[i].error, e.text);
		json_decref(fm);
	}
	fm = skill_parse(mds[2].text, &e);
	CHECK(fm && !strcmp(json_string_value(json_object_get(fm, "description")), "two\nlines"),
	      "block scalar");
	json_decref(fm);
}

int main(void)
{
	char cmd[300];

	/* Plain folders here: the quota images are proven end to end. */
	setenv("MCPFS_QUOTA_MODE", "none", 1);
	snprintf(root, sizeof(root), "/tmp/test_ws_session.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	test_ids();
	test_symlinks();
	test_walk_entry_survives_swap();
	test_concurrent();
	test_sigkill();
	test_checkpoint_end();
	test_state_files_of_first_task();
	test_many_calls();
	test_frontmatter();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("could not remove %s\n", root);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
