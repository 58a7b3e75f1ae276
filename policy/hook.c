/* The policy's call hook: every call of a customer decided by its rules
 * before the server sees it, its call rates (rates.c), and approval by a person: the
 * MCP host's user through the call's asker (serve), or the terminal. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/cancel.h"
#include "../common/clock.h"
#include "../servers/client.h"
#include "../servers/hub.h"
#include "policy_i.h"

#define ARGS_SHOWN 600 /* bytes of the arguments a person is shown */

/* A tool a person approved for the rest of a session. */
struct approval {
	char *customer, *session, *server, *tool; /* owned */
	struct approval *next;
};

struct policy_state {
	struct approval *approved; /* protected by policy.lock */
	pthread_mutex_t tty;	   /* one terminal prompt at a time */
	int handle;		   /* the hook's */
};

void policy_state_free(struct policy_state *s)
{
	struct approval *a;

	if (!s)
		return;
	while ((a = s->approved)) {
		s->approved = a->next;
		free(a->customer);
		free(a->session);
		free(a->server);
		free(a->tool);
		free(a);
	}
	pthread_mutex_destroy(&s->tty);
	free(s);
}

static bool streq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static bool session_approved(struct policy *p, const struct hub_call *call)
{
	struct approval *a;
	bool yes = false;

	if (!call->opts->session)
		return false;
	pthread_mutex_lock(&p->lock);
	for (a = p->state->approved; a && !yes; a = a->next)
		yes = streq(a->customer, call->opts->customer) &&
		      streq(a->session, call->opts->session) && !strcmp(a->server, call->server) &&
		      !strcmp(a->tool, call->tool);
	pthread_mutex_unlock(&p->lock);
	return yes;
}

static void approve_session(struct policy *p, const struct hub_call *call)
{
	struct approval *a = calloc(1, sizeof(*a));

	if (!a || !call->opts->session)
		goto out_free;
	a->customer = strdup(call->opts->customer ? call->opts->customer : "");
	a->session = strdup(call->opts->session);
	a->server = strdup(call->server);
	a->tool = strdup(call->tool);
	if (!a->customer || !a->session || !a->server || !a->tool)
		goto out_free;
	pthread_mutex_lock(&p->lock);
	a->next = p->state->approved;
	p->state->approved = a;
	pthread_mutex_unlock(&p->lock);
	return;
out_free:
	if (a) {
		free(a->customer);
		free(a->session);
		free(a->server);
		free(a->tool);
	}
	free(a); /* not remembered: the next call asks again */
}

/* What a person is asked: who calls what, with which arguments (cut). */
static void question(const struct policy_rules *r, const struct hub_call *call, json_t *args,
		     char *out, size_t n)
{
	char *text = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);
	size_t len = text ? strlen(text) : 0;

	snprintf(out, n, "mcpfs: customer %s's code calls %s.%s with %.*s%s (%s). Approve?",
		 r->customer, call->server, call->tool, (int)(len > ARGS_SHOWN ? ARGS_SHOWN : len),
		 text ? text : "{}", len > ARGS_SHOWN ? "..." : "",
		 "the policy asks a person for this tool");
	free(text);
}

/* Fires @local when @outer fires or @deadline (clock_now_s) passes. */
struct timer {
	struct cancel local;
	struct cancel *outer; /* borrowed; may be NULL */
	double deadline;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done; /* protected by lock */
};

static void *timer_run(void *arg)
{
	struct timer *t = arg;
	struct cancel_wait cw = {.lock = &t->lock, .cond = &t->cond};
	bool watching = t->outer && cancel_watch(t->outer, &cw);
	struct timespec ts;
	double left;

	pthread_mutex_lock(&t->lock);
	while (!t->done && !(t->outer && cancel_fired(t->outer)) &&
	       (left = t->deadline - clock_now_s()) > 0) {
		clock_gettime(CLOCK_REALTIME, &ts);
		left = left > 1.0 ? 1.0 : left;
		ts.tv_sec += (time_t)left;
		ts.tv_nsec += (long)((left - (double)(time_t)left) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&t->cond, &t->lock, &ts);
	}
	pthread_mutex_unlock(&t->lock);
	if (watching)
		cancel_unwatch(t->outer, &cw);
	cancel_fire(&t->local);
	return NULL;
}

/* Through the call's asker: a form elicitation to the MCP host. Returns 1
 * approved, 2 approved for the session, 0 declined (@err says why). */
static int ask_host(const struct policy_rules *r, const struct hub_call *call, const char *text,
		    struct err *err)
{
	const struct client_asker *asker = call->opts->hooks.asker;
	struct timer t = {.outer = call->opts->hooks.cancel,
			  .deadline = clock_now_s() + r->ask_timeout_s};
	json_t *params, *props, *res = NULL, *content;
	pthread_t th;
	bool timing;
	const char *action;
	int code = 0, rc = 0;

