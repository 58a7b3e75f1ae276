/* The jail's root: a fresh tmpfs holding read-only binds of /usr and
 * ld.so.cache, a minimal /etc and /dev, a fresh /proc, a size-capped /tmp,
 * and the run's binds; then pivot_root into it, detach the host's root, and
 * turn the new root read-only.
 *
 * Bind sources are opened (O_PATH) while the child still has the host's
 * root uid as its fsuid, which passes the owner checks on root's private
 * folders (a test's 0700 temp folder); they are then bound through
 * /proc/self/fd after the child became the jail's user. Paths of the new
 * root are built under ROOT before pivot_root.
 *
 * A neutral bind (jail_bind.neutral, read-only) is an overlay instead, a
 * file system whose root is the source: mountinfo shows a bind's root as
 * its path in the source's file system (a host path), an overlay's as "/". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/emptyfs.h"
#include "jail_i.h"

#define ROOT "/tmp"
#define ROOT_TMPFS_OPTS "mode=0755,size=64m"

/* Host files every jail gets, opened before the bind sources of the spec. */
static const struct {
	const char *src, *dst;
	bool dev; /* a device node: keep exec off, allow the device */
} fixed[] = {
    {"/usr", "/usr", false},
    {"/etc/ld.so.cache", "/etc/ld.so.cache", false},
    {"/dev/null", "/dev/null", true},
    {"/dev/zero", "/dev/zero", true},
    {"/dev/full", "/dev/full", true},
    {"/dev/random", "/dev/random", true},
    {"/dev/urandom", "/dev/urandom", true},
};
#define NFIXED (sizeof(fixed) / sizeof(fixed[0]))

/* The usr-merge links, or binds where the host has folders. */
static const char *const top_links[] = {"bin", "lib", "lib64", "sbin"};

static const struct {
	const char *path, *text;
} etc_files[] = {
    {"/etc/passwd", "root:x:0:0:root:/root:/usr/sbin/nologin\n"
		    "jail:x:1000:1000:jail:/workspace:/usr/sbin/nologin\n"
		    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"},
    {"/etc/group", "root:x:0:\njail:x:1000:\nnogroup:x:65534:\n"},
    {"/etc/hosts", "127.0.0.1\tlocalhost mcpfs\n::1\tlocalhost ip6-localhost\n"},
    {"/etc/hostname", "mcpfs\n"},
};

static const struct {
	const char *link, *target;
} dev_links[] = {
    {"/dev/fd", "/proc/self/fd"},
    {"/dev/stdin", "/proc/self/fd/0"},
    {"/dev/stdout", "/proc/self/fd/1"},
    {"/dev/stderr", "/proc/self/fd/2"},
};

int jail_mount_open_child(struct jail *j, char *why, size_t n)
{
	const struct jail_bind *b;
	size_t i;

	for (i = 0; i < NFIXED; i++) {
		j->src_fds[i] = open(fixed[i].src, O_PATH | O_CLOEXEC);
		if (j->src_fds[i] < 0)
			return jail_why(why, n, "open(%s, O_PATH)", fixed[i].src);
	}
	for (i = 0; i < j->spec->nbinds; i++) {
		b = &j->spec->binds[i];
		j->plain_fds[i] = b->neutral ? open(b->src, O_PATH | O_CLOEXEC) : -1;
		if (b->neutral && j->plain_fds[i] < 0)
			return jail_why(why, n, "open(%s, O_PATH)", b->src);
		/* A copy of the mount for the overlay (it takes no other). The
		 * kernel copies none of a source with mounts inside (they are
		 * locked: they may hide what is under them), and overlayfs would
		 * not show them: such a source is bound as it is. */
		j->as_bind[i] = !b->neutral;
		j->src_fds[NFIXED + i] =
		    b->neutral ? open_tree(AT_FDCWD, b->src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)
			       : -1;
		if (j->src_fds[NFIXED + i] < 0 && (!b->neutral || errno == EINVAL)) {
			j->as_bind[i] = true;
			j->src_fds[NFIXED + i] = open(b->src, O_PATH | O_CLOEXEC);
		}
		if (j->src_fds[NFIXED + i] < 0)
			return jail_why(why, n, "%s(%s)", j->as_bind[i] ? "open" : "open_tree",
					b->src);
	}
	return 0;
}

static int path_under_root(char *out, size_t size, const char *jail_path, char *why, size_t n)
{
	if ((size_t)snprintf(out, size, "%s%s", ROOT, jail_path) >= size) {
		errno = ENAMETOOLONG;
		return jail_why(why, n, "path %s", jail_path);
	}
	return 0;
}

/* mkdir -p of @path (absolute, under ROOT). */
static int mkdirs(const char *path, char *why, size_t n)
{
	char p[4096];
	size_t i, len = strlen(path);

	if (len >= sizeof(p)) {
		errno = ENAMETOOLONG;
		return jail_why(why, n, "mkdir(%s)", path);
	}
	memcpy(p, path, len + 1);
	for (i = 1; i <= len; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return jail_why(why, n, "mkdir(%s)", p);
		p[i] = path[i];
	}
	return 0;
}

static int parent_dirs(const char *path, char *why, size_t n)
{
	char p[4096];
	char *slash;

	snprintf(p, sizeof(p), "%s", path);
	slash = strrchr(p, '/');
	if (!slash || slash == p)
		return 0;
	*slash = '\0';
	return mkdirs(p, why, n);
}

static int write_file(const char *path, const char *data, size_t len, mode_t mode, char *why,
		      size_t n)
{
	if (parent_dirs(path, why, n) < 0)
		return -1;
	if (jail_write_file(path, O_CREAT | O_EXCL | O_NOFOLLOW, mode, data, len) < 0)
		return jail_why(why, n, "write(%s, mode %o)", path, (unsigned)mode);
	return 0;
}

/* The flags a remount must keep: the kernel refuses to clear flags that
 * were locked when the mount came from a more privileged namespace. */
static unsigned long locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long f = 0;

	if (statvfs(path, &sv) < 0)
		return 0;
	if (sv.f_flag & ST_NOSUID)
		f |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV)
		f |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		f |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		f |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		f |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		f |= MS_RELATIME;
	return f;
}

