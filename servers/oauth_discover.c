#define _GNU_SOURCE
#include "oauth_discover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oauth_http.h"

/* @url's origin (scheme://authority) into @origin, and the path (no query
 * or fragment, no trailing '/') into @path. */
static int split_url(const char *url, char *origin, size_t on, char *path, size_t pn)
{
	const char *auth = strstr(url, "://"), *p;
	size_t olen, plen;

	if (!auth)
		return -1;
	p = auth + 3 + strcspn(auth + 3, "/?#");
	olen = (size_t)(p - url);
	plen = *p == '/' ? strcspn(p, "?#") : 0;
	while (plen && p[plen - 1] == '/')
		plen--;
	if (olen >= on || plen >= pn)
		return -1;
	memcpy(origin, url, olen);
	origin[olen] = '\0';
	memcpy(path, p, plen);
	path[plen] = '\0';
	return 0;
}

/* GET @url as JSON. 1: found (*@out new); 0: not there (a non-2xx status);
 * -1: @err (unreachable, or a 2xx answer that is not a JSON object). */
static int fetch_doc(const char *url, const char *what, double timeout_s, json_t **out,
		     struct err *err)
{
	struct oauth_http_req req = {
	    .method = "GET", .url = url, .timeout_s = timeout_s, .protocol_version = "2025-11-25"};
	struct oauth_http_resp resp;
	int rc;

	*out = NULL;
	if (oauth_http(&req, &resp, err) < 0) {
		oauth_http_resp_free(&resp);
		return -1;
	}
	rc = 0;
	if (resp.status >= 200 && resp.status <= 299) {
		*out = oauth_http_json(&resp, what, url, err);
		rc = *out ? 1 : -1;
	}
	oauth_http_resp_free(&resp);
	return rc;
}

static bool same_origin(const char *a, const char *b)
{
	return !strcasecmp(a, b);
}

/* RFC 9728 section 3.3 and the MCP spec: the metadata must be about this
 * server: same origin, and a resource path that is the server's path or a
 * folder above it. */
static bool resource_matches(const char *resource, const char *server_url)
{
	char ro[512], rp[2048], so[512], sp[2048];
	size_t n;

	if (split_url(resource, ro, sizeof(ro), rp, sizeof(rp)) ||
	    split_url(server_url, so, sizeof(so), sp, sizeof(sp)) || !same_origin(ro, so))
		return false;
	n = strlen(rp);
	return !strncmp(sp, rp, n) && (sp[n] == '\0' || sp[n] == '/');
}

static char *join(const char *a, const char *b, const char *c)
{
	char *out;

	return asprintf(&out, "%s%s%s", a, b, c) < 0 ? NULL : out;
}

char *oauth_scope_union(const char *scope, const char *more)
{
	char *out = strdup(scope ? scope : ""), *copy, *w, *save = NULL, *next;
	size_t wl;
	const char *p;
	bool have;

	if (!out || !more)
		return out;
	copy = strdup(more);
	if (!copy) {
		free(out);
		return NULL;
	}
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		wl = strlen(w);
		have = false;
		for (p = out; *p; p += strspn(p, " ")) {
			if (!strncmp(p, w, wl) && (p[wl] == ' ' || !p[wl]))
				have = true;
			p += strcspn(p, " ");
		}
		if (have)
			continue;
		next = join(out, *out ? " " : "", w);
		free(out);
		out = next;
		if (!out)
			break;
	}
	free(copy);
	return out;
}

static char *words(const json_t *arr)
{
	char *out = NULL, *next;
	const json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
	{
		if (!json_is_string(v))
			continue;
		next = oauth_scope_union(out, json_string_value(v));
		free(out);
		out = next;
		if (!out)
			return NULL;
	}
	return out;
}

static bool has_word(const json_t *arr, const char *w)
{
	const json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) if (json_is_string(v) &&
					  !strcmp(json_string_value(v), w)) return true;
	return false;
}

