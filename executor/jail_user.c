/* Ids: the jail's one user and group (JAIL_INNER_ID inside) map to a non-zero
 * host uid and gid, so nothing the kernel checks outside the namespace sees
 * root.
 *
 * Run by root, mcpfs maps them to a uid of the jail's own (64000, 64001):
 * nothing of the caller's. Run by a normal user, a user namespace may map
 * only its creator's ids (as bubblewrap does unprivileged): the jail's user
 * is the caller outside, and setgroups is denied, as the kernel requires
 * before an unprivileged gid_map. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jail_i.h"

void jail_host_ids(uid_t as_root, uid_t *uid, gid_t *gid)
{
	if (geteuid() == 0) {
		*uid = as_root;
		*gid = (gid_t)as_root;
	} else {
		*uid = geteuid();
		*gid = getegid();
	}
}

static int write_proc(pid_t pid, const char *file, const char *text, struct err *err)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	if (jail_write_file(path, 0, 0, text, strlen(text)) < 0)
		return err_set(err, EXIT_FAILED, "write(%s, \"%s\"): %s", path, text,
			       strerror(errno));
	return 0;
}

/* As root, setgroups stays "allow" (the default for a privileged writer) on
 * purpose: the child must drop the host's supplementary groups (root's group
 * 0, which the kernel would still honour on host files) with setgroups(0,
 * NULL), and "deny" would forbid exactly that. The seccomp filter denies
 * setgroups afterwards. Rootless, "deny" comes first, as the kernel asks:
 * the caller's own groups stay (README of executor/, "Rootless"). */
int jail_user_setup_parent(struct jail *j, struct err *err)
{
	char map[64];

	if (j->rootless && write_proc(j->pid, "setgroups", "deny", err) < 0)
		return -1;
	snprintf(map, sizeof(map), "%d %u 1\n", JAIL_INNER_ID, (unsigned)j->spec->host_uid);
	if (write_proc(j->pid, "uid_map", map, err) < 0)
		return -1;
	snprintf(map, sizeof(map), "%d %u 1\n", JAIL_INNER_ID, (unsigned)j->spec->host_gid);
	return write_proc(j->pid, "gid_map", map, err);
}

/* Become JAIL_INNER_ID, through raw system calls: glibc's wrappers would
 * broadcast the change to the threads the parent had, which do not exist in
 * this copy, and wait for them forever. The capabilities of the namespace stay until
 * jail_caps_setup_child: no id was 0 inside (0 is not mapped), so the kernel
 * does not clear them on this change. */
int jail_user_setup_child(struct jail *j, char *why, size_t n)
{
	if (!j->rootless && syscall(SYS_setgroups, 0, NULL) < 0)
		return jail_why(why, n, "setgroups(0)");
	if (syscall(SYS_setresgid, JAIL_INNER_ID, JAIL_INNER_ID, JAIL_INNER_ID) < 0)
		return jail_why(why, n, "setresgid(%d)", JAIL_INNER_ID);
	if (syscall(SYS_setresuid, JAIL_INNER_ID, JAIL_INNER_ID, JAIL_INNER_ID) < 0)
		return jail_why(why, n, "setresuid(%d)", JAIL_INNER_ID);
	return 0;
}
