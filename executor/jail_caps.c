/* Capabilities: none left in any set, the bounding set emptied, and
 * no_new_privs, so neither exec nor anything else can give them back. */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail_i.h"

int jail_caps_setup_child(struct jail *j, char *why, size_t n)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int cap;

	(void)j;
	/* The bounding set first: dropping from it needs CAP_SETPCAP. */
	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return jail_why(why, n, "prctl(PR_CAPBSET_DROP, %d)", cap);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return jail_why(why, n, "prctl(PR_CAP_AMBIENT_CLEAR_ALL)");
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) < 0)
		return jail_why(why, n, "capset(0)");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return jail_why(why, n, "prctl(PR_SET_NO_NEW_PRIVS)");
	return 0;
}
