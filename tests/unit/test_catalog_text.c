/* common/catalog_text: the compact catalog gives back the trees it was
 * built from (the whole array, one tool by index or by exact name), byte for
 * byte; tests/unit/test_jsonpack.c tries its form with bad buffers. */
#include <string.h>

#include "../../common/catalog_text.h"
#include "check.h"

static const char CATALOG[] = "[{\"name\":\"b_tool\",\"title\":\"B\",\"inputSchema\":{\"type\":"
			      "\"object\",\"z\":1,\"a\":2.5}},"
			      "{\"name\":\"a_nul\",\"description\":\"nul \\u0000 inside\"},"
			      "{\"description\":\"no name\"},"
			      "{\"name\":\"é\",\"execution\":{\"taskSupport\":\"required\"}}]";

static void test_round_trip(void)
{
	json_t *tools = json_loads(CATALOG, JSON_ALLOW_NUL, NULL), *back, *one;
	struct catalog_text *c = catalog_text_new(tools), *same, *other;
	char *a, *b;

	CHECK(c && catalog_text_count(c) == 4, "four tools: %zu", catalog_text_count(c));
	back = catalog_text_tools(c);
	CHECK(json_equal(back, tools), "the array comes back equal");
	a = json_dumps(tools, JSON_COMPACT);
	b = json_dumps(back, JSON_COMPACT);
	CHECK(a && b && !strcmp(a, b), "key order kept: %s", b ? b : "(null)");
	free(a);
	free(b);
	one = catalog_text_tool(c, "b_tool");
	CHECK(json_equal(one, json_array_get(tools, 0)), "one tool by name");
	json_decref(one);
	one = catalog_text_tool(c, "é");
	CHECK(json_equal(one, json_array_get(tools, 3)), "a UTF-8 name");
	json_decref(one);
	CHECK(!catalog_text_tool(c, "b_too"), "a prefix is not a name");
	one = catalog_text_tool(c, "a_nul");
	CHECK(json_equal(one, json_array_get(tools, 1)), "a string holding NUL comes back");
	json_decref(one);
	CHECK(!catalog_text_tool(c, "B_TOOL"), "names are exact");
	same = catalog_text_new(back);
	json_array_remove(back, 1);
	other = catalog_text_new(back);
	CHECK(catalog_text_same(c, same) && !catalog_text_same(c, other), "same: byte for byte");
	CHECK(!catalog_text_same(c, NULL) && catalog_text_same(NULL, NULL), "same: NULL");
	CHECK(catalog_text_ref(c) == c, "ref gives the same catalog");
	catalog_text_free(c);
	CHECK(catalog_text_count(c) == 4, "one reference left holds it");
	catalog_text_free(c);
	catalog_text_free(same);
	catalog_text_free(other);
	catalog_text_free(NULL);
	json_decref(back);
	json_decref(tools);
}

/* A customer's part of a catalog shares its buffer and outlives it. */
static void test_subset(void)
{
	json_t *tools = json_loads(CATALOG, JSON_ALLOW_NUL, NULL), *all, *shown, *foreign, *back;
	struct catalog_text *c = catalog_text_new(tools), *sub, *whole;

	all = catalog_text_tools(c);
	CHECK(catalog_text_name(c, 0) && !strcmp(catalog_text_name(c, 0), "b_tool") &&
		  !catalog_text_name(c, 2),
	      "names by index; NULL for a tool without one");
	whole = catalog_text_subset(c, all, all);
	CHECK(whole == c, "everything shown: the catalog itself");
	catalog_text_free(whole);
	shown = json_array();
	json_array_append(shown, json_array_get(all, 0));
	json_array_append(shown, json_array_get(all, 3));
	sub = catalog_text_subset(c, all, shown);
	catalog_text_free(c);
	CHECK(sub && catalog_text_count(sub) == 2, "two tools shown");
	back = sub ? catalog_text_tools(sub) : NULL;
	CHECK(json_equal(back, shown), "the part comes back equal, after the whole is dropped");
	json_decref(back);
	back = sub ? catalog_text_tool(sub, "é") : NULL;
	CHECK(json_equal(back, json_array_get(tools, 3)), "a shown tool by name");
	json_decref(back);
	CHECK(sub && !catalog_text_tool(sub, "a_nul"), "a hidden tool is not found");
	catalog_text_free(sub);
	foreign = json_array();
	json_array_append_new(foreign, json_object());
	c = catalog_text_new(tools);
	CHECK(!catalog_text_subset(c, all, foreign), "an object not of the catalog: NULL");
	catalog_text_free(c);
	json_decref(foreign);
	json_decref(shown);
	json_decref(all);
	json_decref(tools);
}

/* A tool nested past msgpack-c's 32 levels comes back whole. */
static void test_deep_tool(void)
{
	json_t *tools = json_array(), *tool = json_pack("{s:s}", "name", "deep"), *at = tool, *back;
	struct catalog_text *c;
	int i;

	for (i = 0; i < 100; i++) {
		json_t *inner = json_object();

		json_object_set_new(at, "properties", inner);
		at = inner;
	}
	json_array_append_new(tools, tool);
	c = catalog_text_new(tools);
	back = c ? catalog_text_at(c, 0) : NULL;
	CHECK(json_equal(back, tool), "a tool 100 objects deep");
	json_decref(back);
	catalog_text_free(c);
	json_decref(tools);
}

static void test_empty_and_bad(void)
{
	json_t *empty = json_array(), *obj = json_object(), *back;
	struct catalog_text *c = catalog_text_new(empty);

	back = catalog_text_tools(c);
	CHECK(c && catalog_text_count(c) == 0 && json_is_array(back) && !json_array_size(back),
	      "an empty catalog");
	CHECK(!catalog_text_tool(c, ""), "no tool in it");
	CHECK(!catalog_text_new(obj) && !catalog_text_new(NULL), "not an array: NULL");
	json_decref(back);
	catalog_text_free(c);
	json_decref(empty);
	json_decref(obj);
}

int main(void)
{
	test_round_trip();
	test_subset();
	test_deep_tool();
	test_empty_and_bad();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
