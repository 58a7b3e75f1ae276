/* Where MCP hosts keep their config files (each host's documentation), so
 * that `mcpfs config` can show them and an "imports" list can name them. A
 * project's file is looked for in the current folder, a user's under $HOME. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

/* A place: "~/" is $HOME, "$XDG/" is $XDG_CONFIG_HOME (else ~/.config), others are
 * relative to the current folder. */
static const struct {
	const char *name, *host;
	const char *places[3];
} known[] = {
    {"mcpfs", "mcpfs", {"./mcpfs.json", "$XDG/mcpfs/config.json", NULL}},
    {"claude-desktop",
     "Claude Desktop",
     {"$XDG/Claude/claude_desktop_config.json",
      "~/Library/Application Support/Claude/claude_desktop_config.json", NULL}},
    {"claude-code", "Claude Code, project scope", {"./.mcp.json", NULL, NULL}},
    {"claude-code-user", "Claude Code, user scope", {"~/.claude.json", NULL, NULL}},
    {"vscode", "VS Code, workspace", {"./.vscode/mcp.json", NULL, NULL}},
    {"vscode-user", "VS Code, user", {"$XDG/Code/User/mcp.json", NULL, NULL}},
    {"cursor", "Cursor, project", {"./.cursor/mcp.json", NULL, NULL}},
    {"cursor-user", "Cursor, user", {"~/.cursor/mcp.json", NULL, NULL}},
    {"windsurf", "Windsurf", {"~/.codeium/windsurf/mcp_config.json", NULL, NULL}},
};

static void resolve(const char *place, char *out, size_t n)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");

	if (!home || !*home)
		home = "/nonexistent";
	if (!strncmp(place, "~/", 2))
		snprintf(out, n, "%s/%s", home, place + 2);
	else if (!strncmp(place, "$XDG/", 5) && xdg && *xdg)
		snprintf(out, n, "%s/%s", xdg, place + 5);
	else if (!strncmp(place, "$XDG/", 5))
		snprintf(out, n, "%s/.config/%s", home, place + 5);
	else
		snprintf(out, n, "%s", place + 2);
}

static bool find(size_t k, char *out, size_t n)
{
	size_t i;

	for (i = 0; i < 3 && known[k].places[i]; i++) {
		resolve(known[k].places[i], out, n);
		if (access(out, F_OK) == 0)
			return true;
	}
	resolve(known[k].places[0], out, n);
	return false;
}

size_t config_sources(struct config_source *out, size_t max)
{
	size_t k;

	for (k = 0; k < sizeof(known) / sizeof(known[0]) && k < max; k++) {
		out[k].name = known[k].name;
		out[k].host = known[k].host;
		out[k].found = find(k, out[k].path, sizeof(out[k].path));
	}
	return k;
}

int config_source_path(const char *name, char *out, size_t n)
{
	size_t k;

	for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		if (!strcmp(name, known[k].name))
			return find(k, out, n) ? 0 : -ENOENT;
	return -ENOENT;
}
