#include "id.h"

#include <string.h>

static bool id_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return !first && (c == '.' || c == '_' || c == '-');
}

bool id_valid(const char *id, const char *what, struct err *err)
{
	size_t i, n;

	if (!id || !*id) {
		err_set(err, EXIT_USAGE, "%s id is empty", what);
		return false;
	}
	n = strnlen(id, ID_MAX + 1);
	if (n > ID_MAX) {
		err_set(err, EXIT_USAGE, "%s id is longer than %d characters", what, ID_MAX);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (id_char(id[i], i == 0))
			continue;
		/* Show the byte, not the id: it may hold anything. */
		err_set(err, EXIT_USAGE,
			"%s id has a forbidden character (byte 0x%02x at %zu); allowed: "
			"[A-Za-z0-9] first, then [A-Za-z0-9._-]",
			what, (unsigned char)id[i], i);
		return false;
	}
	return true;
}
