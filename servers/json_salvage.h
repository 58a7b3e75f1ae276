/* Decoding what a server sent when the strict decoder refuses it for one bad
 * part, so that one bad tool does not take out its whole catalog: invalid
 * UTF-8 becomes U+FFFD, and a value nested past the decoder's depth limit is
 * cut out and replaced by a marker string the catalog check finds and skips. */
#ifndef MCPFS_SERVERS_JSON_SALVAGE_H
#define MCPFS_SERVERS_JSON_SALVAGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Values nested deeper than this are cut: below jansson's parser limit
 * (JSON_PARSER_MAX_DEPTH, 2048), with room for the marker. */
#define JSON_SALVAGE_MAX_DEPTH 2000

/* What replaces a cut value: a string no JSON text written by hand holds
 * (it starts with NUL). */
#define JSON_SALVAGE_CUT "\0mcpfs: nested too deep"
#define JSON_SALVAGE_CUT_LEN (sizeof(JSON_SALVAGE_CUT) - 1)

/* json_loadb(@text, @len, @flags), and when it fails for invalid UTF-8 or
 * depth, once more over a repaired copy. A new value, or NULL with @je from
 * the first attempt. *@repaired (may be NULL) says the copy was used. */
json_t *json_salvage_loadb(const char *text, size_t len, size_t flags, json_error_t *je,
			   bool *repaired);

/* @v is, or holds at any depth, the cut marker. */
bool json_salvage_has_cut(const json_t *v);

#endif
