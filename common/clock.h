/* The monotonic clock, for deadlines and durations (never wall time). */
#ifndef MCPFS_COMMON_CLOCK_H
#define MCPFS_COMMON_CLOCK_H

double clock_now_s(void);  /* CLOCK_MONOTONIC, seconds */
double clock_now_ms(void); /* the same, milliseconds */

#endif
