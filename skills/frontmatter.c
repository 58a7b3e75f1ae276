#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skills.h"

#define KEY_MAX 64

bool skill_name_valid(const char *name, struct err *err)
{
	size_t i, n;

	if (!name || !*name) {
		err_set(err, EXIT_USAGE, "skill name is empty");
		return false;
	}
	n = strnlen(name, SKILL_NAME_MAX + 1);
	if (n > SKILL_NAME_MAX) {
		err_set(err, EXIT_USAGE, "skill name is longer than %d characters", SKILL_NAME_MAX);
		return false;
	}
	if (!strcmp(name, "shared")) {
		err_set(err, EXIT_USAGE, "skill name 'shared' is reserved (/skills/shared)");
		return false;
	}
	for (i = 0; i < n; i++) {
		char c = name[i];

		if ((c >= 'a' && c <= 'z') || (i && c >= '0' && c <= '9'))
			continue;
		if (c == '-' && i && i + 1 < n && name[i + 1] != '-')
			continue;
		err_set(err, EXIT_USAGE,
			"skill name has a forbidden character (byte 0x%02x at %zu); allowed: a "
			"lowercase letter, then [a-z0-9] and single inner hyphens",
			(unsigned char)c, i);
		return false;
	}
	return true;
}

/* The next line of @p (without its end) and where the one after starts. */
static const char *next_line(const char *p, size_t *len)
{
	const char *e = strchr(p, '\n');

	*len = e ? (size_t)(e - p) : strlen(p);
	if (*len && p[*len - 1] == '\r')
		(*len)--;
	return e ? e + 1 : p + strlen(p);
}

static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
	}
	return strndup(s, n);
}

/* A '|' or '>' block scalar: the indented lines after the key. */
static char *block_scalar(const char **pp, bool folded)
{
	const char *p = *pp, *line;
	size_t len, total = 0;
	char *out = malloc(1), *grown, *t;

	if (!out)
		return NULL;
	out[0] = '\0';
	for (;;) {
		line = p;
		if (!*line)
			break;
		p = next_line(line, &len);
		if (!len)
			continue;
		if (!isspace((unsigned char)line[0]))
			break;
		t = trimmed(line, len);
		grown = t ? realloc(out, total + strlen(t) + 2) : NULL;
		if (!grown) {
			free(t);
			free(out);
			return NULL;
		}
		out = grown;
		if (total)
			out[total++] = folded ? ' ' : '\n';
		strcpy(out + total, t);
		total += strlen(t);
		free(t);
		*pp = p;
	}
	return out;
}

static int parse_pair(json_t *fm, const char *line, size_t len, const char **pp, int lineno,
		      struct err *err)
{
	const char *colon = memchr(line, ':', len);
	char key[KEY_MAX + 1], *val;
	size_t k;

	if (!colon || colon == line || (size_t)(colon - line) > KEY_MAX)
		return err_set(err, EXIT_USAGE, "SKILL.md line %d: expected 'key: value'", lineno);
	k = (size_t)(colon - line);
	memcpy(key, line, k);
	key[k] = '\0';
	for (k = 0; key[k]; k++)
		if (!isalnum((unsigned char)key[k]) && key[k] != '_' && key[k] != '-')
			return err_set(err, EXIT_USAGE, "SKILL.md line %d: bad key '%s'", lineno,
				       key);
	val = trimmed(colon + 1, len - (size_t)(colon + 1 - line));
	if (val &&
	    (!strcmp(val, "|") || !strcmp(val, ">") || !strcmp(val, "|-") || !strcmp(val, ">-"))) {
		bool folded = val[0] == '>';

		free(val);
		val = block_scalar(pp, folded);
	}
	if (!val)
		return err_set(err, EXIT_FAILED, "out of memory");
	/* An empty value opens a nested map (metadata:, allowed-tools lists):
	 * kept out of the summary, skipped by the caller as indented lines. */
	if (*val)
		json_object_set_new(fm, key, json_string(val));
	free(val);
	return 0;
}

static int check_fields(json_t *fm, struct err *err)
{
	const char *name = json_string_value(json_object_get(fm, "name"));
	const char *desc = json_string_value(json_object_get(fm, "description"));

	if (!name)
		return err_set(err, EXIT_USAGE, "SKILL.md: front matter has no name");
	if (!skill_name_valid(name, err)) {
		err_prefix(err, "SKILL.md");
		return -1;
	}
	if (!desc || !*desc)
		return err_set(err, EXIT_USAGE, "SKILL.md: front matter has no description");
	if (strlen(desc) > SKILL_DESCRIPTION_MAX)
		return err_set(err, EXIT_USAGE, "SKILL.md: description longer than %d characters",
			       SKILL_DESCRIPTION_MAX);
	return 0;
}

json_t *skill_parse(const char *text, struct err *err)
{
	const char *p = text, *line;
	json_t *fm = json_object();
	size_t len;
	int lineno = 1;

	if (!fm) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	p = next_line(p, &len);
	if (len != 3 || strncmp(text, "---", 3)) {
		err_set(err, EXIT_USAGE, "SKILL.md: does not start with '---' front matter");
		goto out_free;
	}
	for (;;) {
		line = p;
		if (!*line) {
			err_set(err, EXIT_USAGE, "SKILL.md: front matter not closed with '---'");
			goto out_free;
		}
		p = next_line(line, &len);
		lineno++;
		if (len == 3 && !strncmp(line, "---", 3))
			break;
		if (!len || line[0] == '#' || isspace((unsigned char)line[0]))
			continue;
		if (parse_pair(fm, line, len, &p, lineno, err) < 0)
			goto out_free;
	}
	if (check_fields(fm, err) < 0)
		goto out_free;
	while (*p == '\n' || *p == '\r')
		p++;
	json_object_set_new(fm, "instructions", json_string(p));
	return fm;
out_free:
	json_decref(fm);
	return NULL;
}
