/* libcurl, loaded with dlopen on first use. Linking it would cost every
 * mcpfs start ~8 ms (libcurl pulls in ~30 libraries, GnuTLS and p11-kit run
 * constructors), paid even by stdio-only configs and by every jailed run;
 * only the HTTP and SSE transports need it. */
#ifndef MCPFS_SERVERS_CURL_LIB_H
#define MCPFS_SERVERS_CURL_LIB_H

#include <curl/curl.h>

#include "../common/err.h"

struct curl_lib {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *e, CURLoption option, ...);
	CURLcode (*easy_getinfo)(CURL *e, CURLINFO info, ...);
	CURLcode (*easy_perform)(CURL *e);
	void (*easy_cleanup)(CURL *e);
	const char *(*easy_strerror)(CURLcode code);
	void (*free)(void *p);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_add_handle)(CURLM *m, CURL *e);
	CURLMcode (*multi_remove_handle)(CURLM *m, CURL *e);
	CURLMcode (*multi_perform)(CURLM *m, int *running);
	CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd *extra, unsigned n, int timeout_ms,
				int *numfds);
	CURLMcode (*multi_wakeup)(CURLM *m);
	CURLMsg *(*multi_info_read)(CURLM *m, int *left);
	CURLMcode (*multi_cleanup)(CURLM *m);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	CURLU *(*url)(void);
	void (*url_cleanup)(CURLU *u);
	CURLUcode (*url_get)(const CURLU *u, CURLUPart what, char **part, unsigned flags);
	CURLUcode (*url_set)(CURLU *u, CURLUPart what, const char *part, unsigned flags);
};

/* Load libcurl and run curl_global_init, once per process (thread-safe).
 * Returns the table (borrowed, valid for the process's life), or NULL with
 * @err (EXIT_UNREACHABLE) saying why. */
const struct curl_lib *curl_lib_load(struct err *err);

/* The table; only valid after curl_lib_load succeeded. */
extern const struct curl_lib *const curl_lib;

#endif