	props = json_pack("{s:{s:s,s:s,s:s}}", "approve", "type", "boolean", "title",
			  "Approve this call", "description",
			  "Leave unchecked or decline to refuse it.");
	if (props && r->ask_session)
		json_object_set_new(props, "session",
				    json_pack("{s:s,s:s}", "type", "boolean", "title",
					      "Approve this tool for the rest of the session"));
	params = props ? json_pack("{s:s,s:s,s:{s:s,s:o,s:[s]}}", "mode", "form", "message", text,
				   "requestedSchema", "type", "object", "properties", props,
				   "required", "approve")
		       : NULL;
	if (!params)
		return err_set(err, EXIT_FAILED, "approval: out of memory"), 0;
	cancel_init(&t.local);
	pthread_mutex_init(&t.lock, NULL);
	pthread_cond_init(&t.cond, NULL);
	timing = pthread_create(&th, NULL, timer_run, &t) == 0;
	if (timing)
		res = asker->ask(asker->ctx, "elicitation/create", params, &t.local, &code, err);
	else
		err_set(err, EXIT_FAILED, "approval: pthread_create: %s", strerror(errno));
	if (timing) {
		pthread_mutex_lock(&t.lock);
		t.done = true;
		pthread_cond_signal(&t.cond);
		pthread_mutex_unlock(&t.lock);
		pthread_join(th, NULL);
	}
	action = json_string_value(json_object_get(res, "action"));
	content = json_object_get(res, "content");
	if (action && !strcmp(action, "accept") &&
	    json_is_true(json_object_get(content, "approve")))
		rc = json_is_true(json_object_get(content, "session")) && r->ask_session ? 2 : 1;
	else if (action)
		err_set(err, EXIT_FAILED, "%s.%s refused: the MCP host's user declined it (%s)",
			call->server, call->tool, action);
	else if (timing && cancel_fired(&t.local) && !(t.outer && cancel_fired(t.outer)))
		err_set(err, EXIT_FAILED, "%s.%s refused: no approval within %g s", call->server,
			call->tool, r->ask_timeout_s);
	else if (!code && timing)
		err_set(err, EXIT_FAILED,
			"%s.%s refused: it needs approval and the MCP host offers no form "
			"elicitation",
			call->server, call->tool);
	else
		err_prefix(err, "%s.%s refused: no approval", call->server, call->tool);
	json_decref(res);
	json_decref(params);
	cancel_destroy(&t.local);
	pthread_cond_destroy(&t.cond);
	pthread_mutex_destroy(&t.lock);
	return rc;
}

/* On /dev/tty: y approves, s approves for the session (when offered), any
 * other answer, end of input or the time-out declines. */
static int ask_terminal(struct policy *p, const struct policy_rules *r, const struct hub_call *call,
			const char *text, struct err *err)
{
	double deadline = clock_now_s() + r->ask_timeout_s, left;
	char line[64] = "", prompt[64];
	struct pollfd pfd;
	size_t len = 0;
	ssize_t got;
	int fd, rc = 0;
	bool timed_out = false;

	pthread_mutex_lock(&p->state->tty);
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		pthread_mutex_unlock(&p->state->tty);
		return err_set(err, EXIT_FAILED, "%s.%s refused: it needs approval and %s",
			       call->server, call->tool, "no terminal is there to ask"),
		       0;
	}
	snprintf(prompt, sizeof(prompt), " [y/N%s] ", r->ask_session ? "/s=session" : "");
	if (write(fd, text, strlen(text)) < 0 || write(fd, prompt, strlen(prompt)) < 0)
		len = sizeof(line); /* cannot ask: declined below */
	while (len < sizeof(line) - 1 && !strchr(line, '\n')) {
		left = deadline - clock_now_s();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		pfd = (struct pollfd){.fd = fd, .events = POLLIN};
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		got = read(fd, line + len, sizeof(line) - 1 - len);
		if (got <= 0)
			break;
		len += (size_t)got;
		line[len] = '\0';
	}
	if (line[0] == 'y' || line[0] == 'Y')
		rc = 1;
	else if ((line[0] == 's' || line[0] == 'S') && r->ask_session)
		rc = 2;
	if (timed_out && write(fd, "\n", 1) < 0)
		timed_out = true;
	close(fd);
	pthread_mutex_unlock(&p->state->tty);
	if (!rc && timed_out)
		err_set(err, EXIT_FAILED, "%s.%s refused: no approval within %g s", call->server,
			call->tool, r->ask_timeout_s);
	else if (!rc)
		err_set(err, EXIT_FAILED, "%s.%s refused: declined on the terminal", call->server,
			call->tool);
	return rc;
}

