#define _GNU_SOURCE
#include "oauth.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crypto_lib.h"
#include "oauth_client.h"
#include "oauth_http.h"
#include "oauth_i.h"
#include "oauth_store.h"

#define OAUTH_DEFAULT_TIMEOUT_S 30.0
/* Renew this long before expiry at most; a tenth of the lifetime for short ones. */
#define OAUTH_RENEW_AHEAD_S 60.0

double oauth_timeout(const struct server_config *sc)
{
	return sc->timeout_s > 0 ? sc->timeout_s : OAUTH_DEFAULT_TIMEOUT_S;
}

int oauth_instance_setup(struct server_config *sc, const char *root, const char *customer,
			 struct err *err)
{
	char path[4096];

	/* Streamable HTTP only: legacy HTTP+SSE predates OAuth in MCP. */
	if (sc->transport != TRANSPORT_HTTP)
		return 0;
	if (oauth_store_path(root, sc->name, customer, path, sizeof(path), err))
		return -1;
	free(sc->token_file);
	free(sc->customer);
	sc->token_file = strdup(path);
	sc->customer = customer ? strdup(customer) : NULL;
	if (!sc->token_file || (customer && !sc->customer))
		return err_set(err, EXIT_FAILED, "out of memory");
	return 0;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool due(const json_t *tok)
{
	const json_t *exp = json_object_get(tok, "expires_at");
	double life = json_number_value(json_object_get(tok, "lifetime"));
	double ahead =
	    life > 0 && life / 10 < OAUTH_RENEW_AHEAD_S ? life / 10 : OAUTH_RENEW_AHEAD_S;

	return json_is_number(exp) && wall_now() >= json_number_value(exp) - ahead;
}

static const char *access_of(const json_t *state)
{
	return json_string_value(json_object_get(json_object_get(state, "token"), "access_token"));
}

static char *bearer(const char *access)
{
	char *out;

	return access && asprintf(&out, "Bearer %s", access) >= 0 ? out : NULL;
}

static bool sent_is(const char *sent, const char *access)
{
	return sent && access && !strncmp(sent, "Bearer ", 7) && !strcmp(sent + 7, access);
}

int oauth_token_finish(json_t *tok, const struct oauth_meta *m)
{
	if (json_object_set_new(tok, "token_endpoint", json_string(m->token_endpoint)) ||
	    json_object_set_new(tok, "issuer", json_string(m->issuer)) ||
	    json_object_set_new(tok, "resource", json_string(m->resource)))
		return -1;
	return 0;
}

int oauth_challenge_from_state(const json_t *state, struct oauth_challenge *out)
{
	const json_t *c = json_object_get(state, "challenge");
	const char *rm = json_string_value(json_object_get(c, "resource_metadata"));
	const char *sc = json_string_value(json_object_get(c, "scope"));

	memset(out, 0, sizeof(*out));
	out->bearer = c != NULL;
	if ((rm && !(out->resource_metadata = strdup(rm))) || (sc && !(out->scope = strdup(sc)))) {
		oauth_challenge_free(out);
		return -1;
	}
	return 0;
}

/* Refresh the token in @state (RFC 6749 section 6). @code gets the OAuth
 * error of a refusal. */
static int refresh(const struct server_config *sc, json_t *state, char *code, struct err *err)
{
	json_t *tok = json_object_get(state, "token"), *fresh;
	const char *rt = json_string_value(json_object_get(tok, "refresh_token"));
	const char *endpoint = json_string_value(json_object_get(tok, "token_endpoint"));
	const char *issuer = json_string_value(json_object_get(tok, "issuer"));
	const char *resource = json_string_value(json_object_get(tok, "resource"));
	struct oauth_client c = {0};
	char *form = NULL;
	int rc = -1;

	code[0] = '\0';
	if (!rt || !endpoint || !issuer)
		return err_set(err, EXIT_FAILED, "server '%s': no refresh token stored", sc->name);
	if (oauth_client_stored(sc, json_object_get(state, "client"), &c, err))
		return -1;
	if (oauth_form_add(&form, "grant_type", "refresh_token") ||
	    oauth_form_add(&form, "refresh_token", rt) ||
	    oauth_form_add(&form, "resource", resource)) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	fresh = oauth_token_request(endpoint, issuer, &c, form,
				    json_string_value(json_object_get(tok, "scope")),
				    oauth_timeout(sc), code, err);
	if (!fresh)
		goto out;
	/* A server that does not rotate keeps the old refresh token valid. */
	if ((!json_object_get(fresh, "refresh_token") &&
	     json_object_set(fresh, "refresh_token", json_object_get(tok, "refresh_token"))) ||
	    json_object_set(fresh, "token_endpoint", json_object_get(tok, "token_endpoint")) ||
	    json_object_set(fresh, "issuer", json_object_get(tok, "issuer")) ||
	    (resource && json_object_set(fresh, "resource", json_object_get(tok, "resource"))) ||
	    json_object_set_new(state, "token", fresh)) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	rc = 0;
out:
	if (form)
		explicit_bzero(form, strlen(form));
	free(form);
	oauth_client_free(&c);
	return rc;
}

int oauth_login_needed(const struct server_config *sc, const char *why, struct err *err)
{
	bool cust = sc->customer && strcmp(sc->customer, "default");

	return err_set(err, EXIT_UNREACHABLE, "server '%s' %s: run `mcpfs login %s%s%s`", sc->name,
		       why, sc->name, cust ? " --customer " : "", cust ? sc->customer : "");
}

/* Renew the token of @sc under the lock, unless another process (or
 * thread) did since @seen was read. 0 or -1 with @err. */
static int renew(const struct server_config *sc, const char *seen, struct err *err)
{
	struct oauth_challenge ch = {0};
	json_t *state;
	char code[64];
	int lock, rc = -1;

	lock = oauth_store_lock(sc->token_file, err);
	if (lock < 0)
		return -1;
	state = oauth_store_load(sc->token_file, sc->url, err);
	if (!state)
		goto out;
	if (access_of(state) && (!seen || strcmp(access_of(state), seen)) &&
	    !due(json_object_get(state, "token"))) {
		rc = 0; /* renewed meanwhile */
		goto out;
	}
	if (json_object_get(json_object_get(state, "token"), "refresh_token")) {
		rc = refresh(sc, state, code, err);
		/* Refused for good: drop it, so the server's 401 asks for a login
		 * rather than a second refresh with the same token. */
		if (rc && !strcmp(code, "invalid_grant") && !json_object_del(state, "token"))
			oauth_store_save(sc->token_file, state, NULL);
	} else if (oauth_is_headless(sc) && !oauth_challenge_from_state(state, &ch))
		rc = oauth_headless_token(sc, state, &ch, err);
	if (!rc)
		rc = oauth_store_save(sc->token_file, state, err);
out:
	oauth_challenge_free(&ch);
	json_decref(state);
	oauth_store_unlock(lock);
	return rc;
}

char *oauth_authorization(const struct server_config *sc)
{
	struct err e = {0};
	json_t *state;
	char *out = NULL, *seen;

	if (!sc->token_file)
		return NULL;
	state = oauth_store_load(sc->token_file, sc->url, &e);
	if (state && access_of(state) && due(json_object_get(state, "token"))) {
		seen = strdup(access_of(state));
		json_decref(state);
		/* A failed renewal sends the old token: the server's 401 says what next. */
		state = seen && !renew(sc, seen, &e) ? oauth_store_load(sc->token_file, sc->url, &e)
						     : NULL;
		if (!state && seen)
			out = bearer(seen);
		if (seen)
			explicit_bzero(seen, strlen(seen));
		free(seen);
	}
	if (state)
		out = bearer(access_of(state));
	json_decref(state);
	return out;
}

static int record_challenge(json_t *state, const struct oauth_challenge *ch, long status)
{
	json_t *c = json_object();
	const char *old_scope =
	    json_string_value(json_object_get(json_object_get(state, "challenge"), "scope"));
	char *scope = NULL;
	int rc;

	if (!c)
		return -1;
	/* A step-up (403) adds to what was asked before; a 401 states it anew. */
	if (ch->scope)
		scope = status == 403 ? oauth_scope_union(old_scope, ch->scope) : strdup(ch->scope);
	rc = (ch->resource_metadata &&
	      json_object_set_new(c, "resource_metadata", json_string(ch->resource_metadata))) ||
	     (scope && json_object_set_new(c, "scope", json_string(scope))) ||
	     json_object_set_new(state, "challenge", c);
	free(scope);
	return rc ? -1 : 0;
}

int oauth_challenged(const struct server_config *sc, long status, const char *www_authenticate,
		     const char *sent, struct err *err)
{
	struct oauth_challenge ch = {0};
	json_t *state = NULL;
	char code[64] = "";
	int lock = -1, rc = -1;
	bool had;

	if (!sc->token_file)
		return 0;
	if (oauth_challenge_parse(www_authenticate, &ch))
		return err_set(err, EXIT_FAILED, "out of memory");
	if (status == 403 && (!ch.error || strcmp(ch.error, "insufficient_scope"))) {
		rc = 0;
		goto out;
	}
	if (!crypto_lib_load(err))
		goto out;
	lock = oauth_store_lock(sc->token_file, err);
	if (lock < 0)
		goto out;
	state = oauth_store_load(sc->token_file, sc->url, err);
	if (!state || record_challenge(state, &ch, status)) {
		if (state)
			err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	had = access_of(state) != NULL;
	if (status == 401 && had && !sent_is(sent, access_of(state))) {
		rc = 1; /* another process renewed it meanwhile */
	} else if (status == 401 &&
		   json_object_get(json_object_get(state, "token"), "refresh_token")) {
		rc = refresh(sc, state, code, err) ? -1 : 1;
		if (rc < 0 && !strcmp(code, "invalid_grant")) {
			/* Revoked or expired for good: only a new login helps. */
			json_object_del(state, "token");
			rc = oauth_login_needed(sc, "needs a new login (its refresh was refused)",
						err);
		}
	} else if (oauth_is_headless(sc)) {
		rc = oauth_headless_token(sc, state, &ch, err) ? -1 : 1;
	} else if (status == 403) {
		rc = oauth_login_needed(sc,
					ch.scope ? "needs more access (a login with the scope "
						   "it asks for)"
						 : "needs more access",
					err);
	} else {
		if (had)
			json_object_del(state, "token");
		rc = oauth_login_needed(sc,
					had ? "refused its token (HTTP 401) and needs a new login"
					    : "needs login (HTTP 401)",
					err);
	}
	if (oauth_store_save(sc->token_file, state, rc < 0 ? NULL : err) && rc > 0)
		rc = -1;
out:
	oauth_challenge_free(&ch);
	json_decref(state);
	oauth_store_unlock(lock);
	return rc;
}
