/* The unit tests' one assertion: counts passes and failures, names the line
 * of each failure, and lets main() print the "N passed, N failed" line CI
 * reads. Each test is a single translation unit, so the counters are its own.
 *
 * A test that cannot run here (no root, no node, the ASan build) returns
 * CHECK_SKIP("why") from main(): exit status 77 with a "skipped: why" line,
 * which tests/e2e/test_unit.py reports as a skip with that reason, never as
 * a pass. Any other non-zero status is a failure. */
#ifndef MCPFS_TESTS_UNIT_CHECK_H
#define MCPFS_TESTS_UNIT_CHECK_H

#include <stdio.h>

/* Unused in a test that only skips. */
static int passed __attribute__((unused)), failed __attribute__((unused));

#define CHECK_SKIPPED 77

#define CHECK_SKIP(why) (printf("skipped: %s\n", (why)), fflush(stdout), CHECK_SKIPPED)

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
