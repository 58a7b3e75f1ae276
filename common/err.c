#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r' || (unsigned char)*s < 0x20)
			*s = ' ';
}

int err_set(struct err *e, int status, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	one_line(e->text);
	e->status = status;
	return -1;
}

void err_prefix(struct err *e, const char *fmt, ...)
{
	char line[2 * ERR_TEXT_MAX + 2];
	size_t n;
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(line, ERR_TEXT_MAX, fmt, ap);
	va_end(ap);
	n = strlen(line);
	memcpy(line + n, ": ", 2);
	memcpy(line + n + 2, e->text, sizeof(e->text));
	line[sizeof(line) - 1] = '\0';
	snprintf(e->text, sizeof(e->text), "%s", line);
	one_line(e->text);
}

void err_clear(struct err *e)
{
	if (e) {
		e->status = 0;
		e->text[0] = '\0';
	}
}
