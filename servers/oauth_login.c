#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crypto_lib.h"
#include "oauth.h"
#include "oauth_client.h"
#include "oauth_crypto.h"
#include "oauth_http.h"
#include "oauth_i.h"
#include "oauth_loopback.h"
#include "oauth_store.h"

extern char **environ;

/* An unauthenticated initialize: its 401 names the resource metadata and
 * scope. A server that lets initialize through leaves @ch empty, and sets
 * *@open. */
static int probe(const struct server_config *sc, struct oauth_challenge *ch, bool *open,
		 struct err *err)
{
	struct oauth_http_req req = {
	    .method = "POST",
	    .url = sc->url,
	    .content_type = "application/json",
	    .accept = "application/json, text/event-stream",
	    .timeout_s = oauth_timeout(sc),
	    .body = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
		    "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
		    "\"clientInfo\":{\"name\":\"mcpfs\",\"version\":\"0.1.0\"}}}"};
	struct oauth_http_resp resp;
	int rc = 0;

	if (oauth_http(&req, &resp, err) < 0)
		rc = -1;
	else if (resp.status == 401 && oauth_challenge_parse(resp.www_authenticate, ch))
		rc = err_set(err, EXIT_FAILED, "out of memory");
	*open = resp.status >= 200 && resp.status <= 299;
	oauth_http_resp_free(&resp);
	return rc;
}

/* Open @url with the user's browser: $BROWSER, else xdg-open when there is
 * a display. Never waits for it. */
static void open_browser(const struct oauth_login_opts *o, const char *url)
{
	const char *cmd = o->browser;
	posix_spawn_file_actions_t fa;
	/* $BROWSER is a command line of the user's: the shell splits it. */
	char *argv[] = {"/bin/sh", "-c", "exec $0 \"$1\"", (char *)cmd, (char *)url, NULL};
	pid_t pid;

	if (!cmd && (getenv("DISPLAY") || getenv("WAYLAND_DISPLAY")) &&
	    !access("/usr/bin/xdg-open", X_OK))
		cmd = argv[3] = "/usr/bin/xdg-open";
	if (!cmd || !*cmd)
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ) != 0)
		fprintf(o->out, "(could not start the browser: %s)\n", cmd);
	posix_spawn_file_actions_destroy(&fa);
}

static char *authorization_url(const struct oauth_meta *m, const struct oauth_client *c,
			       const char *redirect, const char *challenge, const char *state)
{
	char *q = NULL, *out;
	const char *sep = strchr(m->authorization_endpoint, '?') ? "&" : "?";

	if (oauth_form_add(&q, "response_type", "code") ||
	    oauth_form_add(&q, "client_id", c->client_id) ||
	    oauth_form_add(&q, "redirect_uri", redirect) ||
	    oauth_form_add(&q, "code_challenge", challenge) ||
	    oauth_form_add(&q, "code_challenge_method", "S256") ||
	    oauth_form_add(&q, "state", state) || oauth_form_add(&q, "scope", m->scope) ||
	    oauth_form_add(&q, "resource", m->resource))
		return NULL;
	if (asprintf(&out, "%s%s%s", m->authorization_endpoint, sep, q) < 0)
		out = NULL;
	free(q);
	return out;
}

/* Everything succeeded: put @tok and @client into the store under the lock. */
static int commit(const struct server_config *sc, json_t *tok, json_t *client, struct err *err)
{
	json_t *state;
	int lock, rc = -1;

	lock = oauth_store_lock(sc->token_file, err);
	if (lock < 0)
		return -1;
	state = oauth_store_load(sc->token_file, sc->url, err);
	if (state)
		json_object_del(state, "challenge");
	if (state &&
	    (json_object_set(state, "token", tok) || json_object_set(state, "client", client)))
		err_set(err, EXIT_FAILED, "out of memory");
	else if (state)
		rc = oauth_store_save(sc->token_file, state, err);
	json_decref(state);
	oauth_store_unlock(lock);
	return rc;
}

