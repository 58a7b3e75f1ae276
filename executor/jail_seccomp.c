/* Loading the seccomp filter. The policy is executor/policy/seccomp_policy.c;
 * the build turns it into BPF once (gen/seccomp_filter.c), so a run hands
 * the kernel a ready program and builds nothing. */
#define _GNU_SOURCE
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail_i.h"

int jail_seccomp_setup_child(struct jail *j, char *why, size_t n)
{
	(void)j;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &jail_seccomp_prog) < 0)
		return jail_why(why, n, "seccomp(SECCOMP_SET_MODE_FILTER, %u insns)",
				(unsigned)jail_seccomp_prog.len);
	return 0;
}
