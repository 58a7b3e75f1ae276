#include "names_i.h"
#include "text_i.h"

#include "../common/strmap.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sorted (ASCII order) for bsearch. */
static const char *const py_keywords[] = {
    "False", "None",	 "True",  "and",    "as",   "assert", "async",	"await",    "break",
    "class", "continue", "def",	  "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",	 "if",	  "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",	 "raise", "return", "try",  "while",  "with",	"yield",
};

/* Lower-case words reserved for generated identifiers: Python keywords, soft
 * keywords and builtins (a function named `dict` would shadow the type its
 * own annotations use), JavaScript/TypeScript reserved and contextual words
 * and strict-mode names, the tree's own file names, and `annotations`
 * (bound by the __future__ import in every package __init__). Sorted for
 * bsearch. */
static const char *const reserved[] = {
    "abs",	   "abstract",	 "aiter",	 "all",	      "and",	     "anext",
    "annotations", "any",	 "arguments",	 "as",	      "ascii",	     "assert",
    "asserts",	   "async",	 "await",	 "bigint",    "bin",	     "bool",
    "boolean",	   "break",	 "breakpoint",	 "bytearray", "bytes",	     "callable",
    "case",	   "catch",	 "chr",		 "class",     "classmethod", "compile",
    "complex",	   "const",	 "constructor",	 "continue",  "copyright",   "credits",
    "debugger",	   "declare",	 "def",		 "default",   "del",	     "delattr",
    "delete",	   "dict",	 "dir",		 "divmod",    "do",	     "elif",
    "else",	   "enum",	 "enumerate",	 "eval",      "except",	     "exec",
    "exit",	   "export",	 "exports",	 "extends",   "false",	     "filter",
    "finally",	   "float",	 "for",		 "format",    "from",	     "frozenset",
    "function",	   "get",	 "getattr",	 "global",    "globals",     "globalthis",
    "hasattr",	   "hash",	 "help",	 "hex",	      "id",	     "if",
    "implements",  "import",	 "in",		 "index",     "infer",	     "infinity",
    "input",	   "instanceof", "int",		 "interface", "is",	     "isinstance",
    "issubclass",  "iter",	 "keyof",	 "lambda",    "len",	     "let",
    "license",	   "list",	 "locals",	 "map",	      "match",	     "max",
    "memoryview",  "min",	 "module",	 "namespace", "nan",	     "never",
    "new",	   "next",	 "none",	 "nonlocal",  "not",	     "null",
    "number",	   "object",	 "oct",		 "of",	      "open",	     "or",
    "ord",	   "package",	 "pass",	 "pow",	      "print",	     "private",
    "property",	   "protected",	 "public",	 "quit",      "raise",	     "range",
    "readme",	   "readonly",	 "repr",	 "require",   "return",	     "reversed",
    "round",	   "satisfies",	 "self",	 "set",	      "setattr",     "slice",
    "sorted",	   "static",	 "staticmethod", "str",	      "string",	     "sum",
    "super",	   "switch",	 "symbol",	 "this",      "throw",	     "true",
    "try",	   "tuple",	 "type",	 "typeof",    "undefined",   "unique",
    "unknown",	   "var",	 "vars",	 "void",      "while",	     "with",
    "yield",	   "zip",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool cg_py_keyword(const char *s)
{
	return bsearch(&s, py_keywords, sizeof(py_keywords) / sizeof(py_keywords[0]),
		       sizeof(py_keywords[0]), cmp_str) != NULL;
}

bool cg_ident_reserved(const char *s)
{
	return bsearch(&s, reserved, sizeof(reserved) / sizeof(reserved[0]), sizeof(reserved[0]),
		       cmp_str) != NULL;
}

bool cg_ascii_ident(const char *s)
{
	const char *p;

	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (p = s + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

static bool is_lower(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

void cg_ident_base(const char *name, const char *prefix, char *out)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t len = 0, n, plen;
	unsigned long cp;
	char prev = '_';
	int w;

	while (*p && len < CG_IDENT_MAX) {
		cp = cg_utf8_next(p, &n);
		p += n;
		if ((cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9')) {
			out[len++] = (char)cp;
		} else if (cp >= 'A' && cp <= 'Z') {
			/* getUser → get_user: a word starts where case rises. */
			if (is_lower(prev) && len < CG_IDENT_MAX - 1)
				out[len++] = '_';
			out[len++] = (char)(cp - 'A' + 'a');
		} else if (len && out[len - 1] != '_') {
			out[len++] = '_';
		}
		prev = len ? out[len - 1] : '_';
		if (cp >= 'A' && cp <= 'Z')
			prev = 'A';
	}
	while (len && out[len - 1] == '_')
		len--;
	out[len] = '\0';
	if (!len) {
		/* Nothing ASCII to keep (an emoji, a CJK name): spell the code
		 * points, so the name is still stable and distinct. */
		p = (const unsigned char *)name;
		len = (size_t)snprintf(out, CG_IDENT_BUF, "%s", prefix);
		while (*p && len + 10 < CG_IDENT_MAX) {
			cp = cg_utf8_next(p, &n);
			p += n;
			w = snprintf(out + len, CG_IDENT_BUF - len, "_%lx", cp);
			len += (size_t)w;
		}
		return;
	}
	if (out[0] >= '0' && out[0] <= '9') {
		plen = strlen(prefix);
		if (len + plen + 1 > CG_IDENT_MAX)
			len = CG_IDENT_MAX - plen - 1;
		memmove(out + plen + 1, out, len);
		memcpy(out, prefix, plen);
		out[plen] = '_';
		len += plen + 1;
		out[len] = '\0';
		while (len && out[len - 1] == '_')
			out[--len] = '\0';
	}
	if (cg_ident_reserved(out)) {
		out[len++] = '_';
		out[len] = '\0';
	}
}

/* The identifiers taken so far, as a set: every member maps to the same
 * non-NULL value. */
static char member;

static int taken_add(struct strmap *taken, const char *s)
{
	return strmap_put(taken, s, strlen(s), &member, NULL);
}

static bool taken_has(const struct strmap *taken, const char *s)
{
	return strmap_get(taken, s, strlen(s)) != NULL;
}

struct assign_item {
	const char *name;
	char *base; /* new */
	size_t index;
};

static int cmp_item(const void *a, const void *b)
{
	const struct assign_item *x = a, *y = b;
	int c = strcmp(x->base, y->base);
	bool ex, ey;

	if (c)
		return c;
	/* The name that is already its own identifier keeps it. */
	ex = !strcmp(x->name, x->base);
	ey = !strcmp(y->name, y->base);
	if (ex != ey)
		return ex ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

int cg_idents_assign(const char *const *names, size_t n, const char *prefix, char **out)
{
	struct assign_item *items;
	struct strmap taken;
	const char *group = NULL; /* the identifier of the current run of equal bases */
	char buf[CG_IDENT_BUF + 24];
	size_t i, k, suffix;
	int rc = -ENOMEM;

	for (i = 0; i < n; i++)
		out[i] = NULL;
	strmap_init(&taken, SIZE_MAX);
	items = calloc(n ? n : 1, sizeof(*items));
	if (!items)
		goto out_free;
	for (i = 0; i < n; i++) {
		cg_ident_base(names[i], prefix, buf);
		items[i].name = names[i];
		items[i].index = i;
		items[i].base = strdup(buf);
		if (!items[i].base || taken_add(&taken, items[i].base))
			goto out_free;
	}
	qsort(items, n, sizeof(*items), cmp_item);
	for (i = 0; i < n; i++) {
		if (!group || strcmp(items[i].base, group)) {
			group = out[items[i].index] = items[i].base;
			items[i].base = NULL;
			continue;
		}
		for (suffix = 2;; suffix++) {
			snprintf(buf, sizeof(buf), "%s_%zu", items[i].base, suffix);
			if (!taken_has(&taken, buf))
				break;
		}
		out[items[i].index] = strdup(buf);
		if (!out[items[i].index] || taken_add(&taken, buf))
			goto out_free;
	}
	rc = 0;
out_free:
	if (rc)
		for (k = 0; k < n; k++) {
			free(out[k]);
			out[k] = NULL;
		}
	if (items)
		for (k = 0; k < n; k++)
			free(items[k].base);
	free(items);
	strmap_free(&taken);
	return rc;
}
