/* The seccomp policy: an allowlist with ENOSYS as the default (programs
 * treat an unknown call as missing and fall back), EPERM for the calls that
 * reach beyond the jail, argument checks for clone, socket and ioctl, and
 * death on a foreign architecture (x32, int 0x80).
 *
 * A build step, not part of mcpfs: compiled with libseccomp for the machine
 * it runs on and written to standard output as a C array of BPF
 * instructions (the Makefile's gen/seccomp_filter.c), which
 * executor/jail_seccomp.c loads as it is. Building the filter at each run
 * cost 2 ms of a jail's start-up. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#define JAIL_FILTER_MAX (64u << 10)

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const char *const allowed[] = {
    /* files and descriptors */
    "read",
    "write",
    "open",
    "openat",
    "openat2",
    "close",
    "close_range",
    "stat",
    "fstat",
    "lstat",
    "newfstatat",
    "statx",
    "lseek",
    "pread64",
    "pwrite64",
    "readv",
    "writev",
    "preadv",
    "pwritev",
    "preadv2",
    "pwritev2",
    "access",
    "faccessat",
    "faccessat2",
    "pipe",
    "pipe2",
    "dup",
    "dup2",
    "dup3",
    "fcntl",
    "flock",
    "fsync",
    "fdatasync",
    "sync",
    "syncfs",
    "sync_file_range",
    "truncate",
    "ftruncate",
    "fallocate",
    "fadvise64",
    "readahead",
    "getdents",
    "getdents64",
    "getcwd",
    "chdir",
    "fchdir",
    "rename",
    "renameat",
    "renameat2",
    "mkdir",
    "mkdirat",
    "rmdir",
    "creat",
    "link",
    "linkat",
    "unlink",
    "unlinkat",
    "symlink",
    "symlinkat",
    "readlink",
    "readlinkat",
    "chmod",
    "fchmod",
    "fchmodat",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "umask",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "statfs",
    "fstatfs",
    "sendfile",
    "splice",
    "tee",
    "vmsplice",
    "copy_file_range",
    "getxattr",
    "lgetxattr",
    "fgetxattr",
    "listxattr",
    "llistxattr",
    "flistxattr",
    "memfd_create",
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "inotify_rm_watch",
    /* polling and events */
    "poll",
    "ppoll",
    "select",
    "pselect6",
    "epoll_create",
    "epoll_create1",
    "epoll_ctl",
    "epoll_wait",
    "epoll_pwait",
    "epoll_pwait2",
    "eventfd",
    "eventfd2",
    "signalfd",
    "signalfd4",
    "timerfd_create",
    "timerfd_settime",
    "timerfd_gettime",
    /* memory */
    "brk",
    "mmap",
    "munmap",
    "mremap",
    "mprotect",
    "msync",
    "mincore",
    "madvise",
    "mlock",
    "mlock2",
    "munlock",
    "mlockall",
    "munlockall",
    "membarrier",
    /* processes and threads (clone below, with its flags checked) */
    "fork",
    "vfork",
    "execve",
    "execveat",
    "exit",
    "exit_group",
    "wait4",
    "waitid",
    "kill",
    "tkill",
    "tgkill",
    "getpid",
    "gettid",
    "getppid",
    "getpgrp",
    "getpgid",
    "setpgid",
    "getsid",
    "setsid",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getresuid",
    "getresgid",
    "getgroups",
    "capget",
    "set_tid_address",
    "set_robust_list",
    "get_robust_list",
    "rseq",
    "futex",
    "futex_waitv",
    "arch_prctl",
    "prctl",
    "sched_yield",
    "sched_getaffinity",
    "sched_setaffinity",
    "sched_getparam",
    "sched_setparam",
    "sched_getscheduler",
    "sched_setscheduler",
    "sched_get_priority_max",
    "sched_get_priority_min",
    "sched_rr_get_interval",
    "sched_getattr",
    "sched_setattr",
    "getpriority",
    "setpriority",
    "ioprio_get",
    "ioprio_set",
    "getcpu",
    "pidfd_open",
    "pidfd_send_signal",
    "uname",
    "getrlimit",
    "setrlimit",
    "prlimit64",
    "getrusage",
    "sysinfo",
    "times",
    "restart_syscall",
    /* signals and time */
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "rt_sigpending",
    "rt_sigtimedwait",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "rt_sigsuspend",
    "sigaltstack",
    "pause",
    "nanosleep",
    "clock_nanosleep",
    "clock_gettime",
    "clock_getres",
    "gettimeofday",
    "time",
    "getitimer",
    "setitimer",
    "alarm",
    "timer_create",
    "timer_settime",
    "timer_gettime",
    "timer_getoverrun",
    "timer_delete",
    "getrandom",
    /* sockets (socket and socketpair below, with the family checked) */
    "connect",
    "accept",
    "accept4",
    "bind",
    "listen",
    "shutdown",
    "getsockname",
    "getpeername",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "sendmmsg",
    "recvmmsg",
    "setsockopt",
    "getsockopt",
    /* System V and POSIX IPC: private to the jail's IPC namespace */
    "shmget",
    "shmat",
    "shmdt",
    "shmctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
};

