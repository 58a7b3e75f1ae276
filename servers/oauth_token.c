#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "oauth_client.h"
#include "oauth_crypto.h"
#include "oauth_http.h"

#define ASSERTION_LIFETIME_S 300

/* RFC 6749 section 2.3.1: id and secret are form-encoded before base64. */
static char *basic_header(const struct oauth_client *c)
{
	char *id = oauth_form_escape(c->client_id);
	char *secret = oauth_form_escape(c->client_secret ? c->client_secret : "");
	char *pair = NULL, *b64 = NULL, *out = NULL;

	if (id && secret && asprintf(&pair, "%s:%s", id, secret) < 0)
		pair = NULL;
	b64 = pair ? oauth_b64(pair, strlen(pair)) : NULL;
	if (b64 && asprintf(&out, "Basic %s", b64) < 0)
		out = NULL;
	if (secret)
		explicit_bzero(secret, strlen(secret));
	if (pair)
		explicit_bzero(pair, strlen(pair));
	if (b64)
		explicit_bzero(b64, strlen(b64));
	free(id);
	free(secret);
	free(pair);
	free(b64);
	return out;
}

/* RFC 7523 section 3: a short-lived assertion signed with the client's key. */
static int add_assertion(char **form, const struct oauth_client *c, const char *audience,
			 struct err *err)
{
	char *jti = oauth_random_text(16), *claims = NULL, *jwt;
	time_t now = time(NULL);
	json_t *j;
	int rc;

	if (!c->private_key_pem) {
		free(jti);
		return err_set(
		    err, EXIT_USAGE,
		    "private_key_jwt needs \"private_key_file\" in the server's oauth config");
	}
	j = jti ? json_pack("{s:s, s:s, s:s, s:I, s:I, s:s}", "iss", c->client_id, "sub",
			    c->client_id, "aud", audience, "iat", (json_int_t)now, "exp",
			    (json_int_t)now + ASSERTION_LIFETIME_S, "jti", jti)
		: NULL;
	free(jti);
	claims = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!claims)
		return err_set(err, EXIT_FAILED, "out of memory");
	jwt = oauth_jwt_sign(claims, c->private_key_pem, c->signing_alg ? c->signing_alg : "ES256",
			     err);
	free(claims);
	if (!jwt)
		return -1;
	rc = oauth_form_add(form, "client_assertion_type",
			    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer") ||
	     oauth_form_add(form, "client_assertion", jwt);
	free(jwt);
	return rc ? err_set(err, EXIT_FAILED, "out of memory") : 0;
}

/* The answer as the store keeps it: an absolute expiry instead of expires_in. */
static json_t *normalize(const json_t *ans, const char *scope, const char *url, struct err *err)
{
	const char *access = json_string_value(json_object_get(ans, "access_token"));
	const char *type = json_string_value(json_object_get(ans, "token_type"));
	const json_t *exp = json_object_get(ans, "expires_in");
	const json_t *refresh = json_object_get(ans, "refresh_token");
	const json_t *granted = json_object_get(ans, "scope");
	json_t *t;

	if (!access || !*access) {
		err_set(err, EXIT_UNREACHABLE, "token endpoint %.300s: no access_token", url);
		return NULL;
	}
	if (type && strcasecmp(type, "Bearer")) {
		err_set(err, EXIT_UNREACHABLE,
			"token endpoint %.300s: token_type %.40s, not Bearer", url, type);
		return NULL;
	}
	t = json_pack("{s:s}", "access_token", access);
	if (!t)
		goto out_oom;
	if (json_is_string(refresh) && json_object_set(t, "refresh_token", (json_t *)refresh))
		goto out_oom;
	if (json_is_number(exp) && json_number_value(exp) > 0 &&
	    (json_object_set_new(t, "expires_at",
				 json_real((double)time(NULL) + json_number_value(exp))) ||
	     json_object_set_new(t, "lifetime", json_real(json_number_value(exp)))))
		goto out_oom;
	if (json_is_string(granted) ? json_object_set(t, "scope", (json_t *)granted)
	    : scope		    ? json_object_set_new(t, "scope", json_string(scope))
				    : 0)
		goto out_oom;
	return t;
out_oom:
	json_decref(t);
	err_set(err, EXIT_FAILED, "out of memory");
	return NULL;
}

