/* Text that goes into generated files: string literals, docstrings, JSDoc
 * and Markdown lines that no description can break out of (quotes, comment
 * ends, backticks, ${...}, NUL, CR/LF, U+2028). Every function appends to
 * @b and returns the buffer's error (0, -ENOMEM or -E2BIG): a writer may
 * ignore it and check buf_error() once at the end. */
#ifndef MCPFS_CODEGEN_TEXT_I_H
#define MCPFS_CODEGEN_TEXT_I_H

#include <stddef.h>

#include "../common/buf.h"

/* One UTF-8 sequence at @p: its code point and byte length in *n (a
 * malformed byte counts as U+FFFD of length 1). */
unsigned long cg_utf8_next(const unsigned char *p, size_t *n);

/* Each function also comes as _n, taking the length of @s, for JSON strings
 * that hold NUL. */
int cg_py_str_n(struct buf *b, const char *s, size_t len);
int cg_py_doc_n(struct buf *b, const char *s, size_t len, const char *indent);
int cg_ts_str_n(struct buf *b, const char *s, size_t len);
int cg_ts_doc_n(struct buf *b, const char *s, size_t len, const char *indent);
int cg_md_line_n(struct buf *b, const char *s, size_t len, size_t max);

/* A double-quoted Python string literal, ASCII only (\xNN, \uXXXX, \UXXXXXXXX). */
int cg_py_str(struct buf *b, const char *s);
/* Text for the inside of a """docstring""": line ends normalized, every
 * line after the first prefixed with @indent, backslashes and quote runs
 * escaped, control characters spelled as escapes. */
int cg_py_doc(struct buf *b, const char *s, const char *indent);
/* A double-quoted TypeScript string literal (JSON, ASCII only). */
int cg_ts_str(struct buf *b, const char *s);
/* Lines of a JSDoc block: "@indent * text\n" per line; "*" "/" cannot close it. */
int cg_ts_doc(struct buf *b, const char *s, const char *indent);
/* One Markdown line's worth of @s: whitespace runs become one space,
 * control characters go, backticks become quotes, at most @max bytes (cut
 * on a character boundary, marked with "..."). */
int cg_md_line(struct buf *b, const char *s, size_t max);
/* Append each string argument up to a NULL: printf without the parsing,
 * for the per-property lines of a render. */
int cg_cat(struct buf *b, ...) __attribute__((sentinel));
/* Length of the first sentence of @s (to ". ", a blank line, or the end). */
size_t cg_first_sentence(const char *s);
/* CamelCase of a snake_case identifier ("get_sum" → "GetSum"). */
int cg_camel(struct buf *b, const char *ident);

#endif
