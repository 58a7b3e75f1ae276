/* The config parser (servers/config.c): both forms, ${VAR} expansion, the
 * per-instance variables, and malformed input. Cases as data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../servers/config.h"
#include "check.h"

/* Malformed input: the exact start of the one-line error. */
static const struct {
	const char *text;
	const char *error;
} bad_cases[] = {
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\",}}}",
     "t.json:1:38: invalid JSON: string or '}' expected near '}'"},
    {"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"\n}",
     "t.json:4:1: invalid JSON: '}' expected near end of file"},
    {"", "t.json:1:0: invalid JSON:"},
    {"[]", "t.json: the top level must be an object"},
    {"{}", "t.json: no \"mcpServers\" or \"servers\" object"},
    {"{\"mcpServers\": []}", "t.json: 'mcpServers' must be an object"},
    {"{\"mcpServers\": {\"a\": 1}}", "t.json: server 'a', field '(entry)': must be an object"},
    {"{\"mcpServers\": {\"a\": {}}}", "t.json: server 'a', field 'command': missing"},
    {"{\"mcpServers\": {\"a\": {\"command\": 5}}}",
     "t.json: server 'a', field 'command': must be a string"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"\"}}}",
     "t.json: server 'a', field 'command': is empty"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": \"-v\"}}}",
     "t.json: server 'a', field 'args': must be an array of strings"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [\"ok\", 3]}}}",
     "t.json: server 'a', field 'args[1]': must be a string"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"K\": 1}}}}",
     "t.json: server 'a', field 'env.K': must be a string"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": [\"K=1\"]}}}",
     "t.json: server 'a', field 'env': must be an object of strings"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"max_tools\": 0}}}",
     "t.json: server 'a', field 'max_tools': must be a whole number in [1, 16777216]"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"max_catalog_bytes\": \"1M\"}}}",
     "t.json: server 'a', field 'max_catalog_bytes': must be a whole number"},
    {"{\"imports\": \"claude-desktop\"}", "t.json: 'imports' must be an array of strings"},
    {"{\"imports\": [\"/nonexistent/x.json\"]}",
     "t.json: imports[0]: open(/nonexistent/x.json): No such file or directory"},
    {"{\"imports\": [\"no-such-host\"]}",
     "t.json: imports[0]: no config of 'no-such-host' found (see 'mcpfs config')"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x${\"}}}",
     "t.json: server 'a', field 'command': unterminated or empty ${...}"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x${}\"}}}",
     "t.json: server 'a', field 'command': unterminated or empty ${...}"},
    {"{\"mcpServers\": {\"a\": {\"url\": \"ftp://h\"}}}",
     "t.json: server 'a', field 'url': must start with http:// or https://"},
    {"{\"mcpServers\": {\"a\": {\"url\": \"http://h\", \"command\": \"x\"}}}",
     "t.json: server 'a', field 'type': both command and url are set"},
    {"{\"mcpServers\": {\"a\": {\"type\": \"carrier-pigeon\", \"command\": \"x\"}}}",
     "t.json: server 'a', field 'type': must be \"stdio\", \"http\" or \"sse\""},
    {"{\"servers\": {\"a\": {\"type\": \"http\"}}}", "t.json: server 'a', field 'url': missing"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"timeout\": 0}}}",
     "t.json: server 'a', field 'timeout': must be a number of seconds"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"timeout\": \"5\"}}}",
     "t.json: server 'a', field 'timeout': must be a number of seconds"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"scope\": \"team\"}}}",
     "t.json: server 'a', field 'scope': must be \"shared\" or \"customer\""},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"roots\": [\"relative/dir\"]}}}",
     "t.json: server 'a', field 'roots[0]': must be a file:// URI or an absolute path"},
    {"{\"mcpServers\": {\"a/b\": {\"command\": \"x\"}}}", "t.json: server 'a/b', field 'name':"},
    {"{\"mcpServers\": {\"..\": {\"command\": \"x\"}}}", "t.json: server '..', field 'name':"},
    {"{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"servers\": {\"a\": {\"command\": \"y\"}}}",
     "t.json: server 'a', field 'name': defined twice"},
    {"{\"customer\": 7, \"mcpServers\": {}}", "t.json: \"customer\": must be a string"},
    {"{\"customer\": \"../x\", \"mcpServers\": {}}", "t.json: \"customer\": customer"},
};

static void test_bad(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct config cfg = {0};
		struct err e = {0};
		int rc = config_parse(&cfg, bad_cases[i].text, "t.json", &e);

		CHECK(rc < 0 && e.status == EXIT_USAGE &&
			  !strncmp(e.text, bad_cases[i].error, strlen(bad_cases[i].error)) &&
			  !strchr(e.text, '\n'),
		      "case %zu: wanted '%s', got rc %d '%s'", i, bad_cases[i].error, rc, e.text);
		if (!rc)
			config_free(&cfg);
	}
}

