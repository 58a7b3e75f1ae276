/* list_skills, load_skill, save_skill: the customer's skills store (and the
 * operator's shared one, read-only), as skills/skills.h keeps them. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/buf.h"
#include "../common/fsx.h"
#include "../skills/skills.h"
#include "../common/fsx.h"
#include "engine.h"
#include "tools.h"

#define SKILL_FILE_PATH_MAX 255

static int list_skills(struct tool_ctx *t, json_t *args, struct tool_out *out, struct err *err)
{
	char shared[4096];
	json_t *mine, *theirs;
	struct ws ws;

	(void)args;
	if (tool_ws(t, &ws, err) < 0 ||
	    ws_skills_shared(t->e->o.root, shared, sizeof(shared), err) < 0)
		return -1;
	mine = skill_list(ws.skills, "customer", err);
	theirs = mine ? skill_list(shared, "shared", err) : NULL;
	if (!theirs) {
		json_decref(mine);
		return -1;
	}
	json_array_extend(mine, theirs);
	json_decref(theirs);
	out->structured = json_pack("{s:o}", "skills", mine);
	return out->structured ? 0 : err_set(err, EXIT_FAILED, "out of memory");
}

/* The Python module a skill imports as: hyphens become underscores. */
static void module_of(const char *name, const char *scope, char *out, size_t n)
{
	size_t i;
	int len = snprintf(out, n, "skills.%s%s", strcmp(scope, "shared") ? "" : "shared.", name);

	for (i = (size_t)len - strlen(name); len > 0 && i < (size_t)len && i < n; i++)
		if (out[i] == '-')
			out[i] = '_';
}

static int load_skill(struct tool_ctx *t, json_t *args, struct tool_out *out, struct err *err)
{
	const char *name = json_string_value(json_object_get(args, "name"));
	char shared[4096], module[128];
	const char *scope = "customer";
	struct err e = {0};
	struct ws ws;
	json_t *s;

	if (!skill_name_valid(name, err) || tool_ws(t, &ws, err) < 0)
		return -1;
	s = skill_show(ws.skills, name, &e);
	if (!s) {
		if (ws_skills_shared(t->e->o.root, shared, sizeof(shared), err) < 0)
			return -1;
		s = skill_show(shared, name, err);
		scope = "shared";
		if (!s) {
			if (e.status == EXIT_USAGE && err->status == EXIT_USAGE)
				return err_set(err, EXIT_USAGE,
					       "no skill '%s'; list_skills names them", name);
			return -1;
		}
	}
	module_of(name, scope, module, sizeof(module));
	json_object_set_new(s, "scope", json_string(scope));
	json_object_set_new(s, "module", json_string(module));
	out->structured = s;
	return 0;
}

/* A file of the skill being saved, at @rel beneath @dir (folders made). */
static int put_file(int dir, const char *rel, const char *data, size_t len, struct err *err)
{
	char path[SKILL_FILE_PATH_MAX + 1], *p, *slash;
	int d = dup(dir), sub, rc;

	if (d < 0)
		return err_set(err, EXIT_FAILED, "dup: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s", rel);
	for (p = path; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		rc = fsx_mkdir_at(d, p, 0755);
		sub = rc ? rc : fsx_open_at(d, p, O_RDONLY | O_DIRECTORY, 0);
		close(d);
		if (sub < 0)
			return err_set(err, EXIT_FAILED, "skill file '%s': %s", rel,
				       strerror(-sub));
		d = sub;
	}
	rc = fsx_write_atomic_at(d, p, data, len, 0644);
	close(d);
	return rc ? err_set(err, EXIT_FAILED, "skill file '%s': %s", rel, strerror(-rc)) : 0;
}

static int file_name_ok(const char *rel, struct err *err)
{
	const char *p = rel, *slash;
	size_t len;

	if (!*rel || strlen(rel) > SKILL_FILE_PATH_MAX || rel[0] == '/')
		return err_set(err, EXIT_USAGE,
			       "skill file '%.200s': want a relative path of at most %d bytes", rel,
			       SKILL_FILE_PATH_MAX);
	for (;;) {
		slash = strchr(p, '/');
		len = slash ? (size_t)(slash - p) : strlen(p);
		if (!len || (len <= 2 && !strncmp(p, "..", len)))
			return err_set(err, EXIT_USAGE,
				       "skill file '%.200s': empty, '.' or '..' components are not "
				       "allowed",
				       rel);
		if (!slash)
			break;
		p = slash + 1;
	}
	if (!strcmp(rel, "SKILL.md"))
		return err_set(err, EXIT_USAGE,
			       "skill file 'SKILL.md' is written from name, description and "
			       "instructions");
	return 0;
}

