#include "mhd_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Written once under load_once, read-only afterwards. */
static struct mhd_lib table;
static char load_error[ERR_TEXT_MAX];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

const struct mhd_lib *const mhd_lib = &table;

static const struct {
	const char *symbol;
	size_t offset;
} symbols[] = {
#define SYM(field)                                                                                 \
	{                                                                                          \
		"MHD_" #field, offsetof(struct mhd_lib, field)                                     \
	}
    SYM(start_daemon),
    SYM(stop_daemon),
    SYM(quiesce_daemon),
    SYM(get_daemon_info),
    SYM(lookup_connection_value),
    SYM(create_response_from_buffer),
    SYM(create_response_from_callback),
    SYM(add_response_header),
    SYM(queue_response),
    SYM(destroy_response),
#undef SYM
};

static void load(void)
{
	struct mhd_lib t;
	void *lib, *fn;
	size_t i;

	/* Never unloaded: the daemon's threads may run until the process exits. */
	lib = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(load_error, sizeof(load_error),
			 "dlopen libmicrohttpd.so.12: %s (apt-get "
			 "install libmicrohttpd12)",
			 dlerror());
		return;
	}
	for (i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		fn = dlsym(lib, symbols[i].symbol);
		if (!fn) {
			snprintf(load_error, sizeof(load_error),
				 "libmicrohttpd.so.12 has no %s: %s", symbols[i].symbol, dlerror());
			return;
		}
		memcpy((char *)&t + symbols[i].offset, &fn, sizeof(fn));
	}
	table = t;
}

const struct mhd_lib *mhd_lib_load(struct err *err)
{
	pthread_once(&load_once, load);
	if (load_error[0]) {
		err_set(err, EXIT_FAILED, "serve: %s", load_error);
		return NULL;
	}
	return &table;
}
