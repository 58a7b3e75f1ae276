#include "dlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int dlib_load(const char *soname, const char *hint, const struct dlib_symbol *syms, size_t n,
	      void *table, char *error, size_t error_size)
{
	void *lib, *fn;
	size_t i;

	lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(error, error_size, "dlopen %s: %s%s%s%s", soname, dlerror(),
			 hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
		return -1;
	}
	for (i = 0; i < n; i++) {
		fn = dlsym(lib, syms[i].name);
		if (!fn) {
			snprintf(error, error_size, "%s has no %s", soname, syms[i].name);
			return -1;
		}
		memcpy((char *)table + syms[i].offset, &fn, sizeof(fn));
	}
	return 0;
}
