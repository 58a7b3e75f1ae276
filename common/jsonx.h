/* Small jansson helpers jansson itself lacks. */
#ifndef MCPFS_COMMON_JSONX_H
#define MCPFS_COMMON_JSONX_H

#include <jansson.h>

/* Sort @arr in place with @cmp, which compares two `json_t *const *`.
 * Returns 0, or -ENOMEM with @arr unchanged. */
int jsonx_array_sort(json_t *arr, int (*cmp)(const void *, const void *));

#endif