static void test_mcpservers_form(void)
{
	const char *text =
	    "{\"mcpServers\": {"
	    " \"zeta\": {\"command\": \"node\", \"args\": [\"${MCPFS_TEST_DIR}/s.js\", \"x\"],"
	    "   \"env\": {\"TOKEN\": \"t-${MCPFS_TEST_TOKEN}\", \"WS\": \"${WORKSPACE}\"},"
	    "   \"cwd\": \"/tmp\", \"timeout\": 5, \"connect_timeout\": 2.5,"
	    "   \"roots\": [\"/srv/data\", \"file:///x\"], \"description\": \"ignored\"},"
	    " \"alpha\": {\"url\": \"https://h/mcp\", \"headers\": {\"Authorization\": \"Bearer "
	    "${MCPFS_TEST_TOKEN}\"}},"
	    " \"legacy\": {\"type\": \"sse\", \"url\": \"http://127.0.0.1:1/sse\"},"
	    " \"off\": {\"command\": \"nope\", \"disabled\": true}"
	    "}}";
	const struct server_config *z, *a, *l;
	struct config cfg = {0};
	struct err e = {0};

	setenv("MCPFS_TEST_DIR", "/opt/srv", 1);
	setenv("MCPFS_TEST_TOKEN", "s3cret", 1);
	CHECK(config_parse(&cfg, text, "m.json", &e) == 0, "mcpServers form: %s", e.text);
	if (e.status)
		return;
	CHECK(cfg.nservers == 3, "3 servers (one disabled), got %zu", cfg.nservers);
	CHECK(!strcmp(cfg.servers[0].name, "alpha") && !strcmp(cfg.servers[2].name, "zeta"),
	      "sorted by name");
	z = config_find(&cfg, "zeta");
	a = config_find(&cfg, "alpha");
	l = config_find(&cfg, "legacy");
	CHECK(z && z->transport == TRANSPORT_STDIO && !strcmp(z->command, "node"), "zeta stdio");
	CHECK(z && z->nargs == 2 && !strcmp(z->args[0], "/opt/srv/s.js"), "args expanded: %s",
	      z ? z->args[0] : "");
	CHECK(z && z->nenv == 2 && !strcmp(z->env[0], "TOKEN=t-s3cret") &&
		  !strcmp(z->env[1], "WS=${WORKSPACE}"),
	      "env expanded, ${WORKSPACE} kept: %s %s", z ? z->env[0] : "", z ? z->env[1] : "");
	CHECK(z && !strcmp(z->cwd, "/tmp") && z->timeout_s == 5 && z->connect_timeout_s == 2.5,
	      "cwd, timeouts");
	CHECK(z && z->nroots == 2 && !strcmp(z->roots[0], "file:///srv/data") &&
		  !strcmp(z->roots[1], "file:///x"),
	      "roots as URIs");
	CHECK(a && a->transport == TRANSPORT_HTTP && !strcmp(a->url, "https://h/mcp") &&
		  a->nheaders == 1 && !strcmp(a->headers[0], "Authorization: Bearer s3cret"),
	      "url without command is http, headers expanded");
	CHECK(l && l->transport == TRANSPORT_SSE, "type sse");
	CHECK(!config_find(&cfg, "off") && !config_find(&cfg, "nobody"), "find misses");
	CHECK(!strcmp(cfg.origin, "m.json"), "origin");
	CHECK(!cfg.customer, "no customer named");
	config_free(&cfg);
	CHECK(config_parse(&cfg, "{\"customer\": \"acme\", \"mcpServers\": {}}", "c.json", &e) ==
		      0 &&
		  !strcmp(cfg.customer, "acme"),
	      "customer: %s", e.text);
	config_free(&cfg);
}

static void test_typed_form(void)
{
	const char *text =
	    "{\"servers\": {"
	    " \"web\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:9/mcp\"},"
	    " \"local\": {\"type\": \"stdio\", \"command\": \"srv\", \"scope\": \"customer\"}"
	    "}, \"inputs\": []}";
	struct config cfg = {0};
	struct err e = {0};

	CHECK(config_parse(&cfg, text, "vs.json", &e) == 0, "servers form: %s", e.text);
	if (e.status)
		return;
	CHECK(cfg.nservers == 2 && config_find(&cfg, "web")->transport == TRANSPORT_HTTP &&
		  config_find(&cfg, "local")->scope == SCOPE_CUSTOMER,
	      "typed form fields");
	config_free(&cfg);
}