/* Calls that would reach past the jail: a clear "not permitted". */
static const char *const denied[] = {
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "unshare",
    "setns",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "kcmp",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "userfaultfd",
    "perf_event_open",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "syslog",
    "sethostname",
    "setdomainname",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "clock_adjtime",
    "iopl",
    "ioperm",
    "name_to_handle_at",
    "open_by_handle_at",
    "fanotify_init",
    "vhangup",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setfsuid",
    "setfsgid",
    "setgroups",
    "capset",
    "personality",
    "landlock_create_ruleset",
    "lookup_dcookie",
    "mknod",
    "mknodat",
};

/* ioctl requests allowed on any descriptor, compared on the low 32 bits
 * (TIOCSTI with high bits set is still TIOCSTI to the kernel). TIOCOUTQ is
 * also SIOCOUTQ, asked of sockets. */
static const unsigned long ioctls[] = {
    FIONREAD, FIONBIO, FIOCLEX, FIONCLEX, FIOASYNC, TIOCOUTQ,
};

/* Terminal requests: allowed on 0-2 (without --json, `mcpfs exec` passes
 * its own standard input and output, which may be a terminal), ENOTTY
 * from the filter on any other descriptor, as the kernel would answer. The
 * jail has no other terminal (no devpts, no /dev/tty), and a file never sees
 * the request: Linux sends every ioctl on a FUSE file to the daemon, and
 * CPython's open() asks isatty() of every file it opens, a round trip per
 * file of a walk of /mcp. */
static const unsigned long terminal_ioctls[] = {
    TCGETS, TCSETS, TCSETSW, TCSETSF, TIOCGWINSZ, TIOCSWINSZ, TIOCGPGRP, TCFLSH,
};

static const int families[] = {AF_UNIX, AF_INET, AF_INET6};

static const unsigned long ns_flags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
				      CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME;

static int rule(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned nargs,
		const struct scmp_arg_cmp *args)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return 0; /* not on this architecture */
	return seccomp_rule_add_array(ctx, action, nr, nargs, args);
}

