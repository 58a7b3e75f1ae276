#define _GNU_SOURCE
#include "oauth_http.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/buf.h"
#include "curl_lib.h"

struct exchange {
	struct buf body;
	struct oauth_http_resp *resp;
	bool too_big;
};

static char *trimmed_dup(const char *p, size_t len)
{
	while (len && (*p == ' ' || *p == '\t')) {
		p++;
		len--;
	}
	while (len && (p[len - 1] == '\r' || p[len - 1] == '\n' || p[len - 1] == ' '))
		len--;
	return strndup(p, len);
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
	struct exchange *x = ctx;
	size_t len = size * n;

	/* A new status line (after 100 Continue) starts the headers over. */
	if (len >= 5 && !strncmp(p, "HTTP/", 5)) {
		free(x->resp->www_authenticate);
		x->resp->www_authenticate = NULL;
	} else if (len > 17 && !strncasecmp(p, "www-authenticate:", 17) &&
		   !x->resp->www_authenticate) {
		x->resp->www_authenticate = trimmed_dup(p + 17, len - 17);
	}
	return len;
}

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	struct exchange *x = ctx;

	if (buf_append(&x->body, p, size * n)) {
		x->too_big = true;
		return 0;
	}
	return size * n;
}

static struct curl_slist *add(struct curl_slist *l, bool *oom, const char *fmt, const char *v)
{
	struct curl_slist *n;
	char *line;

	if (*oom || !v)
		return l;
	if (asprintf(&line, fmt, v) < 0) {
		*oom = true;
		return l;
	}
	n = curl_lib->slist_append(l, line);
	free(line);
	if (!n)
		*oom = true;
	return n ? n : l;
}

int oauth_http(const struct oauth_http_req *req, struct oauth_http_resp *resp, struct err *err)
{
	struct exchange x = {.resp = resp};
	struct curl_slist *h = NULL;
	char *type = NULL;
	bool oom = false;
	CURLcode rc;
	CURL *e;
	int ret = -1;

	memset(resp, 0, sizeof(*resp));
	if (!oauth_http_url_allowed(req->url)) {
		err_set(err, EXIT_UNREACHABLE,
			"%.300s: refused: OAuth endpoints must be https (or http on loopback)",
			req->url);
		return -1;
	}
	if (!curl_lib_load(err))
		return -1;
	buf_init(&x.body, OAUTH_HTTP_BODY_MAX);
	h = add(h, &oom, "Accept: %s", req->accept ? req->accept : "application/json");
	h = add(h, &oom, "Content-Type: %s", req->content_type);
	h = add(h, &oom, "Authorization: %s", req->authorization);
	h = add(h, &oom, "MCP-Protocol-Version: %s", req->protocol_version);
	e = oom ? NULL : curl_lib->easy_init();
	if (!e) {
		err_set(err, EXIT_UNREACHABLE, "%s %.300s: out of memory", req->method, req->url);
		goto out;
	}
	curl_lib->easy_setopt(e, CURLOPT_URL, req->url);
	curl_lib->easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_lib->easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_lib->easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(req->timeout_s * 1000));
	curl_lib->easy_setopt(e, CURLOPT_HTTPHEADER, h);
	curl_lib->easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_lib->easy_setopt(e, CURLOPT_HEADERDATA, &x);
	curl_lib->easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
	curl_lib->easy_setopt(e, CURLOPT_WRITEDATA, &x);
	if (!strcmp(req->method, "POST"))
		curl_lib->easy_setopt(e, CURLOPT_POSTFIELDS, req->body ? req->body : "");
	rc = curl_lib->easy_perform(e);
	curl_lib->easy_getinfo(e, CURLINFO_RESPONSE_CODE, &resp->status);
	if (curl_lib->easy_getinfo(e, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type)
		resp->content_type = strdup(type);
	curl_lib->easy_cleanup(e);
	if (x.too_big)
		err_set(err, EXIT_UNREACHABLE, "%s %.300s: the answer is larger than %u bytes",
			req->method, req->url, OAUTH_HTTP_BODY_MAX);
	else if (rc != CURLE_OK)
		err_set(err, EXIT_UNREACHABLE, "%s %.300s: %s", req->method, req->url,
			curl_lib->easy_strerror(rc));
	else
		ret = 0;
out:
	curl_lib->slist_free_all(h);
	resp->body = buf_steal(&x.body, &resp->len);
	buf_free(&x.body);
	return ret;
}

void oauth_http_resp_free(struct oauth_http_resp *resp)
{
	if (!resp)
		return;
	free(resp->body);
	free(resp->www_authenticate);
	free(resp->content_type);
	memset(resp, 0, sizeof(*resp));
}

json_t *oauth_http_json(const struct oauth_http_resp *resp, const char *what, const char *url,
			struct err *err)
{
	json_error_t je;
	json_t *j;

	if (resp->status < 200 || resp->status > 299) {
		err_set(err, EXIT_UNREACHABLE, "%s %.300s: HTTP %ld", what, url, resp->status);
		return NULL;
	}
	j = resp->body ? json_loadb(resp->body, resp->len, 0, &je) : NULL;
	if (!json_is_object(j)) {
		json_decref(j);
		err_set(err, EXIT_UNREACHABLE, "%s %.300s: not a JSON object", what, url);
		return NULL;
	}
	return j;
}

static bool host_is_loopback(const char *host)
{
	if (!strcasecmp(host, "localhost") || !strcmp(host, "[::1]"))
		return true;
	return !strncmp(host, "127.", 4) && strspn(host, "0123456789.") == strlen(host);
}

bool oauth_http_url_allowed(const char *url)
{
	char host[256];
	size_t n;
	const char *p;

	if (!strncasecmp(url, "https://", 8))
		return true;
	if (strncasecmp(url, "http://", 7))
		return false;
	p = url + 7;
	if (*p == '[')
		n = strcspn(p, "]") + 1;
	else
		n = strcspn(p, ":/?#");
	if (!n || n >= sizeof(host))
		return false;
	memcpy(host, p, n);
	host[n] = '\0';
	if (strchr(host, '@'))
		return false;
	return host_is_loopback(host);
}

static int put_escaped(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	int rc = 0;

	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~')
			rc = buf_putc(b, (char)c);
		else if (c == ' ')
			rc = buf_putc(b, '+');
		else
			rc = buf_printf(b, "%%%c%c", hex[c >> 4], hex[c & 15]);
	}
	return rc;
}

char *oauth_form_escape(const char *s)
{
	struct buf b;
	char *out = NULL;

	buf_init(&b, 1u << 20);
	if (!put_escaped(&b, s))
		out = buf_steal(&b, NULL);
	buf_free(&b);
	return out;
}

int oauth_form_add(char **form, const char *name, const char *value)
{
	struct buf b;
	char *out;

	if (!value)
		return 0;
	buf_init(&b, 1u << 20);
	if ((*form && **form && (buf_puts(&b, *form) || buf_putc(&b, '&'))) ||
	    put_escaped(&b, name) || buf_putc(&b, '=') || put_escaped(&b, value)) {
		buf_free(&b);
		free(*form);
		*form = NULL;
		return -ENOMEM;
	}
	out = buf_steal(&b, NULL);
	buf_free(&b);
	free(*form);
	*form = out;
	return *form ? 0 : -ENOMEM;
}