static void test_instantiate(void)
{
	const char *text = "{\"mcpServers\": {\"fs\": {\"command\": \"${CUSTOMER}-srv\","
			   " \"args\": [\"${WORKSPACE}\", \"--state=${STATE}/db\"],"
			   " \"env\": {\"WHO\": \"${CUSTOMER}\"}, \"cwd\": \"${WORKSPACE}\","
			   " \"roots\": [\"${WORKSPACE}\"], \"scope\": \"customer\"}}}";
	struct server_config *i2, *i3, *dup;
	struct config cfg = {0};
	struct err e = {0};

	CHECK(config_parse(&cfg, text, "c.json", &e) == 0, "parse: %s", e.text);
	if (e.status)
		return;
	i2 = server_config_instantiate(&cfg.servers[0], "acme", "/r/workspaces/acme/workspace");
	CHECK(i2 && !strcmp(i2->command, "acme-srv") &&
		  !strcmp(i2->args[0], "/r/workspaces/acme/workspace") &&
		  !strcmp(i2->args[1], "--state=/r/workspaces/acme/state/db") &&
		  !strcmp(i2->env[0], "WHO=acme") &&
		  !strcmp(i2->cwd, "/r/workspaces/acme/workspace") &&
		  !strcmp(i2->roots[0], "file:///r/workspaces/acme/workspace"),
	      "instantiate: %s %s", i2 ? i2->args[1] : "", i2 ? i2->roots[0] : "");
	i3 = server_config_instantiate_state(&cfg.servers[0], "b", "/w", "/s");
	CHECK(i3 && !strcmp(i3->args[1], "--state=/s/db"), "instantiate_state");
	dup = server_config_dup(&cfg.servers[0]);
	CHECK(dup && !strcmp(dup->args[0], "${WORKSPACE}") && dup->scope == SCOPE_CUSTOMER &&
		  dup->args != cfg.servers[0].args,
	      "dup keeps variables and copies");
	server_config_free(i2);
	server_config_free(i3);
	server_config_free(dup);
	config_free(&cfg);
}

static void test_default(void)
{
	struct config cfg = {0};
	struct err e = {0};
	const struct server_config *ev;

	setenv("MCPFS_SERVERS_DIR", "/opt/mcpfs-servers", 1);
	CHECK(config_parse(&cfg, config_default_text(), "(embedded default)", &e) == 0,
	      "default parses: %s", e.text);
	ev = config_find(&cfg, "everything");
	CHECK(cfg.nservers == 3 && ev && !strncmp(ev->args[0], "/opt/mcpfs-servers/", 19),
	      "default: everything under $MCPFS_SERVERS_DIR: %s", ev ? ev->args[0] : "");
	CHECK(config_find(&cfg, "filesystem") &&
		  config_find(&cfg, "filesystem")->scope == SCOPE_CUSTOMER,
	      "filesystem is per customer");
	config_free(&cfg);
	unsetenv("MCPFS_SERVERS_DIR");
	CHECK(config_parse(&cfg, config_default_text(), "(embedded default)", &e) == 0 &&
		  strstr(config_find(&cfg, "everything")->args[0], "/servers/node_modules/"),
	      "default without the variable: the source or installed tree");
	config_free(&cfg);
}

static void test_load(void)
{
	const char *path = "/tmp/mcpfs-test-config.json";
	struct config cfg = {0};
	struct err e = {0};
	FILE *f;

	CHECK(config_load(&cfg, "/nonexistent/mcpfs.json", &e) < 0 &&
		  strstr(e.text, "/nonexistent/mcpfs.json") && e.status == EXIT_USAGE,
	      "missing explicit file: %s", e.text);
	f = fopen(path, "w");
	if (!f)
		return;
	fputs("{\"mcpServers\": {\"x\": {\"command\": \"true\"}}}", f);
	fclose(f);
	setenv("MCPFS_CONFIG", path, 1);
	CHECK(config_load(&cfg, NULL, &e) == 0 && cfg.nservers == 1 && !strcmp(cfg.origin, path),
	      "$MCPFS_CONFIG: %s", e.text);
	config_free(&cfg);
	unsetenv("MCPFS_CONFIG");
	remove(path);
}

/* Unset variables disable their server alone, naming every one of them;
 * the IDE forms expand; ${VAR:-default} takes the default. */
