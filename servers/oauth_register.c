#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fsx.h"
#include "oauth_client.h"
#include "oauth_http.h"

#define OAUTH_KEY_MAX (64u << 10)

const char *oauth_config_get(const struct server_config *sc, const char *key)
{
	size_t i, n = strlen(key);

	for (i = 0; i < sc->noauth; i++)
		if (!strncmp(sc->oauth[i], key, n) && sc->oauth[i][n] == '=')
			return sc->oauth[i] + n + 1;
	return NULL;
}

static bool supports(const json_t *methods, const char *m)
{
	const json_t *v;
	size_t i;

	/* RFC 8414: an absent list means client_secret_basic only. */
	if (!json_is_array(methods))
		return !strcmp(m, "client_secret_basic");
	json_array_foreach(methods, i, v) if (json_is_string(v) &&
					      !strcmp(json_string_value(v), m)) return true;
	return false;
}

/* How a client with (or without) a secret authenticates at this server. */
static const char *pick_method(const json_t *methods, bool secret)
{
	if (!secret)
		return "none";
	if (supports(methods, "client_secret_basic"))
		return "client_secret_basic";
	if (supports(methods, "client_secret_post"))
		return "client_secret_post";
	return "client_secret_basic";
}

static int set(char **slot, const char *v, struct err *err)
{
	if (!v)
		return 0;
	*slot = strdup(v);
	return *slot ? 0 : err_set(err, EXIT_FAILED, "out of memory");
}

static int from_config(const struct server_config *sc, const struct oauth_meta *m,
		       struct oauth_client *c, struct err *err)
{
	const char *key_file = oauth_config_get(sc, "private_key_file");
	const char *method = oauth_config_get(sc, "token_endpoint_auth_method");
	size_t len;
	int rc;

	if (set(&c->client_id, oauth_config_get(sc, "client_id"), err) ||
	    set(&c->client_secret, oauth_config_get(sc, "client_secret"), err) ||
	    set(&c->signing_alg, oauth_config_get(sc, "signing_alg"), err))
		return -1;
	if (key_file) {
		rc = fsx_read(key_file, OAUTH_KEY_MAX, &c->private_key_pem, &len);
		if (rc)
			return err_set(err, EXIT_USAGE,
				       "server '%s': oauth.private_key_file %s: %s", sc->name,
				       key_file, strerror(-rc));
		if (!method)
			method = "private_key_jwt";
	}
	if (!method)
		method = pick_method(m ? m->auth_methods : NULL, c->client_secret != NULL);
	c->source = "config";
	return set(&c->auth_method, method, err);
}

static int from_stored(const json_t *stored, struct oauth_client *c, struct err *err)
{
	c->source = "registered";
	if (set(&c->client_id, json_string_value(json_object_get(stored, "client_id")), err) ||
	    set(&c->client_secret, json_string_value(json_object_get(stored, "client_secret")),
		err) ||
	    set(&c->auth_method,
		json_string_value(json_object_get(stored, "token_endpoint_auth_method")), err))
		return -1;
	if (!c->auth_method)
		return set(&c->auth_method, c->client_secret ? "client_secret_basic" : "none", err);
	return 0;
}

/* RFC 7591 dynamic registration as a native app with a loopback redirect. */
static int dynamic(const struct server_config *sc, const struct oauth_meta *m,
		   const char *redirect_uri, double timeout_s, struct oauth_client *c,
		   struct err *err)
{
	const char *name = oauth_config_get(sc, "client_name");
	const char *want = supports(m->auth_methods, "none") || !json_is_array(m->auth_methods)
			       ? "none"
			       : pick_method(m->auth_methods, true);
	struct oauth_http_req req = {.method = "POST",
				     .url = m->registration_endpoint,
				     .content_type = "application/json",
				     .timeout_s = timeout_s};
	struct oauth_http_resp resp;
	json_t *body, *ans = NULL;
	const char *method;
	char *text;
	int rc = -1;

