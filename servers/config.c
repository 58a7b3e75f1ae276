#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/buf.h"
#include "../common/embed.h"
#include "../common/fsx.h"
#include "../common/id.h"

/* A config file larger than this is refused: it is hand-written JSON. */
#define CONFIG_MAX_BYTES (4u << 20)
/* An expanded string longer than this is refused. */
#define CONFIG_MAX_STRING (64u << 10)
#define CONFIG_MAX_NAME 128

#ifndef MCPFS_SRCDIR
#define MCPFS_SRCDIR "."
#endif

/* Expanded per instance by server_config_instantiate, not from the environment. */
static const char *const instance_vars[] = {"CUSTOMER", "WORKSPACE", "STATE"};

/* Where ${VAR} gets its value: set *value (NULL keeps "${VAR}" as written),
 * or return -ENOENT for a variable that must exist but does not. */
typedef int (*lookup_fn)(void *ctx, const char *var, const char **value);

static bool is_instance_var(const char *var)
{
	size_t i;

	for (i = 0; i < sizeof(instance_vars) / sizeof(instance_vars[0]); i++)
		if (!strcmp(var, instance_vars[i]))
			return true;
	return false;
}

/* The installed npm servers: $MCPFS_SERVERS_DIR, else <exe dir>/../lib/mcpfs/servers
 * when it exists (an installed binary), else the source tree's servers/. */
static const char *servers_dir(char *out, size_t n)
{
	char exe[PATH_MAX];
	const char *env = getenv("MCPFS_SERVERS_DIR");
	struct stat st;
	ssize_t r;

	if (env && *env)
		return env;
	r = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (r > 0) {
		exe[r] = '\0';
		if (snprintf(out, n, "%s/../lib/mcpfs/servers", dirname(exe)) < (int)n &&
		    stat(out, &st) == 0 && S_ISDIR(st.st_mode))
			return out;
	}
	snprintf(out, n, "%s/servers", MCPFS_SRCDIR);
	return out;
}

/* Parsing state: where errors point, and what ${...} expands to. */
struct parse {
	const char *origin;
	const char *server;
	const char *folder;    /* ${workspaceFolder}: the project the file belongs to */
	struct buf missing;    /* the current server's unset variables: "${A}, ${B}" */
	char dirbuf[PATH_MAX]; /* storage for ${MCPFS_SERVERS_DIR} */
	struct err *err;
};

/* The environment, and the variables IDE configs use: ${env:NAME},
 * ${workspaceFolder}, ${userHome}. ${input:ID} is something an IDE asks its
 * user for: never set here. */
static int env_lookup(void *ctx, const char *var, const char **value)
{
	struct parse *ps = ctx;

	*value = NULL;
	if (is_instance_var(var))
		return 0;
	if (!strcmp(var, "MCPFS_SERVERS_DIR")) {
		*value = servers_dir(ps->dirbuf, PATH_MAX);
		return 0;
	}
	if (!strcmp(var, "workspaceFolder"))
		*value = ps->folder;
	else if (!strcmp(var, "userHome"))
		*value = getenv("HOME");
	else if (strncmp(var, "input:", 6))
		*value = getenv(strncmp(var, "env:", 4) ? var : var + 4);
	return *value ? 0 : -ENOENT;
}

/* Add "${@var}" to @missing once. */
static int note_missing(struct buf *missing, const char *var)
{
	char item[300];

	snprintf(item, sizeof(item), "${%s}", var);
	if (missing->data && strstr(missing->data, item))
		return 0;
	if (missing->len && buf_puts(missing, ", "))
		return -ENOMEM;
	return buf_puts(missing, item) ? -ENOMEM : 0;
}

/* Expand ${VAR} and ${VAR:-default} in @in into a new string. Returns 0,
 * -ENOENT (every unset variable's name added to @missing, may be NULL; the
 * output is still made), -EINVAL (an unterminated or empty "${"), -E2BIG,
 * -ENOMEM. */
