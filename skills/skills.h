/* The skills store. A skill is a folder <name>/ holding SKILL.md (YAML front
 * matter with name and description, then instructions) and code files, the
 * layout of the public agent-skills convention. Each customer has one store
 * (<ws>/skills, /skills in the jail) and all share the operator's read-only
 * store (<root>/skills-shared, /skills/shared in the jail). Names follow the
 * convention: lowercase letters, digits and single hyphens, 1-64 characters,
 * starting with a letter (so that skills.<name with _ for -> imports). */
#ifndef MCPFS_SKILLS_SKILLS_H
#define MCPFS_SKILLS_SKILLS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"

#define SKILL_NAME_MAX 64
#define SKILL_DESCRIPTION_MAX 1024
#define SKILL_MD_MAX (256u << 10)  /* SKILL.md */
#define SKILL_FILES_MAX 256u	   /* files in one skill */
#define SKILL_BYTES_MAX (8u << 20) /* bytes in one skill */

/* False with @err (EXIT_USAGE) naming what is wrong. "shared" is reserved. */
bool skill_name_valid(const char *name, struct err *err);

/* Parse SKILL.md: a new object {name, description, <other scalar keys>,
 * instructions}, or NULL with @err naming the line. */
json_t *skill_parse(const char *text, struct err *err);

/* The skills in the store @dir: a new array sorted by name of {name,
 * description, scope: @scope} or, for a broken one, {name, scope, error}.
 * A missing store is empty. NULL with @err only when @dir cannot be read. */
json_t *skill_list(const char *dir, const char *scope, struct err *err);

/* One skill: a new object {name, description, instructions, files: [{path,
 * size}], ...front matter} or NULL with @err (EXIT_USAGE when absent or
 * broken). */
json_t *skill_show(const char *dir, const char *name, struct err *err);

/* Copy the skill folder @src (SKILL.md at its top; no symlinks; regular files
 * and folders only; within the SKILL_* ceilings) into the store @dir as
 * <name>/, replacing an older version atomically. @name (may be NULL) must
 * match the front matter. The saved name goes to @saved (SKILL_NAME_MAX+1).
 * Returns 0 or -1 with @err. */
int skill_save(const char *dir, const char *src, const char *name, char *saved, struct err *err);

/* Delete <name>/ from the store @dir. Returns 0 or -1 with @err. */
int skill_remove(const char *dir, const char *name, struct err *err);

#endif
