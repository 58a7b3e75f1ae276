/* execute_code: the model's code in the jail, through the scheduler, with
 * its output cut to a cap for the model and saved whole in the workspace. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../pii/engine.h"
#include "../common/buf.h"
#include "../executor/run.h"
#include "../search/search.h"
#include "../common/fsx.h"
#include "engine.h"
#include "mcp_i.h"
#include "metrics.h"
#include "sched.h"
#include "tools.h"

#define CODE_MAX_NUM 1048576 /* bytes of code; also in the schema */
#define STDERR_TAIL 2000
#define OUTPUT_DIR ".outputs"

/* The longest prefix of @s (@len bytes) no longer than @max that ends on a
 * UTF-8 character boundary. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/* Where the tail of the last @max bytes of @s begins, on a boundary. */
static size_t utf8_tail(const char *s, size_t len, size_t max)
{
	size_t from = len > max ? len - max : 0;

	while (from < len && ((unsigned char)s[from] & 0xc0) == 0x80)
		from++;
	return from;
}

/* Save the whole stdout as <workspace>/.outputs/<run_id>.txt, owned like the
 * workspace so the code can read it. Returns 0 or -1 with @err. */
static int save_output(const char *workspace, const char *run_id, const char *data, size_t len,
		       char *rel, size_t n, struct err *err)
{
	struct stat st;
	char name[128];
	int top, dir = -1, rc;

	snprintf(name, sizeof(name), "%s.txt", run_id);
	snprintf(rel, n, OUTPUT_DIR "/%s", name);
	top = fsx_open_dir(workspace);
	if (top < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", workspace, strerror(-top));
	rc = fstat(top, &st) < 0 ? -errno : fsx_mkdir_at(top, OUTPUT_DIR, 0755);
	if (!rc) {
		fchownat(top, OUTPUT_DIR, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW);
		dir = fsx_open_at(top, OUTPUT_DIR, O_RDONLY | O_DIRECTORY, 0);
		rc = dir < 0 ? dir : fsx_write_atomic_at(dir, name, data, len, 0644);
	}
	if (!rc)
		fchownat(dir, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW);
	if (dir >= 0)
		close(dir);
	close(top);
	if (rc)
		return err_set(err, EXIT_FAILED, "save %s: %s", rel, strerror(-rc));
	return 0;
}

static enum metrics_outcome outcome_of(json_t *res, bool cancelled)
{
	json_t *limits = json_object_get(res, "limits"), *v;
	size_t i;

	if (json_is_true(json_object_get(res, "timed_out")))
		return METRICS_RUN_TIMEOUT;
	json_array_foreach(limits, i,
			   v) if (cancelled && !strcmp(json_string_value(v) ?: "",
						       "interrupted")) return METRICS_RUN_CANCELLED;
	return json_integer_value(json_object_get(res, "exit_code")) ? METRICS_RUN_FAILED
								     : METRICS_RUN_OK;
}

/* The result for the model: structured fields and a text that reads well. */
static int shape(struct tool_ctx *t, json_t *res, struct tool_out *out, struct err *err)
{
	json_t *so = json_object_get(res, "stdout"), *se = json_object_get(res, "stderr");
	const char *sout = json_string_value(so), *serr = json_string_value(se);
	size_t olen = json_string_length(so), elen = json_string_length(se);
	size_t cap = t->e->o.output_cap, keep = utf8_cut(sout, olen, cap);
	size_t tail = utf8_tail(serr, elen, STDERR_TAIL);
	bool cut = keep < olen;
	bool whole_cut = json_is_true(json_object_get(json_object_get(res, "truncated"), "stdout"));
	const char *run_id = json_string_value(json_object_get(res, "run_id"));
	char rel[256] = "";
	struct ws ws;
	struct buf b;

	if (cut && (tool_ws(t, &ws, err) < 0 ||
		    save_output(ws.workspace, run_id, sout, olen, rel, sizeof(rel), err) < 0))
		return -1;
	out->structured = json_pack(
	    "{s:s%,s:s,s:O,s:O,s:O,s:O,s:b,s:O,s:O,s:O,s:O}", "stdout", sout, keep, "stderr_tail",
	    serr + tail, "exit_code", json_object_get(res, "exit_code"), "signal",
	    json_object_get(res, "signal"), "timed_out", json_object_get(res, "timed_out"),
	    "limits", json_object_get(res, "limits"), "stdout_cut", cut, "tool_calls",
	    json_object_get(res, "tool_calls"), "duration_ms", json_object_get(res, "duration_ms"),
	    "run_id", json_object_get(res, "run_id"), "session_id",
	    json_object_get(res, "session_id"));
	if (!out->structured)
		return err_set(err, EXIT_FAILED, "out of memory");
	if (cut)
		json_object_set_new(out->structured, "output_file", json_string(rel));
	buf_init(&b, cap + STDERR_TAIL + 4096);
	buf_append(&b, sout, keep);
	if (keep && sout[keep - 1] != '\n')
		buf_putc(&b, '\n');
	if (cut)
		buf_printf(
		    &b,
		    "[output cut at %zu of %zu bytes; the whole output%s is in the workspace "
		    "at %s: read it with read_workspace_file or open() in code]\n",
		    keep, olen, whole_cut ? " (itself cut at 1 MiB)" : "", rel);
	else if (whole_cut)
		buf_puts(&b, "[output cut at 1 MiB]\n");
	if (elen)
		buf_printf(&b, "--- stderr%s ---\n%s%s", tail ? " (tail)" : "", serr + tail,
			   serr[elen - 1] == '\n' ? "" : "\n");
	buf_printf(&b, "--- exit %lld",
		   (long long)json_integer_value(json_object_get(res, "exit_code")));
	if (json_integer_value(json_object_get(res, "signal")))
		buf_printf(&b, " (signal %lld)",
			   (long long)json_integer_value(json_object_get(res, "signal")));
	if (json_array_size(json_object_get(res, "limits"))) {
		char *l = json_dumps(json_object_get(res, "limits"), JSON_COMPACT);

		buf_printf(&b, ", limits hit: %s", l ? l : "?");
		free(l);
	}
	buf_printf(&b, ", %lld tool calls, %.0f ms ---\n",
		   (long long)json_integer_value(json_object_get(res, "tool_calls")),
		   json_number_value(json_object_get(res, "duration_ms")));
	out->text = buf_steal(&b, NULL);
	out->is_error = json_integer_value(json_object_get(res, "exit_code")) != 0 ||
			json_is_true(json_object_get(res, "timed_out"));
	return out->text ? 0 : err_set(err, EXIT_FAILED, "out of memory");
}

/* A run and what it borrows, kept until its task record is written, after
 * the answer (tool_out.after). */
struct exec_job {
	struct run_opts ro;
	struct search_source search;
	struct ws ws;
	struct run *run;
	json_t *res; /* the run's result, for its record */
};

static void job_free(struct exec_job *j)
{
	run_free(j->run);
	json_decref(j->res);
	free(j);
}

static void record_and_free(void *ctx)
{
	struct exec_job *j = ctx;

	run_record(j->run, j->res);
	job_free(j);
}

static int execute_code(struct tool_ctx *t, json_t *args, struct tool_out *out, struct err *err)
{
	struct serve_engine *e = t->e;
	const char *lang = json_string_value(json_object_get(args, "language")) ?: "python";
	json_t *code = json_object_get(args, "code"), *to = json_object_get(args, "timeout_s");
	struct exec_job *j;
	int status, rc;

	if (to && json_number_value(to) > e->o.max_timeout_s)
		return err_set(err, EXIT_USAGE, "timeout_s is at most %g here", e->o.max_timeout_s);
	j = calloc(1, sizeof(*j));
	if (!j)
		return err_set(err, EXIT_FAILED, "out of memory");
	j->search = search_hub_source(e->search);
	/* The record waits for the answer (record_and_free): not opts.record. */
	j->ro = (struct run_opts){
	    .root = e->o.root,
	    .cfg = e->o.cfg,
	    .hub = e->o.hub,
	    .policy = e->o.policy,
	    .customer = t->customer,
	    .ws = &j->ws,
	    .session = t->session,
	    .description = json_string_value(json_object_get(args, "description")),
	    .lang = strcmp(lang, "typescript") ? RUN_LANG_PYTHON : RUN_LANG_TYPESCRIPT,
	    .code = json_string_value(code),
	    .code_len = json_string_length(code),
	    .timeout_s = to ? json_number_value(to) : 0,
	    .memory_mb = e->o.memory_mb,
	    .capture = true,
	    .pool = e->pool,
	    .stdin_fd = -1,
	    .cgroup_parent = e->o.cgroup_parent,
	    .search = &j->search,
	    .asker = &t->call->asker,
	    .output_filter = e->o.pii && pii_engine_active(e->o.pii, t->customer)
				 ? pii_engine_filter_output
				 : NULL,
	    .output_ctx = e->o.pii,
	};
	rc = sched_acquire(e->sched, t->customer, &t->call->cancel);
	if (rc < 0) {
		job_free(j);
		metrics_run(e->metrics,
			    rc == -ECANCELED ? METRICS_RUN_CANCELLED : METRICS_RUN_ERROR, 0);
		if (rc == -EBUSY)
			return err_set(err, EXIT_FAILED,
				       "busy: %u runs are going and %u more are waiting, the most "
				       "this server queues; try again in a few seconds",
				       sched_max_running(e->sched), sched_max_queued(e->sched));
		return err_set(err, EXIT_FAILED, "%s",
			       rc == -ECANCELED ? "cancelled before it started"
			       : rc == -ESHUTDOWN
				   ? "the server is shutting down; run it again elsewhere"
				   : "out of memory");
	}
	/* Provisioned here, one customer at a time (tool_ws); the run uses it
	 * as it is. */
	j->run = tool_ws(t, &j->ws, err) < 0 ? NULL : run_new(&j->ro, err);
	if (!j->run || !mcp_call_run_begin(t->call, j->run)) {
		rc = j->run ? err_set(err, EXIT_FAILED, "cancelled before it started") : -1;
		sched_release(e->sched, t->customer);
		metrics_run(e->metrics, j->run ? METRICS_RUN_CANCELLED : METRICS_RUN_ERROR, 0);
		job_free(j);
		return rc;
	}
	j->res = run_start(j->run, err) < 0 ? NULL : run_wait(j->run, &status, err);
	mcp_call_run_end(t->call);
	sched_release(e->sched, t->customer);
	if (!j->res) {
		metrics_run(e->metrics,
			    mcp_call_cancelled(t->call) ? METRICS_RUN_CANCELLED : METRICS_RUN_ERROR,
			    0);
		job_free(j);
		return -1;
	}
	metrics_run(e->metrics, outcome_of(j->res, mcp_call_cancelled(t->call)),
		    json_number_value(json_object_get(j->res, "duration_ms")) / 1e3);
	/* The run's folder goes and its record is written once the model has
	 * its answer: neither changes what it is told. */
	out->after = record_and_free;
	out->after_ctx = j;
	return shape(t, j->res, out, err);
}

#define STR(x) #x
#define XSTR(x) STR(x)

const struct serve_tool tools_exec[] = {
    {
	.name = "execute_code",
	.title = "Run code against the tools",
	.description =
	    "Run a Python (or TypeScript) program in a sandbox where every configured MCP server "
	    "is importable code: `from servers.<server> import <tool>` then call it like a "
	    "function (TypeScript: `import * as s from \"./servers/<server>\"`, then `await "
	    "s.tool({...})`). Use it for anything that calls tools: loop, filter, join and "
	    "aggregate in the code and print only what you need; intermediate data never has to "
	    "pass through you. The working directory is your persistent workspace; your skills "
	    "import as skills.<name>. No network apart from the tools. Limits: code up to 1 MiB; "
	    "timeout_s default 30, at most 300; 512 MiB of memory; stdout past 20,000 bytes is "
	    "cut and saved whole in the workspace (the result says where); stderr shows its last "
	    "2,000 bytes. Returns stdout, the stderr tail, exit code, signal, limits hit, tool "
	    "calls made and duration.",
	.input_schema =
	    "{\"type\":\"object\",\"properties\":{"
	    "\"code\":{\"type\":\"string\",\"maxLength\":" XSTR(
		CODE_MAX_NUM) ",\"description\":\"The whole program. Print the results you "
			      "need.\"},"
			      "\"language\":{\"type\":\"string\",\"enum\":[\"python\","
			      "\"typescript\"],"
			      "\"default\":\"python\"},"
			      "\"description\":{\"type\":\"string\",\"maxLength\":1000,"
			      "\"description\":\"One line for the session log: what this run is "
			      "for.\"},"
			      "\"timeout_s\":{\"type\":\"number\",\"minimum\":0.1,\"maximum\":300,"
			      "\"description\":\"Wall-clock limit in seconds (default 30).\"}},"
			      "\"required\":[\"code\"],\"additionalProperties\":false}",
	.output_schema =
	    "{\"type\":\"object\",\"properties\":{"
	    "\"stdout\":{\"type\":\"string\"},\"stderr_tail\":{\"type\":\"string\"},"
	    "\"exit_code\":{\"type\":\"integer\"},\"signal\":{\"type\":\"integer\"},"
	    "\"timed_out\":{\"type\":\"boolean\"},"
	    "\"limits\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
	    "\"stdout_cut\":{\"type\":\"boolean\"},\"output_file\":{\"type\":\"string\"},"
	    "\"tool_calls\":{\"type\":\"integer\"},\"duration_ms\":{\"type\":\"number\"},"
	    "\"run_id\":{\"type\":\"string\"},\"session_id\":{\"type\":\"string\"}},"
	    "\"required\":[\"stdout\",\"stderr_tail\",\"exit_code\",\"signal\",\"timed_out\","
	    "\"limits\",\"stdout_cut\",\"tool_calls\",\"duration_ms\",\"run_id\","
	    "\"session_id\"]}",
	.hints = TOOL_DESTRUCTIVE | TOOL_OPEN_WORLD,
	.fn = execute_code,
    },
    {0},
};