static void refusal(const struct oauth_http_resp *resp, const char *url, char *error_code,
		    struct err *err)
{
	json_t *j = resp->body ? json_loadb(resp->body, resp->len, 0, NULL) : NULL;
	const char *code = json_string_value(json_object_get(j, "error"));
	const char *desc = json_string_value(json_object_get(j, "error_description"));

	if (error_code && code)
		snprintf(error_code, 64, "%s", code);
	if (code)
		err_set(err, EXIT_UNREACHABLE, "token endpoint %.200s: HTTP %ld: %.60s%s%.150s",
			url, resp->status, code, desc ? ": " : "", desc ? desc : "");
	else
		err_set(err, EXIT_UNREACHABLE, "token endpoint %.200s: HTTP %ld", url,
			resp->status);
	json_decref(j);
}

/* POST @form with @c's authentication; the answer (new) or NULL with @err. */
static json_t *post_token(const char *token_endpoint, const char *issuer,
			  const struct oauth_client *c, const char *form, double timeout_s,
			  char *error_code, struct err *err)
{
	struct oauth_http_req req = {.method = "POST",
				     .url = token_endpoint,
				     .content_type = "application/x-www-form-urlencoded",
				     .timeout_s = timeout_s};
	struct oauth_http_resp resp = {0};
	char *body = strdup(form), *auth = NULL;
	json_t *ans = NULL;
	const char *m = c->auth_method ? c->auth_method : "none";
	int rc = 0;

	if (error_code)
		error_code[0] = '\0';
	if (!body) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	if (!strcmp(m, "client_secret_basic")) {
		auth = basic_header(c);
		rc = auth ? 0 : err_set(err, EXIT_FAILED, "out of memory");
	} else if (!strcmp(m, "client_secret_post")) {
		rc = oauth_form_add(&body, "client_id", c->client_id) ||
		     oauth_form_add(&body, "client_secret",
				    c->client_secret ? c->client_secret : "");
	} else if (!strcmp(m, "private_key_jwt")) {
		rc = oauth_form_add(&body, "client_id", c->client_id) ||
		     add_assertion(&body, c, issuer, err);
	} else {
		rc = oauth_form_add(&body, "client_id", c->client_id);
	}
	if (rc || !body) {
		if (!err->status)
			err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	req.body = body;
	req.authorization = auth;
	if (oauth_http(&req, &resp, err) < 0)
		goto out;
	if (resp.status < 200 || resp.status > 299) {
		refusal(&resp, token_endpoint, error_code, err);
		goto out;
	}
	ans = oauth_http_json(&resp, "token endpoint", token_endpoint, err);
out:
	if (resp.body)
		explicit_bzero(resp.body, resp.len);
	oauth_http_resp_free(&resp);
	if (body)
		explicit_bzero(body, strlen(body));
	free(body);
	if (auth)
		explicit_bzero(auth, strlen(auth));
	free(auth);
	return ans;
}

json_t *oauth_token_request(const char *token_endpoint, const char *issuer,
			    const struct oauth_client *c, const char *form, const char *scope,
			    double timeout_s, char *error_code, struct err *err)
{
	json_t *ans = post_token(token_endpoint, issuer, c, form, timeout_s, error_code, err);
	json_t *out = ans ? normalize(ans, scope, token_endpoint, err) : NULL;

	json_decref(ans);
	return out;
}

char *oauth_token_exchange(const char *token_endpoint, const struct oauth_client *c,
			   const char *form, const char *want_type, double timeout_s,
			   struct err *err)
{
	json_t *ans = post_token(token_endpoint, token_endpoint, c, form, timeout_s, NULL, err);
	const char *type = json_string_value(json_object_get(ans, "issued_token_type"));
	const char *tok = json_string_value(json_object_get(ans, "access_token"));
	char *out = NULL;

	if (ans && (!tok || !type || strcmp(type, want_type)))
		err_set(err, EXIT_UNREACHABLE, "token exchange at %.300s: no %s issued",
			token_endpoint, want_type);
	else if (ans && !(out = strdup(tok)))
		err_set(err, EXIT_FAILED, "out of memory");
	json_decref(ans);
	return out;
}
