/* Grants for services, with no browser: client_credentials, and the
 * identity assertion grant of enterprise-managed authorization (SEP-990:
 * an ID token from the enterprise's identity provider is exchanged there
 * for an ID-JAG, which the MCP server's authorization server takes as a
 * JWT bearer assertion). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../common/fsx.h"
#include "oauth_client.h"
#include "oauth_http.h"
#include "oauth_i.h"

#define ID_TOKEN_MAX (64u << 10)
#define TYPE_ID_JAG "urn:ietf:params:oauth:token-type:id-jag"

bool oauth_is_headless(const struct server_config *sc)
{
	const char *g = oauth_config_get(sc, "grant");

	return g && (!strcmp(g, "client_credentials") || !strcmp(g, "id-jag"));
}

static bool is_id_jag(const struct server_config *sc)
{
	const char *g = oauth_config_get(sc, "grant");

	return g && !strcmp(g, "id-jag");
}

/* The configured ID token: "id_token", or the file "id_token_file". New. */
static char *id_token(const struct server_config *sc, struct err *err)
{
	const char *v = oauth_config_get(sc, "id_token"),
		   *f = oauth_config_get(sc, "id_token_file");
	char *out = NULL;
	size_t len;
	int rc;

	if (v)
		out = strdup(v);
	else if (f) {
		rc = fsx_read(f, ID_TOKEN_MAX, &out, &len);
		if (rc) {
			err_set(err, EXIT_USAGE, "server '%s': oauth.id_token_file %s: %s",
				sc->name, f, strerror(-rc));
			return NULL;
		}
		out[strcspn(out, "\r\n")] = '\0';
	} else {
		err_set(err, EXIT_USAGE,
			"server '%s': \"grant\": \"id-jag\" needs \"id_token\" or "
			"\"id_token_file\" in its oauth config",
			sc->name);
		return NULL;
	}
	if (!out)
		err_set(err, EXIT_FAILED, "out of memory");
	return out;
}

/* The identity assertion for @m's authorization server, from the identity
 * provider. New, or NULL with @err. */
static char *id_jag(const struct server_config *sc, const struct oauth_meta *m, struct err *err)
{
	const char *endpoint = oauth_config_get(sc, "idp_token_endpoint");
	struct oauth_client idp = {.auth_method = "none"};
	char *subject, *form = NULL, *out = NULL;

	if (!endpoint || !oauth_config_get(sc, "idp_client_id")) {
		err_set(err, EXIT_USAGE,
			"server '%s': \"grant\": \"id-jag\" needs "
			"\"idp_token_endpoint\" and \"idp_client_id\" in its oauth config",
			sc->name);
		return NULL;
	}
	subject = id_token(sc, err);
	if (!subject)
		return NULL;
	idp.client_id = (char *)oauth_config_get(sc, "idp_client_id");
	idp.client_secret = (char *)oauth_config_get(sc, "idp_client_secret");
	if (idp.client_secret)
		idp.auth_method = "client_secret_post";
	if (oauth_form_add(&form, "grant_type",
			   "urn:ietf:params:oauth:grant-type:token-exchange") ||
	    oauth_form_add(&form, "requested_token_type", TYPE_ID_JAG) ||
	    oauth_form_add(&form, "audience", m->issuer) ||
	    oauth_form_add(&form, "resource", m->resource) ||
	    oauth_form_add(&form, "scope", m->scope) ||
	    oauth_form_add(&form, "subject_token", subject) ||
	    oauth_form_add(&form, "subject_token_type",
			   "urn:ietf:params:oauth:token-type:id_token"))
		err_set(err, EXIT_FAILED, "out of memory");
	else
		out =
		    oauth_token_exchange(endpoint, &idp, form, TYPE_ID_JAG, oauth_timeout(sc), err);
	explicit_bzero(subject, strlen(subject));
	free(subject);
	if (form)
		explicit_bzero(form, strlen(form));
	free(form);
	return out;
}

static char *grant_form(const struct server_config *sc, const struct oauth_meta *m, struct err *err)
{
	char *form = NULL, *assertion = NULL;
	int rc;

	if (is_id_jag(sc)) {
		assertion = id_jag(sc, m, err);
		if (!assertion)
			return NULL;
		rc = oauth_form_add(&form, "grant_type",
				    "urn:ietf:params:oauth:grant-type:jwt-bearer") ||
		     oauth_form_add(&form, "assertion", assertion);
		explicit_bzero(assertion, strlen(assertion));
		free(assertion);
	} else {
		rc = oauth_form_add(&form, "grant_type", "client_credentials") ||
		     oauth_form_add(&form, "scope", m->scope);
	}
	if (rc || oauth_form_add(&form, "resource", m->resource)) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	return form;
}

int oauth_headless_token(const struct server_config *sc, json_t *state,
			 const struct oauth_challenge *ch, struct err *err)
{
	json_t *registered = NULL, *tok = NULL, *cl;
	struct oauth_client c = {0};
	struct oauth_meta m = {0};
	char *form = NULL, code[64];
	int rc = -1;

	if (!oauth_config_get(sc, "client_id"))
		return err_set(err, EXIT_USAGE,
			       "server '%s': \"grant\": \"%s\" needs \"client_id\" in its oauth "
			       "config",
			       sc->name, oauth_config_get(sc, "grant"));
	if (oauth_discover(sc->url, ch, oauth_config_get(sc, "scope"), oauth_timeout(sc), &m,
			   err) ||
	    oauth_client_get(sc, &m, json_object_get(state, "client"), NULL, oauth_timeout(sc), &c,
			     &registered, err))
		goto out;
	form = grant_form(sc, &m, err);
	if (!form)
		goto out;
	tok = oauth_token_request(m.token_endpoint, m.issuer, &c, form, m.scope, oauth_timeout(sc),
				  code, err);
	if (!tok)
		goto out;
	cl = oauth_client_to_json(&c, m.issuer);
	if (!cl || oauth_token_finish(tok, &m) || json_object_set_new(state, "client", cl) ||
	    json_object_set(state, "token", tok)) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	rc = 0;
out:
	json_decref(tok);
	json_decref(registered);
	if (form)
		explicit_bzero(form, strlen(form));
	free(form);
	oauth_client_free(&c);
	oauth_meta_free(&m);
	return rc;
}
