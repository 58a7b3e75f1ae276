#include "mhd_lib.h"

#include <pthread.h>
#include <stddef.h>

#include "../common/dlib.h"

/* Written once under load_once, read-only afterwards. */
static struct mhd_lib table;
static char load_error[ERR_TEXT_MAX];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

const struct mhd_lib *const mhd_lib = &table;

static const struct dlib_symbol symbols[] = {
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

	if (dlib_load("libmicrohttpd.so.12", "apt-get install libmicrohttpd12", symbols,
		      sizeof(symbols) / sizeof(symbols[0]), &t, load_error, sizeof(load_error)) < 0)
		return;
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