static int add_rules(scmp_filter_ctx ctx, const char **bad)
{
	struct scmp_arg_cmp a, fd_req[2];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if ((rc = rule(ctx, SCMP_ACT_ALLOW, *bad = allowed[i], 0, NULL)) < 0)
			return rc;
	for (i = 0; i < sizeof(denied) / sizeof(denied[0]); i++)
		if ((rc = rule(ctx, SCMP_ACT_ERRNO(EPERM), *bad = denied[i], 0, NULL)) < 0)
			return rc;
	*bad = "clone";
	a = SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags, 0);
	if ((rc = rule(ctx, SCMP_ACT_ALLOW, "clone", 1, &a)) < 0)
		return rc;
	for (i = 0; i < 8 * sizeof(ns_flags); i++) {
		if (!(ns_flags & (1ul << i)))
			continue;
		a = SCMP_A0(SCMP_CMP_MASKED_EQ, 1ul << i, 1ul << i);
		if ((rc = rule(ctx, SCMP_ACT_ERRNO(EPERM), "clone", 1, &a)) < 0)
			return rc;
	}
	*bad = "socket";
	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		a = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)families[i]);
		if ((rc = rule(ctx, SCMP_ACT_ALLOW, "socket", 1, &a)) < 0)
			return rc;
	}
	/* Every other family: "not supported", spelled as the ranges between. */
	for (i = 0; i < AF_INET6; i++) {
		if (i == AF_UNIX || i == AF_INET)
			continue;
		a = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)i);
		if ((rc = rule(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), "socket", 1, &a)) < 0)
			return rc;
	}
	a = SCMP_A0(SCMP_CMP_GT, AF_INET6);
	if ((rc = rule(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), "socket", 1, &a)) < 0)
		return rc;
	*bad = "socketpair";
	a = SCMP_A0(SCMP_CMP_EQ, AF_UNIX);
	if ((rc = rule(ctx, SCMP_ACT_ALLOW, "socketpair", 1, &a)) < 0)
		return rc;
	a = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
	if ((rc = rule(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), "socketpair", 1, &a)) < 0)
		return rc;
	*bad = "ioctl";
	for (i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++) {
		a = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, ioctls[i]);
		if ((rc = rule(ctx, SCMP_ACT_ALLOW, "ioctl", 1, &a)) < 0)
			return rc;
	}
	for (i = 0; i < sizeof(terminal_ioctls) / sizeof(terminal_ioctls[0]); i++) {
		fd_req[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, terminal_ioctls[i]);
		fd_req[0] = SCMP_A0(SCMP_CMP_LE, 2);
		if ((rc = rule(ctx, SCMP_ACT_ALLOW, "ioctl", 2, fd_req)) < 0)
			return rc;
		fd_req[0] = SCMP_A0(SCMP_CMP_GT, 2);
		if ((rc = rule(ctx, SCMP_ACT_ERRNO(ENOTTY), "ioctl", 2, fd_req)) < 0)
			return rc;
	}
	a = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI);
	return rule(ctx, SCMP_ACT_ERRNO(EPERM), "ioctl", 1, &a);
}

/* Write the filter as C: the program jail_seccomp.c loads as it is. */
static int write_c(FILE *out, const struct sock_filter *insns, size_t n)
{
	size_t i;

	fprintf(out, "/* Generated by executor/policy/seccomp_policy.c: do not edit. */\n"
		     "#include <linux/filter.h>\n\n"
		     "static const struct sock_filter insns[] = {\n");
	for (i = 0; i < n; i++)
		fprintf(out, "    {0x%02x, %u, %u, 0x%08x},\n", insns[i].code, insns[i].jt,
			insns[i].jf, insns[i].k);
	fprintf(out, "};\n\n"
		     "const struct sock_fprog jail_seccomp_prog = {\n"
		     "    .len = sizeof(insns) / sizeof(insns[0]),\n"
		     "    .filter = (struct sock_filter *)insns,\n"
		     "};\n");
	return fflush(out) == 0 && !ferror(out) ? 0 : -EIO;
}

int main(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(ENOSYS));
	const char *bad = "init";
	struct sock_filter *insns = NULL;
	long len;
	int rc = -ENOMEM, fd = -1;

	if (!ctx)
		goto out;
	/* Only the native ABI: i386 (int 0x80) and x32 calls kill the process. */
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) < 0 ||
	    /* a binary tree of system call numbers, not a list of ~250 tests */
	    (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) < 0 ||
	    (rc = add_rules(ctx, &bad)) < 0)
		goto out;
	bad = "export";
	fd = memfd_create("mcpfs-seccomp", MFD_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	if ((rc = seccomp_export_bpf(ctx, fd)) < 0)
		goto out;
	len = lseek(fd, 0, SEEK_END);
	if (len <= 0 || len > (long)JAIL_FILTER_MAX || len % (long)sizeof(*insns)) {
		rc = -EINVAL;
		goto out;
	}
	insns = malloc((size_t)len);
	if (!insns || pread(fd, insns, (size_t)len, 0) != len) {
		rc = insns ? -EIO : -ENOMEM;
		goto out;
	}
	bad = "write";
	rc = write_c(stdout, insns, (size_t)len / sizeof(*insns));
out:
	if (rc < 0)
		fprintf(stderr, "seccomp_policy: %s: %s\n", bad, strerror(-rc));
	free(insns);
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	return rc < 0 ? 1 : 0;
}
