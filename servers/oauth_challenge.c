#define _GNU_SOURCE
#include "oauth_challenge.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CHALLENGE_VALUE_MAX 4096

static bool tchar(char c)
{
	return c && (isalnum((unsigned char)c) || strchr("!#$%&'*+-.^_`|~/", c));
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == ',')
		p++;
	return p;
}

/* A token or a quoted string at @p into a new string; *@end after it. */
static char *value_at(const char *p, const char **end)
{
	char out[CHALLENGE_VALUE_MAX];
	size_t n = 0;

	if (*p != '"') {
		while (tchar(*p) || *p == '=') {
			if (n < sizeof(out) - 1)
				out[n++] = *p;
			p++;
		}
	} else {
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
			if (n < sizeof(out) - 1)
				out[n++] = *p;
		}
		if (*p == '"')
			p++;
	}
	*end = p;
	return strndup(out, n);
}

static char **field(struct oauth_challenge *c, const char *name, size_t len)
{
	if (len == 17 && !strncasecmp(name, "resource_metadata", len))
		return &c->resource_metadata;
	if (len == 5 && !strncasecmp(name, "scope", len))
		return &c->scope;
	if (len == 5 && !strncasecmp(name, "error", len))
		return &c->error;
	return NULL;
}

int oauth_challenge_parse(const char *header, struct oauth_challenge *out)
{
	const char *p = header, *name, *end;
	bool in_bearer = false;
	char **slot, *v;
	size_t len;

	memset(out, 0, sizeof(*out));
	if (!header)
		return 0;
	for (p = skip_ws(p); *p; p = skip_ws(p)) {
		name = p;
		while (tchar(*p))
			p++;
		len = (size_t)(p - name);
		if (!len)
			return 0; /* malformed: keep what was read */
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '=' || p[1] == '=' || p[1] == ',' || !p[1]) {
			/* A scheme name (or a token68 that follows one). */
			if (out->bearer && in_bearer && *p == '=')
				return 0;
			in_bearer = len == 6 && !strncasecmp(name, "Bearer", 6);
			if (in_bearer)
				out->bearer = true;
			while (*p == '=')
				p++;
			continue;
		}
		p = skip_ws(p + 1);
		while (*p == ' ' || *p == '\t')
			p++;
		v = value_at(p, &end);
		if (!v)
			return -ENOMEM;
		p = end;
		slot = in_bearer ? field(out, name, len) : NULL;
		if (slot && !*slot)
			*slot = v;
		else
			free(v);
	}
	return 0;
}

void oauth_challenge_free(struct oauth_challenge *c)
{
	if (!c)
		return;
	free(c->resource_metadata);
	free(c->scope);
	free(c->error);
	memset(c, 0, sizeof(*c));
}
