/* common/strmap: keys copied, or borrowed from their values (a mount's
 * inodes and size cache): a borrowed key is found, moved by growth and
 * deletion, and never freed by the map (ASan would see the double free). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/strmap.h"
#include "check.h"

#define N 200

static struct strmap_slot *slot_of(const struct strmap *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->slots[i].key && !strcmp(m->slots[i].key, key))
			return &m->slots[i];
	return NULL;
}

static void test_borrowed(void)
{
	struct strmap m;
	char *keys[N], probe[16];
	size_t i;
	int bad = 0;

	strmap_init_borrowed(&m, N);
	for (i = 0; i < N; i++) {
		keys[i] = malloc(16);
		snprintf(keys[i], 16, "file-%zu", i);
		bad += strmap_put(&m, keys[i], strlen(keys[i]), keys[i], NULL) != 0;
	}
	CHECK(!bad && m.count == N, "every key in, through growth: %zu", m.count);
	for (i = 0; i < N; i++) {
		snprintf(probe, sizeof(probe), "file-%zu", i);
		bad += strmap_get(&m, probe, strlen(probe)) != keys[i];
		bad += slot_of(&m, probe) == NULL || slot_of(&m, probe)->key != keys[i];
	}
	CHECK(!bad, "each found by an equal string, its slot holding the caller's key");
	for (i = 0; i < N; i += 2)
		bad += strmap_del(&m, keys[i], strlen(keys[i])) != keys[i];
	for (i = 1; i < N; i += 2)
		bad += strmap_get(&m, keys[i], strlen(keys[i])) != keys[i];
	CHECK(!bad && m.count == N / 2, "half deleted, the rest still found");
	strmap_free(&m);
	for (i = 0; i < N; i++)
		free(keys[i]);
	CHECK(1, "the caller frees its keys after the map");
}

static void test_copied(void)
{
	struct strmap m;
	char key[] = "name";
	int v = 1;

	strmap_init(&m, 4);
	CHECK(strmap_put(&m, key, 4, &v, NULL) == 0, "put");
	CHECK(slot_of(&m, "name") && slot_of(&m, "name")->key != key, "the key is a copy");
	key[0] = 'x';
	CHECK(strmap_get(&m, "name", 4) == &v, "found after the caller's string changed");
	strmap_free(&m);
}

int main(void)
{
	test_borrowed();
	test_copied();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
