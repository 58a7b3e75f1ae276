#include "jsonpack.h"

#include <stdint.h>

/* msgpack-c's unpacker stops at 32 containers deep (MSGPACK_EMBED_STACK_SIZE,
 * built into the library) and a tool's schema may nest deeper: a container
 * this deep is packed as a document of its own inside an ext value. */
#define SPLIT_DEPTH 24
#define EXT_NESTED 1

/* @v as a document of its own, inside an ext value. */
static int pack_nested(msgpack_packer *pk, const json_t *v)
{
	msgpack_sbuffer inner;
	int rc;

	msgpack_sbuffer_init(&inner);
	rc = jsonpack_append(&inner, v);
	if (!rc)
		rc = msgpack_pack_ext_with_body(pk, inner.data, inner.size, EXT_NESTED);
	msgpack_sbuffer_destroy(&inner);
	return rc ? -1 : 0;
}

static int pack(msgpack_packer *pk, const json_t *v, int depth)
{
	const char *key;
	size_t i, key_len;
	json_t *item;

	if (depth == SPLIT_DEPTH && (json_is_object(v) || json_is_array(v)))
		return pack_nested(pk, v);
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		if (msgpack_pack_map(pk, json_object_size(v)))
			return -1;
		json_object_keylen_foreach((json_t *)v, key, key_len, item)
		{
			if (msgpack_pack_str_with_body(pk, key, key_len) ||
			    pack(pk, item, depth + 1))
				return -1;
		}
		return 0;
	case JSON_ARRAY:
		if (msgpack_pack_array(pk, json_array_size(v)))
			return -1;
		json_array_foreach(v, i, item)
		{
			if (pack(pk, item, depth + 1))
				return -1;
		}
		return 0;
	case JSON_STRING:
		return msgpack_pack_str_with_body(pk, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		return msgpack_pack_int64(pk, json_integer_value(v));
	case JSON_REAL:
		return msgpack_pack_double(pk, json_real_value(v));
	case JSON_TRUE:
		return msgpack_pack_true(pk);
	case JSON_FALSE:
		return msgpack_pack_false(pk);
	case JSON_NULL:
		return msgpack_pack_nil(pk);
	}
	return -1;
}

int jsonpack_append(msgpack_sbuffer *sb, const json_t *v)
{
	msgpack_packer pk;

	if (!v)
		return -1;
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	return pack(&pk, v, 0) ? -1 : 0;
}

/* @o as a tree: new, or NULL (jsonpack_unpack). */
static json_t *to_json(const msgpack_object *o)
{
	json_t *v = NULL, *item;
	uint32_t i;

	switch (o->type) {
	case MSGPACK_OBJECT_NIL:
		return json_null();
	case MSGPACK_OBJECT_BOOLEAN:
		return json_boolean(o->via.boolean);
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		return o->via.u64 > INT64_MAX ? NULL : json_integer((json_int_t)o->via.u64);
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		return json_integer(o->via.i64);
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		return json_real(o->via.f64);
	case MSGPACK_OBJECT_STR:
		return json_stringn(o->via.str.ptr, o->via.str.size);
	case MSGPACK_OBJECT_ARRAY:
		v = json_array();
		for (i = 0; v && i < o->via.array.size; i++)
			if (json_array_append_new(v, to_json(&o->via.array.ptr[i])))
				goto fail;
		return v;
	case MSGPACK_OBJECT_MAP:
		v = json_object();
		for (i = 0; v && i < o->via.map.size; i++) {
			const msgpack_object_kv *kv = &o->via.map.ptr[i];

			if (kv->key.type != MSGPACK_OBJECT_STR)
				goto fail;
			item = to_json(&kv->val);
			if (json_object_setn_new(v, kv->key.via.str.ptr, kv->key.via.str.size,
						 item))
				goto fail;
		}
		return v;
	case MSGPACK_OBJECT_EXT:
		if (o->via.ext.type != EXT_NESTED)
			return NULL;
		return jsonpack_unpack(o->via.ext.ptr, o->via.ext.size);
	case MSGPACK_OBJECT_BIN:
		return NULL;
	}
	return NULL;
fail:
	json_decref(v);
	return NULL;
}

json_t *jsonpack_unpack(const char *buf, size_t len)
{
	msgpack_unpacked u;
	size_t off = 0;
	json_t *v = NULL;

	msgpack_unpacked_init(&u);
	if (msgpack_unpack_next(&u, buf, len, &off) == MSGPACK_UNPACK_SUCCESS && off == len)
		v = to_json(&u.data);
	msgpack_unpacked_destroy(&u);
	return v;
}
