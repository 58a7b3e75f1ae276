/* A growable byte buffer with a ceiling set at creation (curl's dynbuf).
 *
 * The buffer remembers its first failure: after an append fails, every later
 * append is a no-op that returns the same error, until buf_reset. A writer
 * therefore appends unconditionally and checks buf_error() once at the end,
 * instead of testing every append. */
#ifndef MCPFS_COMMON_BUF_H
#define MCPFS_COMMON_BUF_H

#include <stddef.h>

struct buf {
	char *data; /* always NUL-terminated when non-NULL; owned */
	size_t len; /* bytes used, excluding the terminator */
	size_t cap; /* bytes allocated */
	size_t max; /* ceiling on len: appends past it fail with -E2BIG */
	int err;    /* the first failure (-ENOMEM, -E2BIG, or buf_fail's); 0 while good */
};

void buf_init(struct buf *b, size_t max);
/* All appenders return the buffer's error: 0, or its first failure
 * (-ENOMEM, -E2BIG for the ceiling). A failed append leaves the bytes as
 * they were; the buffer then stays failed. */
int buf_append(struct buf *b, const void *p, size_t n);
int buf_puts(struct buf *b, const char *s);
int buf_putc(struct buf *b, char c);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 0, or the first failure of an append (or of buf_fail). */
int buf_error(const struct buf *b);
/* Mark the buffer failed with @err (a -errno) unless it failed already;
 * @err 0 changes nothing. For a writer whose own step failed (a missing
 * template, a piece built in another buffer), so that one check at the end
 * sees it. Returns the buffer's error. */
int buf_fail(struct buf *b, int err);
/* The first error of the buffers listed up to NULL, or 0. */
int buf_first_error(const struct buf *b, ...) __attribute__((sentinel));
void buf_reset(struct buf *b); /* len = 0 and no error: starts over, keeps the memory */
void buf_free(struct buf *b);  /* accepts a zeroed or freed buffer */
/* Hand the bytes to the caller (who frees them); the buffer is left empty.
 * Returns "" copies for an empty buffer, NULL only on allocation failure. */
char *buf_steal(struct buf *b, size_t *len);

#endif