static int save_skill(struct tool_ctx *t, json_t *args, struct tool_out *out, struct err *err)
{
	const char *name = json_string_value(json_object_get(args, "name"));
	const char *desc = json_string_value(json_object_get(args, "description"));
	const char *instr = json_string_value(json_object_get(args, "instructions"));
	json_t *files = json_object_get(args, "files"), *v;
	char tmp[4096], saved[SKILL_NAME_MAX + 1], module[128];
	const char *rel;
	struct buf md;
	struct ws ws;
	int dir = -1, rc = -1;

	if (!skill_name_valid(name, err))
		return -1;
	if (strpbrk(desc, "\r\n"))
		return err_set(err, EXIT_USAGE, "description must be one line");
	json_object_foreach(files, rel, v) if (!json_is_string(v)) return err_set(
	    err, EXIT_USAGE, "files['%.200s'] must be a string (the file's text)", rel);
	json_object_foreach(files, rel, v) if (file_name_ok(rel, err) < 0) return -1;
	if (tool_ws(t, &ws, err) < 0)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s/run", t->e->o.root);
	mkdir(tmp, 0755);
	snprintf(tmp, sizeof(tmp), "%s/run/skill-XXXXXX", t->e->o.root);
	if (!mkdtemp(tmp))
		return err_set(err, EXIT_FAILED, "mkdtemp %s: %s", tmp, strerror(errno));
	buf_init(&md, SKILL_MD_MAX);
	buf_printf(&md, "---\nname: %s\ndescription: \"%s\"\n---\n\n%s\n", name, desc, instr);
	dir = fsx_open_dir(tmp);
	if (dir < 0 || md.len >= md.max) {
		err_set(err, EXIT_USAGE, "%s",
			dir < 0 ? "temp folder vanished" : "SKILL.md past 256 KiB");
		goto out;
	}
	if (put_file(dir, "SKILL.md", md.data, md.len, err) < 0)
		goto out;
	json_object_foreach(files, rel, v) if (put_file(dir, rel, json_string_value(v),
							json_string_length(v), err) < 0) goto out;
	if (skill_save(ws.skills, tmp, name, saved, err) < 0)
		goto out;
	module_of(saved, "customer", module, sizeof(module));
	out->structured = json_pack("{s:s,s:s,s:I}", "name", saved, "module", module, "files",
				    (json_int_t)json_object_size(files) + 1);
	rc = out->structured ? 0 : err_set(err, EXIT_FAILED, "out of memory");
out:
	if (dir >= 0)
		close(dir);
	fsx_remove_tree(tmp);
	buf_free(&md);
	return rc;
}

const struct serve_tool tools_skills[] = {
    {
	.name = "list_skills",
	.title = "List saved skills",
	.description =
	    "List the skills you can use: reusable code with instructions, saved earlier "
	    "(scope customer) or installed for everyone (scope shared, read-only). Check here "
	    "before writing code for a task you may have solved before; load_skill shows one.",
	.input_schema = "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	.output_schema = "{\"type\":\"object\",\"properties\":{\"skills\":{\"type\":\"array\","
			 "\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
			 "\"string\"},\"description\":{\"type\":\"string\"},\"scope\":{\"type\":"
			 "\"string\"},\"error\":{\"type\":\"string\"}},\"required\":[\"name\","
			 "\"scope\"]}}},\"required\":[\"skills\"]}",
	.hints = TOOL_READ_ONLY | TOOL_IDEMPOTENT,
	.fn = list_skills,
    },
    {
	.name = "load_skill",
	.title = "Load a skill",
	.description =
	    "Show one skill: its instructions, its files, and the module to import it from in "
	    "execute_code (skills.<name>, hyphens as underscores; shared ones under "
	    "skills.shared).",
	.input_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
			"\"maxLength\":64}},\"required\":[\"name\"],\"additionalProperties\":"
			"false}",
	.output_schema =
	    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
	    "\"description\":{\"type\":\"string\"},\"instructions\":{\"type\":\"string\"},"
	    "\"files\":{\"type\":\"array\"},\"scope\":{\"type\":\"string\"},"
	    "\"module\":{\"type\":\"string\"}},"
	    "\"required\":[\"name\",\"description\",\"instructions\",\"scope\",\"module\"]}",
	.hints = TOOL_READ_ONLY | TOOL_IDEMPOTENT,
	.fn = load_skill,
    },
    {
	.name = "save_skill",
	.title = "Save a skill",
	.description =
	    "Save code that worked as a skill, to reuse in later runs and sessions: a name "
	    "(lowercase letters, digits, single hyphens; at most 64), a one-line description of "
	    "when to use it, instructions (markdown), and files ({\"__init__.py\": \"...\"}: "
	    "the code, importable as skills.<name>). Replaces a skill of the same name "
	    "atomically. At most 256 files and 8 MiB.",
	.input_schema =
	    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":64},"
	    "\"description\":{\"type\":\"string\",\"maxLength\":1024},"
	    "\"instructions\":{\"type\":\"string\",\"maxLength\":200000},"
	    "\"files\":{\"type\":\"object\",\"description\":\"relative path -> file text\"}},"
	    "\"required\":[\"name\",\"description\",\"instructions\"],"
	    "\"additionalProperties\":false}",
	.output_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
			 "\"module\":{\"type\":\"string\"},\"files\":{\"type\":\"integer\"}},"
			 "\"required\":[\"name\",\"module\",\"files\"]}",
	.hints = TOOL_IDEMPOTENT,
	.fn = save_skill,
    },
    {0},
};
