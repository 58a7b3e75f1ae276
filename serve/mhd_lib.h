/* libmicrohttpd, loaded with dlopen on first use, as libcurl and libcrypto
 * are (servers/curl_lib.h): linked, it and the GnuTLS it pulls in (twelve
 * libraries) cost every mcpfs start about 3 ms, and only `serve --http`
 * needs it. */
#ifndef MCPFS_SERVE_MHD_LIB_H
#define MCPFS_SERVE_MHD_LIB_H

#include <microhttpd.h>

#include "../common/err.h"

struct mhd_lib {
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
					   MHD_AcceptPolicyCallback apc, void *apc_cls,
					   MHD_AccessHandlerCallback dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *daemon);
	MHD_socket (*quiesce_daemon)(struct MHD_Daemon *daemon);
	const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *daemon,
						       enum MHD_DaemonInfoType info_type, ...);
	const char *(*lookup_connection_value)(struct MHD_Connection *connection,
					       enum MHD_ValueKind kind, const char *key);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
							    enum MHD_ResponseMemoryMode mode);
	struct MHD_Response *(*create_response_from_callback)(uint64_t size, size_t block_size,
							      MHD_ContentReaderCallback crc,
							      void *crc_cls,
							      MHD_ContentReaderFreeCallback crfc);
	enum MHD_Result (*add_response_header)(struct MHD_Response *response, const char *header,
					       const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *connection,
					  unsigned int status_code, struct MHD_Response *response);
	void (*destroy_response)(struct MHD_Response *response);
};

/* Load libmicrohttpd.so.12, once per process (thread-safe). Returns the
 * table (borrowed, valid for the process's life), or NULL with @err. */
const struct mhd_lib *mhd_lib_load(struct err *err);

/* The table; only valid after mhd_lib_load succeeded. */
extern const struct mhd_lib *const mhd_lib;

#endif