/* The protected resource metadata: 1 found, 0 none, -1 error. */
static int find_prm(const char *server_url, const struct oauth_challenge *ch, double timeout_s,
		    json_t **prm, struct err *err)
{
	char origin[512], path[2048], *url;
	int rc;

	if (ch && ch->resource_metadata) {
		rc = fetch_doc(ch->resource_metadata, "protected resource metadata", timeout_s, prm,
			       err);
		if (rc == 0)
			err_set(err, EXIT_UNREACHABLE,
				"protected resource metadata %.300s (named by the server's 401): "
				"not found",
				ch->resource_metadata);
		return rc > 0 ? 1 : -1;
	}
	if (split_url(server_url, origin, sizeof(origin), path, sizeof(path)))
		return err_set(err, EXIT_USAGE, "%.300s: not a URL", server_url);
	if (path[0]) {
		url = join(origin, "/.well-known/oauth-protected-resource", path);
		if (!url)
			return err_set(err, EXIT_FAILED, "out of memory");
		rc = fetch_doc(url, "protected resource metadata", timeout_s, prm, err);
		free(url);
		if (rc)
			return rc;
	}
	url = join(origin, "/.well-known/oauth-protected-resource", "");
	if (!url)
		return err_set(err, EXIT_FAILED, "out of memory");
	rc = fetch_doc(url, "protected resource metadata", timeout_s, prm, err);
	free(url);
	return rc;
}

/* The authorization server's metadata, in the spec's order for an issuer
 * with and without a path: 1 found, 0 none, -1 error. */
static int find_as_meta(const char *issuer, double timeout_s, json_t **meta, char **from,
			struct err *err)
{
	char origin[512], path[2048];
	char *urls[3] = {NULL, NULL, NULL};
	int i, n, rc = 0;

	if (split_url(issuer, origin, sizeof(origin), path, sizeof(path)))
		return err_set(err, EXIT_UNREACHABLE, "authorization server %.300s: not a URL",
			       issuer);
	urls[0] = join(origin, "/.well-known/oauth-authorization-server", path);
	if (path[0]) {
		urls[1] = join(origin, "/.well-known/openid-configuration", path);
		urls[2] = join(origin, path, "/.well-known/openid-configuration");
		n = 3;
	} else {
		urls[1] = join(origin, "/.well-known/openid-configuration", "");
		n = 2;
	}
	for (i = 0; i < n && !rc; i++) {
		if (!urls[i]) {
			rc = err_set(err, EXIT_FAILED, "out of memory");
			break;
		}
		rc = fetch_doc(urls[i], "authorization server metadata", timeout_s, meta, err);
		if (rc > 0)
			*from = strdup(urls[i]);
	}
	for (i = 0; i < 3; i++)
		free(urls[i]);
	return rc;
}

static bool same_issuer(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la && a[la - 1] == '/')
		la--;
	while (lb && b[lb - 1] == '/')
		lb--;
	return la == lb && !strncmp(a, b, la);
}

static int take_endpoint(const json_t *meta, const char *key, const char *fallback,
			 const char *from, char **out, struct err *err)
{
	const char *v = json_string_value(json_object_get(meta, key));

	if (!v)
		v = fallback;
	if (!v)
		return 0;
	if (!oauth_http_url_allowed(v))
		return err_set(err, EXIT_UNREACHABLE,
			       "authorization server metadata %.200s: %s %.200s is not https", from,
			       key, v);
	*out = strdup(v);
	return *out ? 0 : err_set(err, EXIT_FAILED, "out of memory");
}

static int select_scope(struct oauth_meta *m, const struct oauth_challenge *ch, const json_t *prm,
			const json_t *as_meta, const char *extra)
{
	const json_t *as_scopes = json_object_get(as_meta, "scopes_supported");
	char *s = NULL, *next;

	if (ch && ch->scope)
		s = strdup(ch->scope);
	else if (json_is_array(json_object_get(prm, "scopes_supported")))
		s = words(json_object_get(prm, "scopes_supported"));
	if (extra && *extra) {
		next = oauth_scope_union(s, extra);
		free(s);
		s = next;
	}
	/* A refresh token needs offline_access where the server lists it (SEP-2207). */
	if (has_word(as_scopes, "offline_access")) {
		next = oauth_scope_union(s, "offline_access");
		free(s);
		s = next;
	}
	if (s && !*s) {
		free(s);
		s = NULL;
	}
	m->scope = s;
	return 0;
}

int oauth_discover(const char *server_url, const struct oauth_challenge *ch,
		   const char *extra_scope, double timeout_s, struct oauth_meta *out,
		   struct err *err)
{
	char origin[512], path[2048], *from = NULL, *fb_auth = NULL, *fb_token = NULL,
				      *fb_reg = NULL;
	json_t *prm = NULL, *as_meta = NULL;
	struct oauth_meta m = {0};
	const char *res, *as, *iss;
	int rc;

