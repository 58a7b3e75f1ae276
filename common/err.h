/* One-line errors carried upward, in the style of jansson's json_error_t. */
#ifndef MCPFS_COMMON_ERR_H
#define MCPFS_COMMON_ERR_H

/* Exit statuses (README.md, "Use": the exit status line). */
enum mcpfs_exit {
	EXIT_OK_ = 0,
	EXIT_FAILED = 1,      /* the tool or the jailed code failed */
	EXIT_USAGE = 2,	      /* usage or configuration error */
	EXIT_UNREACHABLE = 3, /* a server could not be reached */
};

#define ERR_TEXT_MAX 512

struct err {
	int status;		 /* one of enum mcpfs_exit; 0 while no error is set */
	char text[ERR_TEXT_MAX]; /* one line: CR and LF never appear */
};

/* Set @e (may be NULL) to @status and the formatted text; CR/LF/NUL-unsafe
 * bytes become spaces so the text stays one line. Returns -1 so callers can
 * write `return err_set(...)`. */
int err_set(struct err *e, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefix the text already in @e with "@fmt: " (context added on the way up). */
void err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void err_clear(struct err *e);

#endif
