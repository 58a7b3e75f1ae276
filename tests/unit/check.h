/* The unit tests' one assertion: counts passes and failures, names the line
 * of each failure, and lets main() print the "N passed, N failed" line CI
 * reads. Each test is a single translation unit, so the counters are its own. */
#ifndef MCPFS_TESTS_UNIT_CHECK_H
#define MCPFS_TESTS_UNIT_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (cond) {                                                                        \
			passed++;                                                                  \
		} else {                                                                           \
			failed++;                                                                  \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

#endif
