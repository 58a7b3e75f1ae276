#include "jsonrpc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_salvage.h"

static bool id_valid(const json_t *id)
{
	return json_is_integer(id) || json_is_string(id) || json_is_real(id);
}

enum jsonrpc_kind jsonrpc_classify(const json_t *msg)
{
	const json_t *method, *id, *result, *error;

	if (!json_is_object(msg))
		return JSONRPC_INVALID;
	if (!json_is_string(json_object_get(msg, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(msg, "jsonrpc")), "2.0"))
		return JSONRPC_INVALID;
	method = json_object_get(msg, "method");
	id = json_object_get(msg, "id");
	if (method) {
		if (!json_is_string(method))
			return JSONRPC_INVALID;
		if (!id)
			return JSONRPC_NOTIFICATION;
		return id_valid(id) ? JSONRPC_REQUEST : JSONRPC_INVALID;
	}
	result = json_object_get(msg, "result");
	error = json_object_get(msg, "error");
	if (!id || (!result == !error))
		return JSONRPC_INVALID;
	/* An error about a request the server could not parse has a null id. */
	if (!id_valid(id) && !(error && json_is_null(id)))
		return JSONRPC_INVALID;
	if (error && !json_is_object(error))
		return JSONRPC_INVALID;
	return JSONRPC_RESPONSE;
}

json_t *jsonrpc_request_new(json_int_t id, const char *method, json_t *params)
{
	json_t *m = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", id, "method", method);

	if (m && params && json_object_set_new(m, "params", params) < 0) {
		json_decref(m);
		return NULL;
	}
	if (!m)
		json_decref(params);
	return m;
}

json_t *jsonrpc_notification_new(const char *method, json_t *params)
{
	json_t *m = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);

	if (m && params && json_object_set_new(m, "params", params) < 0) {
		json_decref(m);
		return NULL;
	}
	if (!m)
		json_decref(params);
	return m;
}

json_t *jsonrpc_result_new(json_t *id, json_t *result)
{
	if (!result)
		result = json_object();
	return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "result",
			 result);
}

json_t *jsonrpc_error_new(json_t *id, int code, const char *message)
{
	return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(),
			 "error", "code", code, "message", message);
}

static int dump_cb(const char *p, size_t n, void *ctx)
{
	return buf_append(ctx, p, n) ? -1 : 0;
}

int jsonrpc_encode_line(const json_t *msg, struct buf *out)
{
	size_t len0 = out->len;

	/* Compact output never contains a raw newline: strings escape it. */
	if (json_dump_callback(msg, dump_cb, out, JSON_COMPACT) < 0 || buf_putc(out, '\n')) {
		bool too_big = out->len + 1 >= out->max;

		out->len = len0;
		if (out->data)
			out->data[len0] = '\0';
		return too_big ? -E2BIG : -ENOMEM;
	}
	return 0;
}

json_t *jsonrpc_decode(const char *text, size_t len, struct err *err)
{
	json_error_t je;
	json_t *msg, *v;
	size_t i;

	msg = json_salvage_loadb(text, len, JSON_ALLOW_NUL, &je, NULL);
	if (!msg) {
		err_set(err, 1, "%d:%d: %s", je.line, je.column, je.text);
		return NULL;
	}
	if (json_is_array(msg)) {
		if (!json_array_size(msg)) {
			err_set(err, 1, "empty batch");
			goto out_free;
		}
		json_array_foreach(msg, i, v)
		{
			if (jsonrpc_classify(v) == JSONRPC_INVALID) {
				err_set(err, 1, "batch element %zu is not a JSON-RPC 2.0 message",
					i);
				goto out_free;
			}
		}
		return msg;
	}
	if (jsonrpc_classify(msg) == JSONRPC_INVALID) {
		err_set(err, 1, "not a JSON-RPC 2.0 message");
		goto out_free;
	}
	return msg;
out_free:
	json_decref(msg);
	return NULL;
}

void jsonrpc_lines_init(struct jsonrpc_lines *ls, size_t max)
{
	buf_init(&ls->line, max);
}

int jsonrpc_lines_feed(struct jsonrpc_lines *ls, const char *data, size_t n,
		       int (*on_line)(void *ctx, const char *line, size_t len), void *ctx)
{
	const char *nl;
	size_t k, len;
	int rc;

	while (n) {
		nl = memchr(data, '\n', n);
		if (!nl)
			return buf_append(&ls->line, data, n);
		k = (size_t)(nl - data);
		rc = buf_append(&ls->line, data, k);
		if (rc)
			return rc;
		len = ls->line.len;
		if (len && ls->line.data[len - 1] == '\r')
			ls->line.data[--len] = '\0';
		rc = len ? on_line(ctx, ls->line.data, len) : 0;
		buf_reset(&ls->line);
		if (rc)
			return rc;
		data = nl + 1;
		n -= k + 1;
	}
	return 0;
}

void jsonrpc_lines_free(struct jsonrpc_lines *ls)
{
	buf_free(&ls->line);
}