static void test_disabled_and_ide_vars(void)
{
	const char *text =
	    "{\"servers\": {"
	    " \"off\": {\"command\": \"${MCPFS_TEST_UNSET}\", \"args\": "
	    "[\"${env:MCPFS_TEST_UNSET2}\"],"
	    "   \"env\": {\"T\": \"${MCPFS_TEST_UNSET}\"}},"
	    " \"ide\": {\"command\": \"node\", \"env\": {\"K\": \"${input:api-key}\"}},"
	    " \"remote\": {\"type\": \"http\", \"url\": \"${MCPFS_TEST_UNSET_URL}\"},"
	    " \"on\": {\"command\": \"node\", \"args\": [\"${workspaceFolder}/s.js\", "
	    "\"${env:MCPFS_TEST_DIR}\", \"${MCPFS_TEST_UNSET:-fallback}\", \"${userHome}\"]}"
	    "}, \"inputs\": [{\"id\": \"api-key\", \"type\": \"promptString\"}]}";
	const struct server_config *off, *ide, *on, *remote;
	struct config cfg = {0};
	struct err e = {0};
	char cwd[4096];

	setenv("MCPFS_TEST_DIR", "/srv/t", 1);
	setenv("HOME", "/home/t", 1);
	CHECK(config_parse(&cfg, text, "vs.json", &e) == 0, "parse: %s", e.text);
	off = config_find(&cfg, "off");
	ide = config_find(&cfg, "ide");
	on = config_find(&cfg, "on");
	remote = config_find(&cfg, "remote");
	CHECK(off && off->disabled && strstr(off->disabled, "server 'off' is disabled (vs.json)") &&
		  strstr(off->disabled, "${MCPFS_TEST_UNSET}, ${env:MCPFS_TEST_UNSET2}") &&
		  !strstr(strstr(off->disabled, "UNSET}") + 1, "${MCPFS_TEST_UNSET}"),
	      "every missing variable named once: %s", off ? off->disabled : "");
	CHECK(ide && ide->disabled && strstr(ide->disabled, "${input:api-key}") &&
		  strstr(ide->disabled, "${env:NAME}"),
	      "${input:} says what to do: %s", ide ? ide->disabled : "");
	CHECK(remote && remote->disabled, "an http server with an unset url is disabled");
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL, "getcwd");
	CHECK(on && !on->disabled && on->nargs == 4 && !strncmp(on->args[0], cwd, strlen(cwd)) &&
		  !strcmp(on->args[0] + strlen(cwd), "/s.js") && !strcmp(on->args[1], "/srv/t") &&
		  !strcmp(on->args[2], "fallback") && !strcmp(on->args[3], "/home/t"),
	      "workspaceFolder, env:, :-default, userHome: %s %s %s %s", on ? on->args[0] : "",
	      on ? on->args[1] : "", on ? on->args[2] : "", on ? on->args[3] : "");
	config_free(&cfg);
}

/* "imports" in mcpfs's own config: names and paths, ${workspaceFolder} of
 * the imported file (the folder above .vscode), own servers first. */
static void test_imports(void)
{
	char dir[] = "/tmp/mcpfs-test-imports-XXXXXX", path[512], own[600], real[4096];
	struct config cfg = {0};
	struct err e = {0};
	const struct server_config *sc;
	FILE *f;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/.vscode", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.vscode/mcp.json", dir);
	f = fopen(path, "w");
	if (!f)
		return;
	fputs("{\"servers\": {\"vs\": {\"command\": \"node\", \"args\": [\"${workspaceFolder}\"]},"
	      " \"dup\": {\"command\": \"theirs\"}}, \"imports\": [\"/nonexistent\"]}",
	      f);
	fclose(f);
	snprintf(own, sizeof(own), "%s/mcpfs.json", dir);
	f = fopen(own, "w");
	if (!f)
		return;
	fputs("{\"imports\": [\"./.vscode/mcp.json\"], \"mcpServers\": {\"dup\": {\"command\": "
	      "\"ours\"}}}",
	      f);
	fclose(f);
	CHECK(config_load(&cfg, own, &e) == 0 && cfg.nservers == 2, "imports load: %s", e.text);
	sc = config_find(&cfg, "dup");
	CHECK(sc && !strcmp(sc->command, "ours"), "own servers win over imported ones");
	sc = config_find(&cfg, "vs");
	CHECK(realpath(dir, real) && sc && sc->nargs == 1 && !strcmp(sc->args[0], real),
	      "workspaceFolder of .vscode/mcp.json is its project: %s", sc ? sc->args[0] : "");
	config_free(&cfg);
	remove(path);
	remove(own);
	snprintf(path, sizeof(path), "%s/.vscode", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	unsetenv("MCPFS_TEST_UNSET");
	unsetenv("MCPFS_TEST_UNSET2");
	unsetenv("MCPFS_TEST_UNSET_URL");
	test_bad();
	test_mcpservers_form();
	test_typed_form();
	test_instantiate();
	test_default();
	test_load();
	test_disabled_and_ide_vars();
	test_imports();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
