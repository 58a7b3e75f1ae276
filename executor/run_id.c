/* Run and session ids: sortable by time, unique across hosts by 64 random bits. */
#include <errno.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>

#include "run.h"

int run_id_new(char *out, size_t n)
{
	unsigned char r[8];
	struct tm tm;
	time_t t = time(NULL);

	if (n < 40)
		return -ENOSPC;
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -EIO;
	gmtime_r(&t, &tm);
	snprintf(out, n, "%04d%02d%02dT%02d%02d%02dZ-%02x%02x%02x%02x%02x%02x%02x%02x",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
	return 0;
}
