/* A growable byte buffer with a ceiling set at creation (curl's dynbuf). */
#ifndef MCPFS_COMMON_BUF_H
#define MCPFS_COMMON_BUF_H

#include <stddef.h>

struct buf {
	char *data; /* always NUL-terminated when non-NULL; owned */
	size_t len; /* bytes used, excluding the terminator */
	size_t cap; /* bytes allocated */
	size_t max; /* ceiling on len: appends past it fail with -E2BIG */
};

void buf_init(struct buf *b, size_t max);
/* All appenders return 0, -ENOMEM, or -E2BIG (the ceiling); on failure the
 * buffer keeps what it had. */
int buf_append(struct buf *b, const void *p, size_t n);
int buf_puts(struct buf *b, const char *s);
int buf_putc(struct buf *b, char c);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_reset(struct buf *b); /* len = 0, keeps the memory */
void buf_free(struct buf *b);  /* accepts a zeroed or freed buffer */
/* Hand the bytes to the caller (who frees them); the buffer is left empty.
 * Returns "" copies for an empty buffer, NULL only on allocation failure. */
char *buf_steal(struct buf *b, size_t *len);

#endif