static int code_flow(const struct server_config *sc, const struct oauth_login_opts *o,
		     const json_t *state, const struct oauth_challenge *ch, struct err *err)
{
	char *verifier = NULL, *challenge = NULL, *st = NULL, *url = NULL, *code = NULL,
	     *form = NULL, *extra = NULL, redirect[64], errc[64];
	const json_t *tok0 = json_object_get(state, "token");
	json_t *registered = NULL, *tok = NULL, *client = NULL;
	struct oauth_redirect_want want = {0};
	struct oauth_client c = {0};
	struct oauth_meta m = {0};
	int fd, port, rc = -1;

	fd = oauth_loopback_open(&port, err);
	if (fd < 0)
		return -1;
	snprintf(redirect, sizeof(redirect), "http://127.0.0.1:%d/callback", port);
	/* A step-up keeps what the last token could do. */
	extra = oauth_scope_union(
	    json_string_value(json_object_get(tok0, "scope")),
	    json_string_value(json_object_get(json_object_get(state, "challenge"), "scope")));
	if (oauth_discover(sc->url, ch, extra, oauth_timeout(sc), &m, err))
		goto out;
	if (!m.pkce_s256) {
		err_set(err, EXIT_UNREACHABLE,
			"authorization server %.300s does not offer PKCE S256: refusing to log in",
			m.issuer);
		goto out;
	}
	if (oauth_client_get(sc, &m, json_object_get(state, "client"), redirect, oauth_timeout(sc),
			     &c, &registered, err))
		goto out;
	verifier = oauth_random_text(48);
	challenge = verifier ? oauth_pkce_challenge(verifier) : NULL;
	st = oauth_random_text(24);
	url = challenge && st ? authorization_url(&m, &c, redirect, challenge, st) : NULL;
	if (!url) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	fprintf(o->out, "Open this URL in a browser to log in to '%s':\n  %s\n", sc->name, url);
	fflush(o->out);
	open_browser(o, url);
	want.state = st;
	want.issuer = m.issuer;
	want.iss_required = m.iss_parameter;
	if (oauth_loopback_wait(fd, &want, o->timeout_s, &code, err))
		goto out;
	if (oauth_form_add(&form, "grant_type", "authorization_code") ||
	    oauth_form_add(&form, "code", code) ||
	    oauth_form_add(&form, "redirect_uri", redirect) ||
	    oauth_form_add(&form, "code_verifier", verifier) ||
	    oauth_form_add(&form, "resource", m.resource)) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	tok = oauth_token_request(m.token_endpoint, m.issuer, &c, form, m.scope, oauth_timeout(sc),
				  errc, err);
	if (!tok)
		goto out;
	client = registered ? json_incref(registered) : oauth_client_to_json(&c, m.issuer);
	if (!client || oauth_token_finish(tok, &m)) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	rc = commit(sc, tok, client, err);
out:
	close(fd);
	json_decref(registered);
	json_decref(tok);
	json_decref(client);
	oauth_client_free(&c);
	oauth_meta_free(&m);
	free(extra);
	free(verifier);
	free(challenge);
	free(st);
	free(url);
	free(code);
	if (form)
		explicit_bzero(form, strlen(form));
	free(form);
	return rc;
}

int oauth_login(const struct server_config *sc, const struct oauth_login_opts *o, struct err *err)
{
	struct oauth_challenge ch = {0};
	bool open = false;
	json_t *state;
	int rc = -1;

	if (!sc->token_file || !sc->url)
		return err_set(err, EXIT_USAGE, "server '%s' is not a remote (http) server",
			       sc->name);
	if (!crypto_lib_load(err))
		return -1;
	state = oauth_store_load(sc->token_file, sc->url, err);
	if (!state)
		return -1;
	if (probe(sc, &ch, &open, err))
		goto out;
	if (!ch.bearer && oauth_challenge_from_state(state, &ch)) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	/* Nothing asked for a login: neither this initialize nor an earlier
	 * request (a server may let initialize through and guard its tools). */
	if (open && !ch.bearer) {
		fprintf(o->out, "Server '%s' needs no login: it answered without one.\n", sc->name);
		rc = 0;
		goto out;
	}
	if (oauth_is_headless(sc)) {
		rc = oauth_headless_token(sc, state, &ch, err);
		if (!rc)
			rc = commit(sc, json_object_get(state, "token"),
				    json_object_get(state, "client"), err);
	} else {
		rc = code_flow(sc, o, state, &ch, err);
	}
	if (!rc)
		fprintf(o->out, "Logged in to '%s'.\n", sc->name);
out:
	oauth_challenge_free(&ch);
	json_decref(state);
	return rc;
}

int oauth_logout(const struct server_config *sc, struct err *err)
{
	json_t *state;
	int lock, rc = -1;

	if (!sc->token_file)
		return err_set(err, EXIT_USAGE, "server '%s' is not a remote (http) server",
			       sc->name);
	lock = oauth_store_lock(sc->token_file, err);
	if (lock < 0)
		return -1;
	state = oauth_store_load(sc->token_file, sc->url, err);
	if (state && !oauth_store_remove(sc->token_file, err))
		rc = json_object_get(state, "token") ? 1 : 0;
	json_decref(state);
	oauth_store_unlock(lock);
	return rc;
}