/* Bind the open source @fd at @dst (a path under ROOT). */
static int bind_fd(int fd, const char *dst, bool rw, bool dev, char *why, size_t n)
{
	struct mount_attr attr = {0};
	char src[64];
	struct stat st;
	unsigned long flags;
	int tfd;

	if (fstat(fd, &st) < 0)
		return jail_why(why, n, "fstat(source of %s)", dst);
	if (S_ISDIR(st.st_mode)) {
		if (mkdirs(dst, why, n) < 0)
			return -1;
	} else {
		if (parent_dirs(dst, why, n) < 0)
			return -1;
		tfd = open(dst, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (tfd < 0)
			return jail_why(why, n, "open(%s, O_CREAT)", dst);
		close(tfd);
	}
	snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
		return jail_why(why, n, "mount(%s, %s, MS_BIND)", src, dst);
	/* The whole bound tree, mounts under the source included: a remount
	 * would restrict only the top one. */
	attr.attr_set = MOUNT_ATTR_NOSUID | (dev ? MOUNT_ATTR_NOEXEC : MOUNT_ATTR_NODEV) |
			(rw ? 0 : MOUNT_ATTR_RDONLY);
	if (mount_setattr(AT_FDCWD, dst, AT_RECURSIVE, &attr, sizeof(attr)) == 0)
		return 0;
	if (errno != ENOSYS)
		return jail_why(why, n, "mount_setattr(%s, AT_RECURSIVE%s)", dst,
				rw ? "" : ", MOUNT_ATTR_RDONLY");
	/* Before Linux 5.12: the top mount only. */
	flags = locked_flags(dst) | MS_REMOUNT | MS_BIND | MS_NOSUID;
	if (!dev)
		flags |= MS_NODEV;
	else
		flags |= MS_NOEXEC;
	if (!rw)
		flags |= MS_RDONLY;
	if (mount(NULL, dst, NULL, flags, NULL) < 0)
		return jail_why(why, n, "mount(%s, MS_REMOUNT|MS_BIND%s)", dst,
				rw ? "" : "|MS_RDONLY");
	return 0;
}

/* Mount bind @i of the spec at @dst (a path under ROOT) as an overlay whose
 * root is its source: mountinfo shows "/" as its root and the layers as
 * /proc/self/fd/N, no host path. */
static int overlay_bind(struct jail *j, size_t i, int empty, const char *dst, char *why, size_t n)
{
	const struct jail_bind *b = &j->spec->binds[i];
	char opts[128];

	if (mkdirs(dst, why, n) < 0)
		return -1;
	snprintf(opts, sizeof(opts), "lowerdir=/proc/self/fd/%d:/proc/self/fd/%d,userxattr",
		 j->src_fds[NFIXED + i], empty);
	if (mount("overlay", dst, "overlay", MS_NOSUID | MS_NODEV | MS_RDONLY, opts) < 0)
		return jail_why(why, n, "mount(overlay of %s, %s)", b->src, dst);
	return 0;
}

static int top_level(char *why, size_t n)
{
	char host[64], target[256], dst[64];
	ssize_t len;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(top_links) / sizeof(top_links[0]); i++) {
		snprintf(host, sizeof(host), "/%s", top_links[i]);
		snprintf(dst, sizeof(dst), ROOT "/%s", top_links[i]);
		len = readlink(host, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = '\0';
			if (symlink(target, dst) < 0)
				return jail_why(why, n, "symlink(%s, %s)", target, dst);
			continue;
		}
		fd = open(host, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue; /* e.g. no /lib64 on this architecture */
		if (bind_fd(fd, dst, false, false, why, n) < 0) {
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

static int minimal_etc_dev(struct jail *j, char *why, size_t n)
{
	char dst[4096], opts[64];
	size_t i;

	for (i = 0; i < sizeof(etc_files) / sizeof(etc_files[0]); i++) {
		if (path_under_root(dst, sizeof(dst), etc_files[i].path, why, n) < 0 ||
		    write_file(dst, etc_files[i].text, strlen(etc_files[i].text), 0644, why, n) < 0)
			return -1;
	}
	for (i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++) {
		if (path_under_root(dst, sizeof(dst), dev_links[i].link, why, n) < 0 ||
		    parent_dirs(dst, why, n) < 0)
			return -1;
		if (symlink(dev_links[i].target, dst) < 0)
			return jail_why(why, n, "symlink(%s)", dst);
	}
	snprintf(opts, sizeof(opts), "mode=1777,size=%lum", j->spec->limits.tmp_mb);
	if (mkdirs(ROOT "/dev/shm", why, n) < 0 || mkdirs(ROOT "/tmp", why, n) < 0 ||
	    mkdirs(ROOT "/proc", why, n) < 0)
		return -1;
	if (mount("tmpfs", ROOT "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) < 0)
		return jail_why(why, n, "mount(tmpfs, /dev/shm, %s)", opts);
	if (mount("tmpfs", ROOT "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		return jail_why(why, n, "mount(tmpfs, /tmp, %s)", opts);
	/* A proc of the new PID namespace: the host's processes are not in it. */
	if (mount("proc", ROOT "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return jail_why(why, n, "mount(proc, /proc)");
	return 0;
}

int jail_mount_root_readonly(char *why, size_t n)
{
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) <
	    0)
		return jail_why(why, n, "mount(/, MS_REMOUNT|MS_RDONLY)");
	return 0;
}

int jail_mount_setup_child(struct jail *j, char *why, size_t n)
{
	const struct jail_spec *s = j->spec;
	char dst[4096];
	size_t i;
	int empty = -1;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return jail_why(why, n, "mount(/, MS_REC|MS_PRIVATE)");
	if (mount("tmpfs", ROOT, "tmpfs", MS_NOSUID | MS_NODEV, ROOT_TMPFS_OPTS) < 0)
		return jail_why(why, n, "mount(tmpfs, %s, %s)", ROOT, ROOT_TMPFS_OPTS);
	for (i = 0; i < NFIXED; i++) {
		if (path_under_root(dst, sizeof(dst), fixed[i].dst, why, n) < 0 ||
		    bind_fd(j->src_fds[i], dst, fixed[i].dev, fixed[i].dev, why, n) < 0)
			return -1;
	}
	if (top_level(why, n) < 0 || minimal_etc_dev(j, why, n) < 0)
		return -1;
	for (i = 0; i < s->nbinds; i++) {
		if (path_under_root(dst, sizeof(dst), s->binds[i].dst, why, n) < 0)
			return -1;
		/* overlayfs wants two lower layers when there is no upper one */
		if (!j->as_bind[i] && empty < 0 && (empty = emptyfs_open()) < 0)
			return jail_why(why, n, "empty tmpfs layer (fsopen, fsconfig, fsmount)");
		/* A kernel that makes no such overlay gets the plain bind. */
		if (!j->as_bind[i]
			? overlay_bind(j, i, empty, dst, why, n) < 0 &&
			      bind_fd(j->plain_fds[i], dst, s->binds[i].rw, false, why, n) < 0
			: bind_fd(j->src_fds[NFIXED + i], dst, s->binds[i].rw, false, why, n) < 0)
			return -1;
	}
	for (i = 0; i < s->nfiles; i++) {
		if (path_under_root(dst, sizeof(dst), s->files[i].path, why, n) < 0 ||
		    write_file(dst, s->files[i].data, s->files[i].len, s->files[i].mode, why, n) <
			0)
			return -1;
	}
	for (i = 0; i < NFIXED + s->nbinds; i++)
		close(j->src_fds[i]);
	for (i = 0; i < s->nbinds; i++)
		if (j->plain_fds[i] >= 0)
			close(j->plain_fds[i]);
	if (empty >= 0)
		close(empty);
	if (chdir(ROOT) < 0)
		return jail_why(why, n, "chdir(%s)", ROOT);
	/* pivot_root(".", ".") stacks the old root on the new one; the detach
	 * below drops it, and with it every host path. */
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return jail_why(why, n, "pivot_root(%s)", ROOT);
	if (umount2(".", MNT_DETACH) < 0)
		return jail_why(why, n, "umount2(old root, MNT_DETACH)");
	if (chdir("/") < 0)
		return jail_why(why, n, "chdir(/)");
	if (jail_listen_child(j, why, n) < 0)
		return -1;
	/* a parked jail's program is written at its hand-off (jail_park.c) */
	if (!s->park_file && jail_mount_root_readonly(why, n) < 0)
		return -1;
	if (chdir(s->cwd) < 0)
		return jail_why(why, n, "chdir(%s)", s->cwd);
	return 0;
}
