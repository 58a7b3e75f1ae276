#include "curl_lib.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "../common/dlib.h"

/* Written once under load_once, read-only afterwards. */
static struct curl_lib table;
static char load_error[ERR_TEXT_MAX];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

const struct curl_lib *const curl_lib = &table;

static const struct dlib_symbol symbols[] = {
#define SYM(field)                                                                                 \
	{                                                                                          \
		"curl_" #field, offsetof(struct curl_lib, field)                                   \
	}
    SYM(global_init),
    SYM(easy_init),
    SYM(easy_setopt),
    SYM(easy_getinfo),
    SYM(easy_perform),
    SYM(easy_cleanup),
    SYM(easy_strerror),
    SYM(free),
    SYM(multi_init),
    SYM(multi_add_handle),
    SYM(multi_remove_handle),
    SYM(multi_perform),
    SYM(multi_poll),
    SYM(multi_wakeup),
    SYM(multi_info_read),
    SYM(multi_cleanup),
    SYM(slist_append),
    SYM(slist_free_all),
    SYM(url),
    SYM(url_cleanup),
    SYM(url_get),
    SYM(url_set),
#undef SYM
};

static void load(void)
{
	struct curl_lib t;
	CURLcode rc;

	if (dlib_load("libcurl.so.4", NULL, symbols, sizeof(symbols) / sizeof(symbols[0]), &t,
		      load_error, sizeof(load_error)) < 0)
		return;
	rc = t.global_init(CURL_GLOBAL_DEFAULT);
	if (rc != CURLE_OK) {
		snprintf(load_error, sizeof(load_error), "curl_global_init: %s",
			 t.easy_strerror(rc));
		return;
	}
	table = t;
}

const struct curl_lib *curl_lib_load(struct err *err)
{
	pthread_once(&load_once, load);
	if (load_error[0]) {
		err_set(err, EXIT_UNREACHABLE, "%s", load_error);
		return NULL;
	}
	return &table;
}