static int expand(const char *in, lookup_fn lookup, void *ctx, char **out, struct buf *missing)
{
	struct buf b;
	const char *p = in, *start, *end, *value, *dflt;
	char var[256], *sep;
	bool unset = false;
	size_t k;
	int rc;

	buf_init(&b, CONFIG_MAX_STRING);
	while ((start = strstr(p, "${"))) {
		rc = buf_append(&b, p, (size_t)(start - p));
		if (rc)
			goto out_free;
		end = strchr(start + 2, '}');
		k = end ? (size_t)(end - start - 2) : 0;
		rc = -EINVAL;
		if (!end || !k || k >= sizeof(var))
			goto out_free;
		memcpy(var, start + 2, k);
		var[k] = '\0';
		dflt = NULL;
		sep = strstr(var, ":-");
		if (sep) {
			*sep = '\0';
			dflt = sep + 2;
		}
		rc = lookup(ctx, var, &value);
		if (rc == -ENOENT && dflt) {
			rc = 0;
			value = dflt;
		}
		if (rc == -ENOENT) {
			unset = true;
			rc = missing ? note_missing(missing, var) : 0;
			value = "";
		}
		if (!rc)
			rc = value ? buf_puts(&b, value) : buf_append(&b, start, k + 3);
		if (rc)
			goto out_free;
		p = end + 1;
	}
	rc = buf_puts(&b, p);
	if (rc)
		goto out_free;
	*out = buf_steal(&b, NULL);
	if (!*out)
		return -ENOMEM;
	return unset ? -ENOENT : 0;
out_free:
	buf_free(&b);
	return rc;
}

static int bad(struct parse *ps, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(struct parse *ps, const char *field, const char *fmt, ...)
{
	char why[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return err_set(ps->err, EXIT_USAGE, "%s: server '%s', field '%s': %s", ps->origin,
		       ps->server, field, why);
}

/* A new expanded copy of the JSON string @v, for @field. */
static int take_string(struct parse *ps, const json_t *v, const char *field, char **out)
{
	int rc;

	if (!json_is_string(v))
		return bad(ps, field, "must be a string");
	rc = expand(json_string_value(v), env_lookup, ps, out, &ps->missing);
	if (rc == -ENOENT)
		return 0; /* the server is disabled, and says why, once parsed */
	if (rc == -EINVAL)
		return bad(ps, field, "unterminated or empty ${...} in \"%s\"",
			   json_string_value(v));
	if (rc == -E2BIG)
		return bad(ps, field, "longer than %u bytes once expanded", CONFIG_MAX_STRING);
	if (rc)
		return bad(ps, field, "out of memory");
	return 0;
}

static int take_string_array(struct parse *ps, const json_t *v, const char *field, char ***out,
			     size_t *n)
{
	char sub[64];
	json_t *item;
	size_t i;

	if (!json_is_array(v))
		return bad(ps, field, "must be an array of strings");
	*out = calloc(json_array_size(v) + 1, sizeof(char *));
	if (!*out)
		return bad(ps, field, "out of memory");
	json_array_foreach(v, i, item)
	{
		snprintf(sub, sizeof(sub), "%s[%zu]", field, i);
		if (take_string(ps, item, sub, &(*out)[i]) < 0)
			return -1;
		(*n)++;
	}
	return 0;
}

/* {"K": "V"} into "K<sep>V" strings, as env ("=") and headers (": ") want. */
static int take_string_map(struct parse *ps, const json_t *v, const char *field, const char *sep,
			   char ***out, size_t *n)
{
	char sub[300], *value;
	const char *key;
	json_t *item;
	int len;

	if (!json_is_object(v))
		return bad(ps, field, "must be an object of strings");
	*out = calloc(json_object_size(v) + 1, sizeof(char *));
	if (!*out)
		return bad(ps, field, "out of memory");
	json_object_foreach((json_t *)v, key, item)
	{
		snprintf(sub, sizeof(sub), "%s.%s", field, key);
		if (!*key || strpbrk(key, "=:\r\n"))
			return bad(ps, sub, "invalid name");
		if (take_string(ps, item, sub, &value) < 0)
			return -1;
		len = asprintf(&(*out)[*n], "%s%s%s", key, sep, value);
		free(value);
		if (len < 0) {
			(*out)[*n] = NULL;
			return bad(ps, sub, "out of memory");
		}
		(*n)++;
	}
	return 0;
}

static int take_seconds(struct parse *ps, const json_t *v, const char *field, double *out)
{
	if (!json_is_number(v) || json_number_value(v) <= 0 || json_number_value(v) > 86400)
		return bad(ps, field, "must be a number of seconds in (0, 86400]");
	*out = json_number_value(v);
	return 0;
}

static int take_count(struct parse *ps, const json_t *v, const char *field, size_t max, size_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    (unsigned long long)json_integer_value(v) > max)
		return bad(ps, field, "must be a whole number in [1, %zu]", max);
	*out = (size_t)json_integer_value(v);
	return 0;
}

/* The server uses variables that are not set: it stays in the config,
 * disabled, and says which (all of them) wherever it is asked for. */
static int disable(struct parse *ps, struct server_config *sc)
{
	bool input = strstr(ps->missing.data, "${input:") != NULL;
	int n;

	n = asprintf(&sc->disabled,
		     "server '%s' is disabled (%s): not set in the environment: %s%s", sc->name,
		     ps->origin, ps->missing.data,
		     input ? " (${input:...} is a value an IDE asks its user for, which mcpfs "
			     "cannot: put it in the environment and write ${env:NAME})"
			   : "");
	if (n < 0) {
		sc->disabled = NULL;
		return bad(ps, "(entry)", "out of memory");
	}
	return 0;
}

static int parse_transport(struct parse *ps, const json_t *v, enum server_transport *out)
{
	static const struct {
		const char *name;
		enum server_transport t;
	} names[] = {
	    {"stdio", TRANSPORT_STDIO},
	    {"http", TRANSPORT_HTTP},
	    {"streamable-http", TRANSPORT_HTTP},
	    {"streamableHttp", TRANSPORT_HTTP},
	    {"sse", TRANSPORT_SSE},
	};
	size_t i;

	if (json_is_string(v))
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(json_string_value(v), names[i].name)) {
				*out = names[i].t;
				return 0;
			}
	return bad(ps, "type", "must be \"stdio\", \"http\" or \"sse\"");
}

