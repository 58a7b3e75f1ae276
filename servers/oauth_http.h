/* One synchronous HTTP exchange with an OAuth party (the MCP server's
 * metadata, the authorization server), over the dlopen'ed libcurl: no
 * redirects followed, a time limit, a ceiling on the body. Only https, or
 * http to a loopback host, is ever contacted (oauth_http_url_allowed). */
#ifndef MCPFS_SERVERS_OAUTH_HTTP_H
#define MCPFS_SERVERS_OAUTH_HTTP_H

#include <jansson.h>
#include <stdbool.h>

#include "../common/err.h"

#define OAUTH_HTTP_BODY_MAX (1u << 20)

struct oauth_http_req {
	const char *method; /* "GET" or "POST" */
	const char *url;
	const char *content_type;     /* of @body; NULL: none */
	const char *body;	      /* NULL: none */
	const char *accept;	      /* NULL: application/json */
	const char *authorization;    /* the whole Authorization value; NULL: none */
	const char *protocol_version; /* MCP-Protocol-Version; NULL: none */
	double timeout_s;
};

struct oauth_http_resp {
	long status; /* 0 when no answer came */
	char *body;  /* owned, NUL-terminated; may be NULL */
	size_t len;
	char *www_authenticate; /* owned: the first WWW-Authenticate value, or NULL */
	char *content_type;	/* owned, or NULL */
};

/* Run @req. Returns 0 when an answer (any status) arrived, else -1 with
 * @err saying why in one line (EXIT_UNREACHABLE). @resp is filled either way
 * as far as it got; free it with oauth_http_resp_free. */
int oauth_http(const struct oauth_http_req *req, struct oauth_http_resp *resp, struct err *err);
void oauth_http_resp_free(struct oauth_http_resp *resp);

/* The body of a 2xx answer as a JSON object (new), or NULL with @err naming
 * @what and @url (a status, not JSON, not an object). */
json_t *oauth_http_json(const struct oauth_http_resp *resp, const char *what, const char *url,
			struct err *err);

/* True for https URLs, and http ones whose host is loopback (localhost,
 * 127.0.0.0/8, [::1]): RFC 8252 and the MCP spec allow nothing else for
 * authorization endpoints. */
bool oauth_http_url_allowed(const char *url);

/* Append "name=value&" form-encoded (application/x-www-form-urlencoded) to
 * the new string *@form (NULL: start one). A NULL @value appends nothing.
 * Returns 0 or -ENOMEM (then *@form is freed and NULL). */
int oauth_form_add(char **form, const char *name, const char *value);
/* @s form-encoded, new; NULL on allocation failure. */
char *oauth_form_escape(const char *s);

#endif
