/* Libraries opened on first use (libcurl, libcrypto, libmicrohttpd): a
 * command that never needs one starts without paying for it, and a machine
 * without one runs every other command. */
#ifndef MCPFS_DLIB_H
#define MCPFS_DLIB_H

#include <stddef.h>

/* One function of the library, and where its pointer goes in the table. */
struct dlib_symbol {
	const char *name;
	size_t offset;
};

/* Open @soname (never closed: its users may run until the process exits)
 * and write the address of each of @syms into @table at its offset. 0, or
 * -1 with one line in @error naming the library, the missing symbol and
 * @hint (how to install it; may be NULL). @table is left half-written on
 * failure: the caller keeps the error and never hands out the table. */
int dlib_load(const char *soname, const char *hint, const struct dlib_symbol *syms, size_t n,
	      void *table, char *error, size_t error_size);

#endif