/* Roots are file:// URIs; an absolute path is turned into one. */
static int normalize_roots(struct parse *ps, struct server_config *sc)
{
	char field[32], *uri;
	size_t i;

	for (i = 0; i < sc->nroots; i++) {
		snprintf(field, sizeof(field), "roots[%zu]", i);
		if (!strncmp(sc->roots[i], "file://", 7))
			continue;
		if (sc->roots[i][0] != '/' && strncmp(sc->roots[i], "${", 2))
			return bad(ps, field, "must be a file:// URI or an absolute path");
		if (asprintf(&uri, "file://%s", sc->roots[i]) < 0)
			return bad(ps, field, "out of memory");
		free(sc->roots[i]);
		sc->roots[i] = uri;
	}
	return 0;
}

static bool name_valid(const char *name)
{
	const char *p;

	if (!*name || name[0] == '.' || strlen(name) > CONFIG_MAX_NAME)
		return false;
	for (p = name; *p; p++)
		if (*p == '/' || (unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* One entry of "mcpServers" or "servers". */
const char *const config_log_levels[] = {"debug",    "info",  "notice",	   "warning", "error",
					 "critical", "alert", "emergency", NULL};

/* "logLevel": one of the spec's levels, kept as the table's own string. */
static int take_log_level(struct parse *ps, const json_t *f, struct server_config *sc)
{
	size_t i;

	for (i = 0; json_is_string(f) && config_log_levels[i]; i++)
		if (!strcmp(json_string_value(f), config_log_levels[i])) {
			sc->log_level = config_log_levels[i];
			return 0;
		}
	return bad(ps, "logLevel",
		   "must be one of debug, info, notice, warning, error, critical, alert, "
		   "emergency");
}

static int take_sandbox(struct parse *ps, const json_t *v, struct server_sandbox_conf *sb)
{
	const json_t *f;
	const char *net;
	const char *const known[] = {"network", "ro", "rw", "memory", "pids", NULL};
	const char *key;
	size_t i;

	if (json_is_false(v)) {
		sb->off = true;
		return 0;
	}
	if (!json_is_object(v))
		return bad(ps, "sandbox", "must be false or an object");
	json_object_foreach((json_t *)v, key, f)
	{
		for (i = 0; known[i] && strcmp(known[i], key); i++)
			;
		if (!known[i]) {
			char field[96];

			snprintf(field, sizeof(field), "sandbox.%.80s", key);
			return bad(ps, field, "unknown (network, ro, rw, memory, pids)");
		}
	}
	if ((f = json_object_get(v, "network"))) {
		net = json_string_value(f);
		if (net && !strcmp(net, "none"))
			sb->network = SERVER_NET_NONE;
		else if (net && !strcmp(net, "host"))
			sb->network = SERVER_NET_HOST;
		else
			return bad(ps, "sandbox.network", "must be \"none\" or \"host\"");
	}
	if ((f = json_object_get(v, "ro")) &&
	    take_string_array(ps, f, "sandbox.ro", &sb->ro, &sb->nro) < 0)
		return -1;
	if ((f = json_object_get(v, "rw")) &&
	    take_string_array(ps, f, "sandbox.rw", &sb->rw, &sb->nrw) < 0)
		return -1;
	for (i = 0; i < sb->nro + sb->nrw; i++) {
		const char *path = i < sb->nro ? sb->ro[i] : sb->rw[i - sb->nro];

		if (path[0] != '/' && strncmp(path, "${", 2))
			return bad(ps, i < sb->nro ? "sandbox.ro" : "sandbox.rw",
				   "must hold absolute paths");
	}
	if ((f = json_object_get(v, "memory")) &&
	    take_count(ps, f, "sandbox.memory", 1u << 20, &sb->memory_mb) < 0)
		return -1;
	if ((f = json_object_get(v, "pids")) &&
	    take_count(ps, f, "sandbox.pids", 1u << 20, &sb->pids) < 0)
		return -1;
	return 0;
}

static int parse_server(struct parse *ps, const char *name, const json_t *v,
			struct server_config *sc)
{
	const json_t *type, *command, *url, *f;

	/* Unknown fields are ignored: the same file often serves other MCP hosts. */
	ps->server = name;
	buf_reset(&ps->missing);
	if (!name_valid(name))
		return bad(ps, "name",
			   "must be 1-%d characters, no '/', no control characters, "
			   "not starting with '.'",
			   CONFIG_MAX_NAME);
	if (!json_is_object(v))
		return bad(ps, "(entry)", "must be an object");
	sc->name = strdup(name);
	if (!sc->name)
		return bad(ps, "name", "out of memory");
	type = json_object_get(v, "type");
	command = json_object_get(v, "command");
	url = json_object_get(v, "url");
	if (type) {
		if (parse_transport(ps, type, &sc->transport) < 0)
			return -1;
	} else if (command && url) {
		return bad(ps, "type", "both command and url are set: say which with \"type\"");
	} else {
		sc->transport = url ? TRANSPORT_HTTP : TRANSPORT_STDIO;
	}
	if (sc->transport == TRANSPORT_STDIO) {
		if (!command)
			return bad(ps, "command", "missing (a stdio server needs one)");
		if (take_string(ps, command, "command", &sc->command) < 0)
			return -1;
		if (!*sc->command && !ps->missing.len)
			return bad(ps, "command", "is empty");
	} else {
		if (!url)
			return bad(ps, "url", "missing (an http or sse server needs one)");
		if (take_string(ps, url, "url", &sc->url) < 0)
			return -1;
		if (strncmp(sc->url, "http://", 7) && strncmp(sc->url, "https://", 8) &&
		    !ps->missing.len)
			return bad(ps, "url", "must start with http:// or https://");
	}
	if ((f = json_object_get(v, "args")) &&
	    take_string_array(ps, f, "args", &sc->args, &sc->nargs) < 0)
		return -1;
	if ((f = json_object_get(v, "env")) &&
	    take_string_map(ps, f, "env", "=", &sc->env, &sc->nenv) < 0)
		return -1;
	if ((f = json_object_get(v, "cwd")) && take_string(ps, f, "cwd", &sc->cwd) < 0)
		return -1;
	if ((f = json_object_get(v, "headers")) &&
	    take_string_map(ps, f, "headers", ": ", &sc->headers, &sc->nheaders) < 0)
		return -1;
	if ((f = json_object_get(v, "oauth")) &&
	    take_string_map(ps, f, "oauth", "=", &sc->oauth, &sc->noauth) < 0)
		return -1;
	if ((f = json_object_get(v, "roots")) &&
	    (take_string_array(ps, f, "roots", &sc->roots, &sc->nroots) < 0 ||
	     (!ps->missing.len && normalize_roots(ps, sc) < 0)))
		return -1;
	if ((f = json_object_get(v, "timeout")) &&
	    take_seconds(ps, f, "timeout", &sc->timeout_s) < 0)
		return -1;
	if ((f = json_object_get(v, "connect_timeout")) &&
	    take_seconds(ps, f, "connect_timeout", &sc->connect_timeout_s) < 0)
		return -1;
	if ((f = json_object_get(v, "logLevel")) && take_log_level(ps, f, sc) < 0)
		return -1;
	if ((f = json_object_get(v, "max_tools")) &&
	    take_count(ps, f, "max_tools", 1u << 24, &sc->max_tools) < 0)
		return -1;
	if ((f = json_object_get(v, "max_catalog_bytes")) &&
	    take_count(ps, f, "max_catalog_bytes", (size_t)1 << 32, &sc->max_catalog_bytes) < 0)
		return -1;
	if ((f = json_object_get(v, "sandbox")) && take_sandbox(ps, f, &sc->sandbox) < 0)
		return -1;
	if (ps->missing.len && disable(ps, sc) < 0)
		return -1;
	if ((f = json_object_get(v, "scope"))) {
		if (json_is_string(f) && !strcmp(json_string_value(f), "customer"))
			sc->scope = SCOPE_CUSTOMER;
		else if (json_is_string(f) && !strcmp(json_string_value(f), "shared"))
			sc->scope = SCOPE_SHARED;
		else
			return bad(ps, "scope", "must be \"shared\" or \"customer\"");
	}
	return 0;
}

static void free_strv(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void server_config_clear(struct server_config *sc)
{
	free(sc->disabled);
	free(sc->name);
	free(sc->command);
	free_strv(sc->args, sc->nargs);
	free_strv(sc->env, sc->nenv);
	free(sc->cwd);
	free(sc->url);
	free_strv(sc->headers, sc->nheaders);
	free_strv(sc->oauth, sc->noauth);
	free(sc->token_file);
	free(sc->customer);
	free(sc->workspace_dir);
	free(sc->state_dir);
	free_strv(sc->sandbox.ro, sc->sandbox.nro);
	free_strv(sc->sandbox.rw, sc->sandbox.nrw);
	free_strv(sc->roots, sc->nroots);
	memset(sc, 0, sizeof(*sc));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct server_config *)a)->name,
		      ((const struct server_config *)b)->name);
}

static bool disabled(const json_t *v)
{
	return json_is_true(json_object_get(v, "disabled"));
}

/* Add every entry of one section ("mcpServers" or "servers"). A name an
 * earlier file (mcpfs's own config, or an earlier import) defined keeps that
 * definition; twice in one file is an error. */
static int parse_section(struct parse *ps, struct config *cfg, size_t first, const json_t *section,
			 const char *section_name)
{
	struct server_config *sc;
	const char *name;
	json_t *v;

	if (!json_is_object(section))
		return err_set(ps->err, EXIT_USAGE, "%s: '%s' must be an object", ps->origin,
			       section_name);
	json_object_foreach((json_t *)section, name, v)
	{
		if (disabled(v))
			continue;
		sc = (struct server_config *)config_find(cfg, name);
		if (sc && (size_t)(sc - cfg->servers) < first)
			continue;
		if (sc) {
			ps->server = name;
			return bad(ps, "name", "defined twice");
		}
		if (parse_server(ps, name, v, &cfg->servers[cfg->nservers]) < 0) {
			server_config_clear(&cfg->servers[cfg->nservers]);
			return -1;
		}
		cfg->nservers++;
	}
	return 0;
}

/* ${workspaceFolder} for the file @origin: its folder, or the folder above
 * when that is an IDE's (.vscode/mcp.json, .cursor/mcp.json); the current
 * folder for text that is not a file. */
static void folder_of(const char *origin, char *out, size_t n)
{
	char copy[PATH_MAX], *base;

	if (snprintf(copy, sizeof(copy), "%s", origin) >= (int)sizeof(copy) || origin[0] == '(' ||
	    !realpath(dirname(copy), out)) {
		if (!getcwd(out, n))
			snprintf(out, n, ".");
		return;
	}
	base = strrchr(out, '/');
	if (base && (!strcmp(base, "/.vscode") || !strcmp(base, "/.cursor"))) {
		if (base == out)
			base++;
		*base = '\0';
	}
}

static int parse_doc(struct config *cfg, const char *text, const char *origin, bool own,
		     struct err *err);

/* mcpfs's own config may name other hosts' configs to take servers from:
 * "imports": ["claude-desktop", "./.vscode/mcp.json", "~/x.json"]. A name is
 * one of config_sources(); a path is relative to the importing file. */
static int parse_imports(struct config *cfg, const json_t *imports, const char *origin,
			 const char *folder, struct err *err)
{
	char path[PATH_MAX], *text;
	const char *entry, *home = getenv("HOME");
	json_t *v;
	size_t i;
	int rc;

	if (!json_is_array(imports))
		return err_set(err, EXIT_USAGE, "%s: 'imports' must be an array of strings",
			       origin);
	json_array_foreach(imports, i, v)
	{
		entry = json_string_value(v);
		if (!entry || !*entry)
			return err_set(err, EXIT_USAGE,
				       "%s: imports[%zu]: must be a non-empty string", origin, i);
		if (!strchr(entry, '/') && !strchr(entry, '.')) {
			if (config_source_path(entry, path, sizeof(path)) < 0)
				return err_set(err, EXIT_USAGE,
					       "%s: imports[%zu]: no config of '%s' found (see "
					       "'mcpfs config')",
					       origin, i, entry);
		} else if (!strncmp(entry, "~/", 2) && home) {
			snprintf(path, sizeof(path), "%s/%s", home, entry + 2);
		} else if (entry[0] == '/') {
			snprintf(path, sizeof(path), "%s", entry);
		} else {
			snprintf(path, sizeof(path), "%s/%s", folder, entry);
		}
		rc = fsx_read(path, CONFIG_MAX_BYTES, &text, NULL);
		if (rc)
			return err_set(err, EXIT_USAGE, "%s: imports[%zu]: open(%s): %s", origin, i,
				       path, rc == -E2BIG ? "too large" : strerror(-rc));
		rc = parse_doc(cfg, text, path, false, err);
		free(text);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* "customer": whose workspace `serve` works in unless --customer says. */
static int parse_customer(struct config *cfg, const json_t *v, const char *origin, struct err *err)
{
	struct err why = {0};

	if (!v)
		return 0;
	if (!id_valid(json_string_value(v), "customer", &why))
		return err_set(err, EXIT_USAGE, "%s: \"customer\": %s", origin,
			       json_is_string(v) ? why.text : "must be a string");
	cfg->customer = strdup(json_string_value(v));
	if (!cfg->customer)
		return err_set(err, EXIT_USAGE, "%s: out of memory", origin);
	return 0;
}

/* Add the servers of one file to @cfg. @own: mcpfs's own config, which alone
 * may import. */
static int parse_doc(struct config *cfg, const char *text, const char *origin, bool own,
		     struct err *err)
{
	struct server_config *grown;
	const json_t *mcp, *typed, *imports;
	struct parse *ps;
	json_error_t je;
	json_t *root;
	size_t total, first = cfg->nservers;
	int rc = -1;

	root = json_loads(text, 0, &je);
	if (!root)
		return err_set(err, EXIT_USAGE, "%s:%d:%d: invalid JSON: %s", origin, je.line,
			       je.column, je.text);
	ps = calloc(1, sizeof(*ps));
	if (!ps) {
		err_set(err, EXIT_USAGE, "%s: out of memory", origin);
		goto out_root;
	}
	ps->origin = origin;
	ps->err = err;
	buf_init(&ps->missing, 4096);
	if (!json_is_object(root)) {
		err_set(err, EXIT_USAGE, "%s: the top level must be an object", origin);
		goto out_ps;
	}
	mcp = json_object_get(root, "mcpServers");
	typed = json_object_get(root, "servers");
	imports = own ? json_object_get(root, "imports") : NULL;
	if (!mcp && !typed && !imports) {
		err_set(err, EXIT_USAGE, "%s: no \"mcpServers\" or \"servers\" object", origin);
		goto out_ps;
	}
	total = cfg->nservers + json_object_size(mcp) + json_object_size(typed);
	grown = realloc(cfg->servers, (total + 1) * sizeof(*cfg->servers));
	if (!grown) {
		err_set(err, EXIT_USAGE, "%s: out of memory", origin);
		goto out_ps;
	}
	cfg->servers = grown;
	memset(&cfg->servers[cfg->nservers], 0,
	       (total + 1 - cfg->nservers) * sizeof(*cfg->servers));
	folder_of(origin, ps->dirbuf, sizeof(ps->dirbuf));
	ps->folder = strdup(ps->dirbuf);
	if (!ps->folder) {
		err_set(err, EXIT_USAGE, "%s: out of memory", origin);
		goto out_ps;
	}
	if (mcp && parse_section(ps, cfg, first, mcp, "mcpServers") < 0)
		goto out_ps;
	if (typed && parse_section(ps, cfg, first, typed, "servers") < 0)
		goto out_ps;
	if (imports && parse_imports(cfg, imports, origin, ps->folder, err) < 0)
		goto out_ps;
	/* Kept as written: pii/ gives it meaning (pii_config_parse). Only
	 * mcpfs's own config has one. */
	if (own) {
		cfg->pii = json_incref(json_object_get(root, "pii"));
		cfg->policy = json_incref(json_object_get(root, "policy")); /* policy/ */
	}
	if (own && parse_customer(cfg, json_object_get(root, "customer"), origin, err) < 0)
		goto out_ps;
	rc = 0;
out_ps:
	free((char *)ps->folder);
	buf_free(&ps->missing);
	free(ps);
out_root:
	json_decref(root);
	return rc;
}

int config_parse(struct config *out, const char *text, const char *origin, struct err *err)
{
	struct config cfg = {0};

	cfg.origin = strdup(origin);
	if (!cfg.origin)
		return err_set(err, EXIT_USAGE, "%s: out of memory", origin);
	if (parse_doc(&cfg, text, origin, true, err) < 0) {
		config_free(&cfg);
		return -1;
	}
	if (cfg.nservers)
		qsort(cfg.servers, cfg.nservers, sizeof(*cfg.servers), by_name);
	*out = cfg;
	return 0;
}

void config_free(struct config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->nservers; i++)
		server_config_clear(&cfg->servers[i]);
	free(cfg->servers);
	free(cfg->origin);
	json_decref(cfg->pii);
	json_decref(cfg->policy);
	free(cfg->customer);
	memset(cfg, 0, sizeof(*cfg));
}

const struct server_config *config_find(const struct config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nservers; i++)
		if (cfg->servers[i].name && !strcmp(cfg->servers[i].name, name))
			return &cfg->servers[i];
	return NULL;
}

const char *config_default_text(void)
{
	const struct embedded_file *f;

	for (f = config_embedded_files; f->name; f++)
		if (!strcmp(f->name, "default.json"))
			return f->data;
	return "{\"mcpServers\": {}}";
}

static int load_file(struct config *out, const char *path, struct err *err)
{
	char *text;
	int rc;

	rc = fsx_read(path, CONFIG_MAX_BYTES, &text, NULL);
	if (rc == -E2BIG)
		return err_set(err, EXIT_USAGE, "%s: larger than %u bytes", path, CONFIG_MAX_BYTES);
	if (rc)
		return err_set(err, EXIT_USAGE, "open(%s): %s", path, strerror(-rc));
	rc = config_parse(out, text, path, err);
	free(text);
	return rc;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int config_load(struct config *out, const char *explicit_path, struct err *err)
{
	const char *env = getenv("MCPFS_CONFIG");
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	char path[PATH_MAX];

	if (explicit_path)
		return load_file(out, explicit_path, err);
	if (env && *env)
		return load_file(out, env, err);
	if (exists("mcpfs.json"))
		return load_file(out, "mcpfs.json", err);
	if (xdg && *xdg &&
	    snprintf(path, sizeof(path), "%s/mcpfs/config.json", xdg) < (int)sizeof(path) &&
	    exists(path))
		return load_file(out, path, err);
	if (home && *home &&
	    snprintf(path, sizeof(path), "%s/.config/mcpfs/config.json", home) <
		(int)sizeof(path) &&
	    exists(path))
		return load_file(out, path, err);
	return config_parse(out, config_default_text(), "(embedded default)", err);
}

/* Values for the instance variables; NULL keeps a variable as written. */
struct instance_values {
	const char *customer, *workspace, *state;
};

static int instance_lookup(void *ctx, const char *var, const char **value)
{
	const struct instance_values *iv = ctx;

	*value = NULL;
	if (!strcmp(var, "CUSTOMER"))
		*value = iv->customer;
	else if (!strcmp(var, "WORKSPACE"))
		*value = iv->workspace;
	else if (!strcmp(var, "STATE"))
		*value = iv->state;
	return 0;
}

/* A new copy of @s, expanded with @iv when @iv is not NULL. */
static char *copy_str(const char *s, const struct instance_values *iv, bool *failed)
{
	char *out = NULL;

	if (!s)
		return NULL;
	if (!iv)
		out = strdup(s);
	else if (expand(s, instance_lookup, (void *)iv, &out, NULL))
		out = NULL;
	if (!out)
		*failed = true;
	return out;
}

static char **copy_strv(char **v, size_t n, const struct instance_values *iv, bool *failed)
{
	char **out;
	size_t i;

	if (!v)
		return NULL;
	out = calloc(n + 1, sizeof(char *));
	if (!out) {
		*failed = true;
		return NULL;
	}
	for (i = 0; i < n; i++)
		out[i] = copy_str(v[i], iv, failed);
	return out;
}

static struct server_config *copy_config(const struct server_config *sc,
					 const struct instance_values *iv)
{
	struct server_config *c = calloc(1, sizeof(*c));
	bool failed = false;

	if (!c)
		return NULL;
	*c = *sc;
	c->name = copy_str(sc->name, NULL, &failed);
	c->command = copy_str(sc->command, iv, &failed);
	c->args = copy_strv(sc->args, sc->nargs, iv, &failed);
	c->env = copy_strv(sc->env, sc->nenv, iv, &failed);
	c->cwd = copy_str(sc->cwd, iv, &failed);
	c->url = copy_str(sc->url, iv, &failed);
	c->headers = copy_strv(sc->headers, sc->nheaders, iv, &failed);
	c->oauth = copy_strv(sc->oauth, sc->noauth, NULL, &failed);
	c->token_file = copy_str(sc->token_file, NULL, &failed);
	c->customer = copy_str(sc->customer, NULL, &failed);
	c->workspace_dir = copy_str(sc->workspace_dir, NULL, &failed);
	c->state_dir = copy_str(sc->state_dir, NULL, &failed);
	c->sandbox.ro = copy_strv(sc->sandbox.ro, sc->sandbox.nro, iv, &failed);
	c->sandbox.rw = copy_strv(sc->sandbox.rw, sc->sandbox.nrw, iv, &failed);
	c->roots = copy_strv(sc->roots, sc->nroots, iv, &failed);
	c->disabled = copy_str(sc->disabled, NULL, &failed);
	if (failed) {
		server_config_free(c);
		return NULL;
	}
	return c;
}

struct server_config *server_config_instantiate_state(const struct server_config *sc,
						      const char *customer, const char *workspace,
						      const char *state)
{
	struct instance_values iv = {customer, workspace, state};

	return copy_config(sc, &iv);
}

struct server_config *server_config_instantiate(const struct server_config *sc,
						const char *customer, const char *workspace)
{
	char state[PATH_MAX], *slash;

	if (!workspace || snprintf(state, sizeof(state), "%s", workspace) >= (int)sizeof(state))
		return server_config_instantiate_state(sc, customer, workspace, NULL);
	slash = strrchr(state, '/');
	if (!slash || slash == state)
		return server_config_instantiate_state(sc, customer, workspace, NULL);
	snprintf(slash, sizeof(state) - (size_t)(slash - state), "/state");
	return server_config_instantiate_state(sc, customer, workspace, state);
}

struct server_config *server_config_dup(const struct server_config *sc)
{
	return copy_config(sc, NULL);
}

void server_config_free(struct server_config *sc)
{
	if (!sc)
		return;
	server_config_clear(sc);
	free(sc);
}
