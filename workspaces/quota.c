#define _GNU_SOURCE
#include "quota.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/loop.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/fsx.h"
#include "loop.h"
#include "overlay.h"

#define QUOTA_FILE "quota.json"
#define IMAGE_FILE "workspace.img"
#define IMAGE_NEW ".workspace.img.new"
#define LOCK_FILE ".lock"
/* A workspace without an image is counted by walking it, up to this many. */
#define WALK_MAX 1000000

static const char *const sbin_dirs[] = {"/usr/sbin", "/sbin", "/usr/bin", "/bin"};

static int find_tool(const char *name, char *out, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(sbin_dirs) / sizeof(sbin_dirs[0]); i++) {
		snprintf(out, n, "%s/%s", sbin_dirs[i], name);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* Run a tool from sbin with stdout/stderr discarded; its exit status, 128+sig
 * when killed, or -errno when it could not be started. */
static int run_tool(const char *name, char *const argv[])
{
	char path[256];
	pid_t pid;
	int st, fd;

	if (find_tool(name, path, sizeof(path)) < 0)
		return -ENOENT;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(path, argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int env_ull(const char *name, unsigned long long *out)
{
	const char *v = getenv(name);
	char *end;

	if (!v || !*v)
		return -ENOENT;
	errno = 0;
	*out = strtoull(v, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

void ws_quota_defaults(struct ws_quota *q)
{
	char path[256];
	const char *mode = getenv("MCPFS_QUOTA_MODE");

	if (env_ull("MCPFS_QUOTA_BYTES", &q->bytes) < 0)
		q->bytes = WS_QUOTA_DEFAULT_BYTES;
	if (env_ull("MCPFS_QUOTA_FILES", &q->files) < 0)
		q->files = WS_QUOTA_DEFAULT_FILES;
	q->mode = WS_QUOTA_NONE;
	if (mode && !strcmp(mode, "none"))
		return;
	if (geteuid() == 0 && access("/dev/loop-control", R_OK | W_OK) == 0 &&
	    find_tool("mkfs.ext4", path, sizeof(path)) == 0)
		q->mode = WS_QUOTA_IMAGE;
}

int ws_quota_check(const struct ws_quota *q, struct err *err)
{
	if (q->bytes < WS_QUOTA_MIN_BYTES || q->bytes > WS_QUOTA_MAX_BYTES)
		return err_set(err, EXIT_USAGE, "quota bytes %llu outside [%llu, %llu]", q->bytes,
			       WS_QUOTA_MIN_BYTES, WS_QUOTA_MAX_BYTES);
	if (q->files < WS_QUOTA_MIN_FILES || q->files > WS_QUOTA_MAX_FILES)
		return err_set(err, EXIT_USAGE, "quota files %llu outside [%llu, %llu]", q->files,
			       WS_QUOTA_MIN_FILES, WS_QUOTA_MAX_FILES);
	/* ext4 needs at least a KiB per inode (its smallest inode ratio). */
	if (q->files > q->bytes / 1024)
		return err_set(err, EXIT_USAGE,
			       "quota files %llu needs at least %llu quota bytes (1 KiB per file)",
			       q->files, q->files * 1024);
	return 0;
}

static const char *mode_name(enum ws_quota_mode m)
{
	return m == WS_QUOTA_IMAGE ? "ext4-image" : "none";
}

int ws_quota_get(const struct ws *ws, struct ws_quota *q, struct err *err)
{
	json_t *j, *b, *f, *m;
	char *text;
	int dfd, rc;

	dfd = fsx_open_dir(ws->dir);
	if (dfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", ws->dir, strerror(-dfd));
	rc = fsx_read_at(dfd, QUOTA_FILE, 4096, &text, NULL);
	close(dfd);
	if (rc == -ENOENT)
		return -ENOENT;
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "read %s/%s: %s", ws->dir, QUOTA_FILE,
			       strerror(-rc));
	j = json_loads(text, 0, NULL);
	free(text);
	b = json_object_get(j, "bytes");
	f = json_object_get(j, "files");
	m = json_object_get(j, "mode");
	if (!json_is_integer(b) || !json_is_integer(f) || !json_is_string(m)) {
		json_decref(j);
		return err_set(err, EXIT_FAILED, "%s/%s: not {bytes, files, mode}", ws->dir,
			       QUOTA_FILE);
	}
	q->bytes = (unsigned long long)json_integer_value(b);
	q->files = (unsigned long long)json_integer_value(f);
	q->mode = strcmp(json_string_value(m), "ext4-image") ? WS_QUOTA_NONE : WS_QUOTA_IMAGE;
	json_decref(j);
	return 0;
}

static int quota_put(int dfd, const struct ws *ws, const struct ws_quota *q, struct err *err)
{
	char *text;
	json_t *j;
	int rc;

	j = json_pack("{s:I, s:I, s:s}", "bytes", (json_int_t)q->bytes, "files",
		      (json_int_t)q->files, "mode", mode_name(q->mode));
	text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
	json_decref(j);
	if (!text)
		return err_set(err, EXIT_FAILED, "out of memory");
	rc = fsx_write_atomic_at(dfd, QUOTA_FILE, text, strlen(text), 0600);
	free(text);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "write %s/%s: %s", ws->dir, QUOTA_FILE,
			       strerror(-rc));
	return 0;
}

int ws_quota_lock(int dfd, const struct ws *ws, struct err *err)
{
	int fd = fsx_open_at(dfd, LOCK_FILE, O_RDWR | O_CREAT, 0600);

	if (fd < 0)
		return err_set(err, EXIT_FAILED, "open %s/%s: %s", ws->dir, LOCK_FILE,
			       strerror(-fd));
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			err_set(err, EXIT_FAILED, "flock %s/%s: %s", ws->dir, LOCK_FILE,
				strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

bool ws_is_mount(const struct ws *ws, const char *path)
{
	struct stat a, b;

	if (lstat(ws->dir, &a) < 0 || lstat(path, &b) < 0)
		return false;
	return S_ISDIR(b.st_mode) && a.st_dev != b.st_dev;
}

bool ws_quota_mounted(const struct ws *ws)
{
	return ws_is_mount(ws, ws->workspace);
}

/* workspace/ holds the image, not a plain folder's overlay (overlay.h). */
static bool image_mounted(const struct ws *ws)
{
	struct statfs sf;

	return ws_quota_mounted(ws) && statfs(ws->workspace, &sf) == 0 &&
	       sf.f_type != OVERLAYFS_SUPER_MAGIC;
}

static int image_path(const struct ws *ws, const char *name, char *out, size_t n)
{
	return snprintf(out, n, "%s/%s", ws->dir, name) >= (int)n ? -ENAMETOOLONG : 0;
}

static int make_image(int dfd, const struct ws *ws, const struct ws_quota *q, struct err *err)
{
	char path[PATH_MAX], inodes[32];
	char *argv[] = {"mkfs.ext4",
			"-q",
			"-F",
			"-m",
			"0",
			"-N",
			inodes,
			"-O",
			"^has_journal",
			"-E",
			"root_owner=0:0,nodiscard",
			path,
			NULL};
	int fd, rc;

	if (image_path(ws, IMAGE_NEW, path, sizeof(path)) < 0)
		return err_set(err, EXIT_FAILED, "%s: path too long", ws->dir);
	/* Inodes 1-10 are the file system's own, and mke2fs rounds the count to
	 * whole inode-table blocks (down as well as up): a margin gives the
	 * customer at least @files. */
	snprintf(inodes, sizeof(inodes), "%llu", q->files + 24);
	unlinkat(dfd, IMAGE_NEW, 0);
	fd = fsx_open_at(dfd, IMAGE_NEW, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return err_set(err, EXIT_FAILED, "create %s: %s", path, strerror(-fd));
	rc = ftruncate(fd, (off_t)q->bytes) < 0 ? -errno : 0;
	close(fd);
	if (rc < 0) {
		unlinkat(dfd, IMAGE_NEW, 0);
		return err_set(err, EXIT_FAILED, "ftruncate %s %llu: %s", path, q->bytes,
			       strerror(-rc));
	}
	rc = run_tool("mkfs.ext4", argv);
	if (rc != 0) {
		unlinkat(dfd, IMAGE_NEW, 0);
		return err_set(err, EXIT_FAILED, "mkfs.ext4 %s: %s", path,
			       rc < 0 ? strerror(-rc) : "failed");
	}
	/* The rename makes a half-made image impossible to mount after a crash. */
	if (renameat(dfd, IMAGE_NEW, dfd, IMAGE_FILE) < 0) {
		rc = errno;
		unlinkat(dfd, IMAGE_NEW, 0);
		return err_set(err, EXIT_FAILED, "rename %s: %s", path, strerror(rc));
	}
	return 0;
}

#define TAIL_MAX (sizeof(((struct ws *)0)->customer) + sizeof("//" IMAGE_FILE))

/* How the image's path ends, to pick its loop device (loop.h). */
static const char *image_tail(const struct ws *ws, char tail[TAIL_MAX])
{
	snprintf(tail, TAIL_MAX, "/%s/%s", ws->customer, IMAGE_FILE);
	return tail;
}

/* Whether the image's file system lives on after our umount, in a jail
 * that copied the mount (loop.c). Such a copy goes when the jail drops the
 * host's tree, within milliseconds; a second is waited for. */
static bool image_live(int imgfd, const struct ws *ws)
{
	char tail[TAIL_MAX];
	int i, n, fd;

	for (i = 0; i < 50; i++) {
		fd = loop_bound(imgfd, image_tail(ws, tail), &n);
		if (fd < 0)
			return false;
		close(fd);
		usleep(20 * 1000);
	}
	return true;
}

/* The image's loop device, still bound when its file system lives on in
 * another mount namespace (loop.c), else a new one on an image checked
 * first. Its fd and number in @n, or -1. */
static int image_loop(int dfd, const struct ws *ws, int *n, struct err *err)
{
	char img[PATH_MAX], tail[TAIL_MAX];
	char *fsck[] = {"e2fsck", "-p", img, NULL};
	int imgfd, loopfd, rc;

	if (image_path(ws, IMAGE_FILE, img, sizeof(img)) < 0)
		return err_set(err, EXIT_FAILED, "%s: path too long", ws->dir);
	imgfd = fsx_open_at(dfd, IMAGE_FILE, O_RDWR, 0);
	if (imgfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", img, strerror(-imgfd));
	loopfd = loop_bound(imgfd, image_tail(ws, tail), n);
	if (loopfd < 0) {
		/* 0 clean, 1 errors fixed; anything else needs an operator. */
		rc = run_tool("e2fsck", fsck);
		if (rc < 0 || rc > 1) {
			close(imgfd);
			return err_set(err, EXIT_FAILED, "e2fsck -p %s: exit %d", img, rc);
		}
		loopfd = loop_attach(imgfd, n);
	}
	close(imgfd);
	if (loopfd < 0)
		return err_set(err, EXIT_FAILED, "loop device for %s: %s", img, strerror(-loopfd));
	return loopfd;
}

static int mount_image(int dfd, const struct ws *ws, struct err *err)
{
	char dev[64], target[64];
	int loopfd, wfd, n = -1, rc;

	loopfd = image_loop(dfd, ws, &n, err);
	if (loopfd < 0)
		return -1;
	wfd = fsx_open_at(dfd, "workspace", O_PATH | O_DIRECTORY, 0);
	if (wfd < 0) {
		close(loopfd);
		return err_set(err, EXIT_FAILED, "open %s: %s", ws->workspace, strerror(-wfd));
	}
	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	/* Mounting on the fd we resolved without symlinks, not on the path. */
	snprintf(target, sizeof(target), "/proc/self/fd/%d", wfd);
	rc = mount(dev, target, "ext4", MS_NOSUID | MS_NODEV | MS_NOATIME, NULL) < 0 ? errno : 0;
	close(wfd);
	/* With autoclear the device now lives exactly as long as the mount. */
	close(loopfd);
	if (rc)
		return err_set(err, EXIT_FAILED, "mount %s on %s: %s", dev, ws->workspace,
			       strerror(rc));
	return 0;
}

int ws_quota_mount(const struct ws *ws, struct err *err)
{
	struct ws_quota q;
	int dfd, lfd, rc;

	rc = ws_quota_get(ws, &q, err);
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return -1;
	if (q.mode == WS_QUOTA_NONE)
		return ws_overlay_mount(ws, "workspace", err);
	if (ws_quota_mounted(ws))
		return 0;
	dfd = fsx_open_dir(ws->dir);
	if (dfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", ws->dir, strerror(-dfd));
	lfd = ws_quota_lock(dfd, ws, err);
	rc = lfd < 0 ? -1 : 0;
	if (!rc && !ws_quota_mounted(ws))
		rc = mount_image(dfd, ws, err);
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	return rc;
}

int ws_quota_umount(const struct ws *ws, struct err *err)
{
	/* A plain folder's overlay goes only when nobody holds it (overlay.h). */
	if (!image_mounted(ws))
		return 0;
	if (umount2(ws->workspace, UMOUNT_NOFOLLOW) == 0)
		return 0;
	/* A run still inside: detach now, the device goes when it exits. */
	if (errno == EBUSY && umount2(ws->workspace, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
		return 0;
	return err_set(err, EXIT_FAILED, "umount %s: %s", ws->workspace, strerror(errno));
}

int ws_umount_locked(const struct ws *ws, const char *path, bool detach, struct err *err)
{
	int dfd, lfd, rc = 0;

	dfd = fsx_open_dir(ws->dir);
	if (dfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", ws->dir, strerror(-dfd));
	lfd = ws_quota_lock(dfd, ws, err);
	if (lfd < 0)
		rc = -1;
	else if (ws_is_mount(ws, path)) {
		if (umount2(path, UMOUNT_NOFOLLOW) == 0)
			rc = 1;
		else if (errno == EBUSY && detach &&
			 umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
			rc = 1;
		else if (errno != EBUSY)
			rc = err_set(err, EXIT_FAILED, "umount %s: %s", path, strerror(errno));
	}
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	return rc;
}

/* lost+found would be the first thing agent code lists; e2fsck makes it
 * again when it needs it. */
static void drop_lost_found(int dfd)
{
	int fd = fsx_open_at(dfd, "workspace", O_RDONLY | O_DIRECTORY, 0);

	if (fd >= 0) {
		unlinkat(fd, "lost+found", AT_REMOVEDIR);
		close(fd);
	}
}

/* Offline: online growth needs CAP_SYS_RESOURCE, which containers often lack,
 * so the workspace is unmounted (refused while a run holds it), grown and
 * mounted again. */
static int grow_image(int dfd, const struct ws *ws, unsigned long long bytes,
		      unsigned long long *files, struct err *err)
{
	struct statvfs sv;
	char img[PATH_MAX];
	char *fsck[] = {"e2fsck", "-f", "-p", img, NULL};
	char *resize[] = {"resize2fs", img, NULL};
	int fd, rc;

	if (image_path(ws, IMAGE_FILE, img, sizeof(img)) < 0)
		return err_set(err, EXIT_FAILED, "%s: path too long", ws->dir);
	if (ws_quota_mounted(ws) && umount2(ws->workspace, UMOUNT_NOFOLLOW) < 0)
		return err_set(err, EXIT_FAILED, "umount %s to grow it: %s%s", ws->workspace,
			       strerror(errno),
			       errno == EBUSY ? " (a run is using it; retry)" : "");
	fd = fsx_open_at(dfd, IMAGE_FILE, O_RDWR, 0);
	if (fd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", img, strerror(-fd));
	/* Resized under a live file system, the image would be corrupt. */
	if (image_live(fd, ws)) {
		close(fd);
		return err_set(err, EXIT_FAILED,
			       "grow %s: a run's jail still has it mounted; retry", img);
	}
	rc = ftruncate(fd, (off_t)bytes) < 0 ? -errno : 0;
	close(fd);
	if (rc)
		return err_set(err, EXIT_FAILED, "ftruncate %s %llu: %s", img, bytes,
			       strerror(-rc));
	rc = run_tool("e2fsck", fsck);
	if (rc < 0 || rc > 1)
		return err_set(err, EXIT_FAILED, "e2fsck -f -p %s: exit %d", img, rc);
	rc = run_tool("resize2fs", resize);
	if (rc)
		return err_set(err, EXIT_FAILED, "resize2fs %s: exit %d", img, rc);
	if (mount_image(dfd, ws, err) < 0)
		return -1;
	drop_lost_found(dfd);
	/* ext4 grows by whole groups, inodes included: record the real ceiling. */
	if (statvfs(ws->workspace, &sv) == 0 && sv.f_files > 10)
		*files = sv.f_files - 10;
	return 0;
}

static int apply_locked(int dfd, const struct ws *ws, const struct ws_quota *q, struct err *err)
{
	struct ws_quota old, grown;
	struct stat st;
	int rc;

	rc = ws_quota_get(ws, &old, err);
	if (rc && rc != -ENOENT)
		return -1;
	if (rc == -ENOENT || (old.mode == WS_QUOTA_IMAGE &&
			      fstatat(dfd, IMAGE_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0)) {
		if (q->mode == WS_QUOTA_IMAGE && make_image(dfd, ws, q, err) < 0)
			return -1;
		if (quota_put(dfd, ws, q, err) < 0)
			return -1;
		if (q->mode != WS_QUOTA_IMAGE || mount_image(dfd, ws, err) < 0)
			return q->mode == WS_QUOTA_IMAGE ? -1 : 0;
		drop_lost_found(dfd);
		return 0;
	}
	if (q->mode != old.mode)
		return err_set(err, EXIT_USAGE, "customer %s: quota mode is %s; it cannot change",
			       ws->customer, mode_name(old.mode));
	if (old.mode == WS_QUOTA_IMAGE && q->files != old.files)
		return err_set(
		    err, EXIT_USAGE,
		    "customer %s: the file quota (%llu) is set when the workspace is made "
		    "and grows only with the byte quota",
		    ws->customer, old.files);
	if (q->bytes < old.bytes)
		return err_set(err, EXIT_USAGE,
			       "customer %s: quota bytes cannot shrink (%llu < %llu)", ws->customer,
			       q->bytes, old.bytes);
	if (q->bytes == old.bytes)
		return q->files == old.files ? 0 : quota_put(dfd, ws, q, err);
	grown = *q;
	if (old.mode == WS_QUOTA_IMAGE && grow_image(dfd, ws, q->bytes, &grown.files, err) < 0)
		return -1;
	return quota_put(dfd, ws, &grown, err);
}

int ws_quota_apply(const struct ws *ws, const struct ws_quota *q, struct err *err)
{
	int dfd, lfd, rc;

	if (ws_quota_check(q, err) < 0)
		return -1;
	dfd = fsx_open_dir(ws->dir);
	if (dfd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", ws->dir, strerror(-dfd));
	lfd = ws_quota_lock(dfd, ws, err);
	rc = lfd < 0 ? -1 : apply_locked(dfd, ws, q, err);
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	return rc;
}

static int count_entry(void *ctx, const struct fsx_entry *e)
{
	struct ws_usage *u = ctx;

	u->files_used++;
	u->bytes_used += (unsigned long long)e->st->st_blocks * 512ull;
	return 0;
}

int ws_usage_get(const struct ws *ws, struct ws_usage *u, struct err *err)
{
	struct statvfs sv;
	int fd, rc;

	memset(u, 0, sizeof(*u));
	u->mounted = image_mounted(ws);
	if (u->mounted) {
		if (statvfs(ws->workspace, &sv) < 0)
			return err_set(err, EXIT_FAILED, "statvfs %s: %s", ws->workspace,
				       strerror(errno));
		u->bytes_total = (unsigned long long)sv.f_blocks * sv.f_frsize;
		u->bytes_used = (unsigned long long)(sv.f_blocks - sv.f_bfree) * sv.f_frsize;
		u->files_total = sv.f_files;
		u->files_used = sv.f_files - sv.f_ffree;
		return 0;
	}
	fd = fsx_open_dir(ws->workspace);
	if (fd < 0)
		return err_set(err, EXIT_FAILED, "open %s: %s", ws->workspace, strerror(-fd));
	rc = fsx_walk_at(fd, WALK_MAX, count_entry, u);
	close(fd);
	if (rc < 0)
		return err_set(err, EXIT_FAILED, "walk %s: %s", ws->workspace, strerror(-rc));
	return 0;
}
