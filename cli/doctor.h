/* `mcpfs doctor`: what the host gives mcpfs, one check at a time. Each check
 * fills a line: what it found, and for a failure the fix. */
#ifndef MCPFS_CLI_DOCTOR_H
#define MCPFS_CLI_DOCTOR_H

#include <stddef.h>

enum doctor_verdict {
	DOCTOR_OK,
	DOCTOR_WARN, /* mcpfs works, with less (e.g. no cgroup limits) */
	DOCTOR_FAIL, /* a part of mcpfs cannot work here */
};

struct doctor_line {
	char found[8192]; /* what the check saw */
	char fix[8192];	  /* what to do; empty when nothing is to be done */
};

/* The kernel's parts (doctor_host.c): each fills @l and returns its verdict. */
enum doctor_verdict doctor_userns(struct doctor_line *l);
enum doctor_verdict doctor_cgroup(struct doctor_line *l);
enum doctor_verdict doctor_fuse(struct doctor_line *l);
enum doctor_verdict doctor_loop(struct doctor_line *l);
enum doctor_verdict doctor_seccomp(struct doctor_line *l);

#endif