	/* A native app with a loopback redirect (RFC 8252, OpenID DCR application_type). */
	body = json_pack("{s:s, s:s, s:[s], s:[s,s], s:[s], s:s}", "application_type", "native",
			 "client_name", name ? name : "mcpfs", "redirect_uris",
			 redirect_uri ? redirect_uri : "http://127.0.0.1/callback", "grant_types",
			 "authorization_code", "refresh_token", "response_types", "code",
			 "token_endpoint_auth_method", want);
	text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	json_decref(body);
	if (!text)
		return err_set(err, EXIT_FAILED, "out of memory");
	req.body = text;
	if (oauth_http(&req, &resp, err) == 0)
		ans =
		    oauth_http_json(&resp, "client registration at", m->registration_endpoint, err);
	oauth_http_resp_free(&resp);
	free(text);
	if (!ans)
		return -1;
	if (!json_is_string(json_object_get(ans, "client_id"))) {
		err_set(err, EXIT_UNREACHABLE, "client registration at %.300s: no client_id",
			m->registration_endpoint);
		goto out;
	}
	method = json_string_value(json_object_get(ans, "token_endpoint_auth_method"));
	if (set(&c->client_id, json_string_value(json_object_get(ans, "client_id")), err) ||
	    set(&c->client_secret, json_string_value(json_object_get(ans, "client_secret")), err) ||
	    set(&c->auth_method,
		method ? method
		       : pick_method(m->auth_methods, json_object_get(ans, "client_secret")),
		err))
		goto out;
	c->source = "registered";
	rc = 0;
out:
	json_decref(ans);
	return rc;
}

int oauth_client_get(const struct server_config *sc, const struct oauth_meta *m,
		     const json_t *stored, const char *redirect_uri, double timeout_s,
		     struct oauth_client *out, json_t **registered, struct err *err)
{
	const char *cimd = oauth_config_get(sc, "client_metadata_url");
	const char *issuer = json_string_value(json_object_get(stored, "issuer"));
	struct oauth_client c = {0};
	int rc;

	*registered = NULL;
	if (oauth_config_get(sc, "client_id")) {
		rc = from_config(sc, m, &c, err);
	} else if (cimd && m->cimd_supported) {
		c.source = "metadata document";
		rc = set(&c.client_id, cimd, err) || set(&c.auth_method, "none", err) ? -1 : 0;
	} else if (issuer && !strcmp(issuer, m->issuer) &&
		   json_is_string(json_object_get(stored, "client_id"))) {
		rc = from_stored(stored, &c, err);
	} else if (m->registration_endpoint) {
		rc = dynamic(sc, m, redirect_uri, timeout_s, &c, err);
		if (!rc && !(*registered = oauth_client_to_json(&c, m->issuer)))
			rc = err_set(err, EXIT_FAILED, "out of memory");
	} else if (m->cimd_supported) {
		rc =
		    err_set(err, EXIT_USAGE,
			    "server '%s': authorization server %.200s offers no dynamic "
			    "registration: set \"oauth\": {\"client_metadata_url\": ...} (a client "
			    "ID metadata document) or {\"client_id\": ...} (a client registered "
			    "there) in its config",
			    sc->name, m->issuer);
	} else {
		rc = err_set(
		    err, EXIT_USAGE,
		    "server '%s': authorization server %.200s offers neither dynamic "
		    "registration nor client ID metadata documents: register a client there "
		    "and set \"oauth\": {\"client_id\": ...} in its config",
		    sc->name, m->issuer);
	}
	if (rc)
		oauth_client_free(&c);
	else
		*out = c;
	return rc;
}

void oauth_client_free(struct oauth_client *c)
{
	if (!c)
		return;
	free(c->client_id);
	if (c->client_secret)
		explicit_bzero(c->client_secret, strlen(c->client_secret));
	free(c->client_secret);
	free(c->auth_method);
	if (c->private_key_pem)
		explicit_bzero(c->private_key_pem, strlen(c->private_key_pem));
	free(c->private_key_pem);
	free(c->signing_alg);
	memset(c, 0, sizeof(*c));
}

int oauth_client_stored(const struct server_config *sc, const json_t *stored,
			struct oauth_client *out, struct err *err)
{
	const char *method =
	    json_string_value(json_object_get(stored, "token_endpoint_auth_method"));
	struct oauth_client c = {0};
	int rc;

	if (oauth_config_get(sc, "client_id")) {
		rc = from_config(sc, NULL, &c, err);
		if (!rc && method && !oauth_config_get(sc, "token_endpoint_auth_method")) {
			free(c.auth_method);
			c.auth_method = NULL;
			rc = set(&c.auth_method, method, err);
		}
	} else if (json_is_string(json_object_get(stored, "client_id"))) {
		rc = from_stored(stored, &c, err);
	} else {
		rc = err_set(err, EXIT_FAILED, "server '%s': no client registration stored",
			     sc->name);
	}
	if (rc)
		oauth_client_free(&c);
	else
		*out = c;
	return rc;
}

json_t *oauth_client_to_json(const struct oauth_client *c, const char *issuer)
{
	json_t *j = json_pack("{s:s, s:s, s:s}", "issuer", issuer, "client_id", c->client_id,
			      "token_endpoint_auth_method", c->auth_method);

	if (j && c->client_secret && !strcmp(c->source, "registered") &&
	    json_object_set_new(j, "client_secret", json_string(c->client_secret))) {
		json_decref(j);
		return NULL;
	}
	return j;
}