static int approve(struct policy *p, const struct policy_rules *r, const struct hub_call *call,
		   json_t *args, const char *why, const char **how, struct err *err)
{
	char text[1024];
	int got;

	*how = "approved for this session earlier";
	if (r->ask_session && session_approved(p, call))
		return 0;
	question(r, call, args, text, sizeof(text));
	if (call->opts->hooks.asker) {
		*how = "approved by the MCP host's user (form elicitation)";
		got = ask_host(r, call, text, err);
	} else if (p->terminal) {
		*how = "approved on the terminal";
		got = ask_terminal(p, r, call, text, err);
	} else
		return err_set(err, EXIT_FAILED,
			       "%s.%s refused: it %s, and no one is there to approve it (an MCP "
			       "host through `mcpfs serve`, or `mcpfs exec` on a terminal)",
			       call->server, call->tool, why);
	if (got == 2)
		approve_session(p, call);
	return got ? 0 : -1;
}

/* The tool's MCP Tool object as the server lists it (a new reference), or
 * NULL with @err: a name it does not list byte for byte is refused here,
 * so no server's lenient lookup can reach a hidden tool. */
static json_t *tool_def(struct policy *p, const struct hub_call *call, struct err *err)
{
	struct err e = {0};
	json_t *found = hub_tool(p->hub, call->server, call->tool, &e);

	if (e.status) {
		if (err)
			*err = e;
		return NULL;
	}
	if (!found)
		err_set(err, EXIT_FAILED, "%s.%s refused: server %s lists no tool by that name",
			call->server, call->tool, call->server);
	return found;
}

/* The decision into the caller's note, if it asked for one. */
static void decided(const struct hub_call *call, const char *fmt, const char *text)
{
	if (call->opts->note)
		snprintf(call->opts->note->decision, sizeof(call->opts->note->decision), fmt, text);
}

static int judge(struct policy *p, const struct policy_rules *r, const struct hub_call *call,
		 json_t **args, const char **how, struct err *err)
{
	enum policy_verdict v;
	char why[512];
	json_t *def;

	if (!policy_server_open(r, call->server))
		return err_set(err, EXIT_FAILED,
			       "%s of %s refused: the server is closed to customer %s by policy",
			       call->method, call->server, r->customer);
	if (strcmp(call->method, "tools/call"))
		return 0; /* resources and prompts: the server is open */
	if (!(def = tool_def(p, call, err)))
		return -1;
	v = policy_decide(r, call->server, call->tool, def, why, sizeof(why));
	json_decref(def);
	if (v == POLICY_DENY)
		return err_set(err, EXIT_FAILED, "%s.%s refused: %s", call->server, call->tool,
			       why);
	if (policy_rates_take(p->rates_root, r, call->server, call->tool, err) < 0)
		return -1;
	if (v == POLICY_ASK)
		return approve(p, r, call, *args, why, how, err);
	return 0;
}

static int before(void *ctx, const struct hub_call *call, json_t **args, struct err *err)
{
	struct policy *p = ctx;
	const struct policy_rules *r = policy_rules(p, call->opts->customer);
	const char *how = "allowed by policy";
	int rc;

	if (!policy_restricts(r)) {
		decided(call, "%s", "allowed (no policy restricts the customer)");
		return 0;
	}
	rc = judge(p, r, call, args, &how, err);
	if (rc < 0)
		decided(call, "denied: %s", err->text);
	else
		decided(call, "%s", how);
	return rc;
}

bool policy_hides(const struct policy_rules *r, struct hub *h, const char *server, const char *tool)
{
	json_t *found;
	char why[512];
	bool hidden;

	if (!policy_rules_key(r)[0])
		return false;
	if (!server || !tool || !policy_server_open(r, server))
		return true;
	found = hub_tool(h, server, tool, NULL);
	hidden = !found || policy_decide(r, server, tool, found, why, sizeof(why)) == POLICY_DENY;
	json_decref(found);
	return hidden;
}

void policy_filter_results(const struct policy_rules *r, struct hub *h, json_t *answer)
{
	json_t *list = json_object_get(answer, "results"), *item;
	size_t i;

	if (!policy_rules_key(r)[0])
		return;
	for (i = 0; i < json_array_size(list);) {
		item = json_array_get(list, i);
		if (policy_hides(r, h, json_string_value(json_object_get(item, "server")),
				 json_string_value(json_object_get(item, "tool"))))
			json_array_remove(list, i);
		else
			i++;
	}
}

int policy_attach(struct policy *p, struct hub *h, const char *root)
{
	int handle;

	if (p->hub)
		return -EBUSY;
	if (!p->rates_root && !(p->rates_root = strdup(root)))
		return -ENOMEM;
	if (!p->state) {
		p->state = calloc(1, sizeof(*p->state));
		if (!p->state)
			return -ENOMEM;
		pthread_mutex_init(&p->state->tty, NULL);
	}
	handle = hub_hook_add(
	    h, &(struct hub_hook){.order = HUB_ORDER_POLICY, .before = before, .ctx = p});
	if (handle > 0)
		p->hub = h;
	return handle;
}

void policy_set_terminal(struct policy *p, bool on)
{
	if (p)
		p->terminal = on;
}