	if (split_url(server_url, origin, sizeof(origin), path, sizeof(path)))
		return err_set(err, EXIT_USAGE, "%.300s: not a URL", server_url);
	rc = find_prm(server_url, ch, timeout_s, &prm, err);
	if (rc < 0)
		goto out;
	if (prm) {
		res = json_string_value(json_object_get(prm, "resource"));
		if (res && !resource_matches(res, server_url)) {
			rc = err_set(err, EXIT_UNREACHABLE,
				     "protected resource metadata names resource %.200s, "
				     "not this server (%.200s): refusing to authorize",
				     res, server_url);
			goto out;
		}
		as = json_string_value(
		    json_array_get(json_object_get(prm, "authorization_servers"), 0));
		if (!as) {
			rc = err_set(err, EXIT_UNREACHABLE,
				     "protected resource metadata of %.300s names no "
				     "authorization_servers",
				     server_url);
			goto out;
		}
		m.resource = strdup(res ? res : server_url);
		m.issuer = strdup(as);
	} else {
		/* 2025-03-26: the server's origin is its authorization server. */
		m.resource = strndup(server_url, strcspn(server_url, "#"));
		m.issuer = strdup(origin);
	}
	if (!m.resource || !m.issuer) {
		rc = err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	rc = find_as_meta(m.issuer, timeout_s, &as_meta, &from, err);
	if (rc < 0)
		goto out;
	if (as_meta) {
		iss = json_string_value(json_object_get(as_meta, "issuer"));
		/* RFC 8414 section 3.3; a 2025-03-26 server (no resource
		 * metadata) has no issuer of record to compare with. */
		if (prm && (!iss || !same_issuer(iss, m.issuer))) {
			rc = err_set(err, EXIT_UNREACHABLE,
				     "authorization server metadata %.200s: issuer %.150s does "
				     "not match %.150s",
				     from, iss ? iss : "(missing)", m.issuer);
			goto out;
		}
		m.iss_parameter = json_is_true(
		    json_object_get(as_meta, "authorization_response_iss_parameter_supported"));
		/* A 2025-03-26 server's metadata is the only word on its name. */
		if (!prm && iss) {
			free(m.issuer);
			m.issuer = strdup(iss);
			if (!m.issuer) {
				rc = err_set(err, EXIT_FAILED, "out of memory");
				goto out;
			}
		}
		m.pkce_s256 =
		    has_word(json_object_get(as_meta, "code_challenge_methods_supported"), "S256");
		m.cimd_supported =
		    json_is_true(json_object_get(as_meta, "client_id_metadata_document_supported"));
		m.auth_methods =
		    json_incref(json_object_get(as_meta, "token_endpoint_auth_methods_supported"));
	} else {
		m.pkce_s256 = true;
		fb_auth = join(origin, "/authorize", "");
		fb_token = join(origin, "/token", "");
		fb_reg = join(origin, "/register", "");
		if (!fb_auth || !fb_token || !fb_reg) {
			rc = err_set(err, EXIT_FAILED, "out of memory");
			goto out;
		}
	}
	if (!from)
		from = strdup(m.issuer);
	rc = -1;
	if (!from ||
	    take_endpoint(as_meta, "authorization_endpoint", fb_auth, from,
			  &m.authorization_endpoint, err) ||
	    take_endpoint(as_meta, "token_endpoint", fb_token, from, &m.token_endpoint, err) ||
	    take_endpoint(as_meta, "registration_endpoint", fb_reg, from, &m.registration_endpoint,
			  err))
		goto out;
	if (!m.authorization_endpoint || !m.token_endpoint) {
		err_set(err, EXIT_UNREACHABLE,
			"authorization server metadata %.300s: no authorization_endpoint or "
			"token_endpoint",
			from);
		goto out;
	}
	select_scope(&m, ch, prm, as_meta, extra_scope);
	rc = 0;
out:
	if (rc)
		oauth_meta_free(&m);
	else
		*out = m;
	json_decref(prm);
	json_decref(as_meta);
	free(from);
	free(fb_auth);
	free(fb_token);
	free(fb_reg);
	return rc ? -1 : 0;
}

void oauth_meta_free(struct oauth_meta *m)
{
	if (!m)
		return;
	free(m->resource);
	free(m->issuer);
	free(m->authorization_endpoint);
	free(m->token_endpoint);
	free(m->registration_endpoint);
	free(m->scope);
	json_decref(m->auth_methods);
	memset(m, 0, sizeof(*m));
}
