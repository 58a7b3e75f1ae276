/* The FUSE low-level operation table: each handler asks the tree (lookup.c)
 * and replies exactly once. Read-only: the mount is "ro", and every call that
 * would change something answers EROFS should one get past the kernel. */
#include "fuse_i.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

static struct fusefs_tree *tree_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* A size or mtime change seen on lookup drops stale pages as well. */
	if (conn->capable & FUSE_CAP_AUTO_INVAL_DATA)
		conn->want |= FUSE_CAP_AUTO_INVAL_DATA;
	/* Plus (attributes with entries, so files rendered for their size)
	 * only where lookups follow: the kernel asks for it at a listing's
	 * start and after a lookup in the folder, so a walker that opens what it
	 * lists gets it, and a bare `ls` of 10,000 tools renders one reply's
	 * worth, not every file. */
	if (conn->capable & FUSE_CAP_READDIRPLUS_AUTO)
		conn->want |= FUSE_CAP_READDIRPLUS_AUTO;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	int rc;

	memset(&e, 0, sizeof(e));
	rc = fusefs_tree_lookup(tree_of(req), parent, name, &e.attr);
	if (rc) {
		/* Not a negative entry: a tool added later must show at once. */
		fuse_reply_err(req, -rc);
		return;
	}
	e.ino = e.attr.st_ino;
	e.generation = 1;
	e.attr_timeout = FUSEFS_TIMEOUT_S;
	e.entry_timeout = FUSEFS_TIMEOUT_S;
	fuse_reply_entry(req, &e);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	fusefs_tree_forget(tree_of(req), ino, nlookup);
	fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	size_t i;

	for (i = 0; i < count; i++)
		fusefs_tree_forget(tree_of(req), forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;
	int rc;

	(void)fi;
	rc = fusefs_tree_getattr(tree_of(req), ino, &st);
	if (rc)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_attr(req, &st, FUSEFS_TIMEOUT_S);
}

/* ENOSYS from open and opendir switches the kernel to "no open" mode for the
 * connection: no round trip per open, pages and listings kept across opens
 * (FOPEN_KEEP_CACHE, FOPEN_CACHE_DIR) until we invalidate them. */
static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC))
		fuse_reply_err(req, EROFS);
	else
		fuse_reply_err(req, ENOSYS);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, ENOSYS);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fusefs_tree *t = tree_of(req); /* req is gone once replied to */
	struct fusefs_blob *blob;
	size_t n = 0;
	int rc;

	(void)fi;
	rc = fusefs_tree_read(t, ino, &blob);
	if (rc) {
		fuse_reply_err(req, -rc);
		return;
	}
	if (off >= 0 && (size_t)off < blob->len)
		n = blob->len - (size_t)off < size ? blob->len - (size_t)off : size;
	fuse_reply_buf(req, n ? blob->data + off : NULL, n);
	/* The page cache keeps what a read to the end delivered (no-open mode
	 * keeps pages across opens): our copy would only duplicate it. */
	if ((size_t)off + n >= blob->len)
		fusefs_tree_release(t, ino);
	fusefs_blob_unref(blob);
}

struct dirbuf {
	fuse_req_t req;
	char *p;
	size_t size, used;
	bool plus;
	off_t next; /* offset after the last entry that fit */
};

static int dir_emit(void *ctx, const char *name, const struct stat *st, off_t next)
{
	struct dirbuf *d = ctx;
	struct fuse_entry_param e;
	size_t need;

	if (d->plus) {
		memset(&e, 0, sizeof(e));
		e.attr = *st;
		/* "." and ".." carry no entry: the kernel must not count a lookup. */
		if (strcmp(name, ".") && strcmp(name, "..")) {
			e.ino = st->st_ino;
			e.generation = 1;
			e.attr_timeout = FUSEFS_TIMEOUT_S;
			e.entry_timeout = FUSEFS_TIMEOUT_S;
		}
		need = fuse_add_direntry_plus(d->req, d->p + d->used, d->size - d->used, name, &e,
					      next);
	} else {
		need = fuse_add_direntry(d->req, d->p + d->used, d->size - d->used, name, st, next);
	}

	if (need > d->size - d->used)
		return 1;
	d->used += need;
	d->next = next;
	return 0;
}

static void reply_dir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, bool plus)
{
	struct dirbuf d = {.req = req, .size = size, .plus = plus};
	struct fusefs_tree *t = tree_of(req); /* req is gone once replied to */
	int rc;

	d.p = malloc(size ? size : 1);
	if (!d.p) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	rc = fusefs_tree_readdir(t, ino, off, plus, dir_emit, &d);
	/* An error after some entries: send those, the next call reports it. */
	if (rc && !d.used) {
		fuse_reply_err(req, -rc);
	} else {
		fuse_reply_buf(req, d.p, d.used);
		if (plus && d.used)
			fusefs_tree_listed(t, ino, off, d.next);
	}
	free(d.p);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	(void)fi;
	reply_dir(req, ino, size, off, false);
}

/* Entries with their attributes: one request instead of a lookup per file
 * when a walker goes on to open what it listed (the kernel's choice, see
 * op_init). */
static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   struct fuse_file_info *fi)
{
	(void)fi;
	reply_dir(req, ino, size, off, true);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct fusefs_tree *t = tree_of(req);
	struct statvfs sv;

	(void)ino;
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = 4096;
	sv.f_frsize = 4096;
	sv.f_namemax = 255;
	sv.f_files = fusefs_inodes_count(&t->inodes);
	sv.f_flag = ST_RDONLY;
	fuse_reply_statfs(req, &sv);
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	(void)ino;
	(void)attr;
	(void)to_set;
	(void)fi;
	fuse_reply_err(req, EROFS);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	(void)parent;
	(void)name;
	(void)mode;
	(void)rdev;
	fuse_reply_err(req, EROFS);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	(void)parent;
	(void)name;
	(void)mode;
	fuse_reply_err(req, EROFS);
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent;
	(void)name;
	fuse_reply_err(req, EROFS);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	(void)link;
	(void)parent;
	(void)name;
	fuse_reply_err(req, EROFS);
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		      const char *newname, unsigned int flags)
{
	(void)parent;
	(void)name;
	(void)newparent;
	(void)newname;
	(void)flags;
	fuse_reply_err(req, EROFS);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	(void)ino;
	(void)newparent;
	(void)newname;
	fuse_reply_err(req, EROFS);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	(void)ino;
	(void)buf;
	(void)size;
	(void)off;
	(void)fi;
	fuse_reply_err(req, EROFS);
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      struct fuse_file_info *fi)
{
	(void)parent;
	(void)name;
	(void)mode;
	(void)fi;
	fuse_reply_err(req, EROFS);
}

static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
			size_t size, int flags)
{
	(void)ino;
	(void)name;
	(void)value;
	(void)size;
	(void)flags;
	fuse_reply_err(req, EROFS);
}

static void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	(void)ino;
	(void)name;
	fuse_reply_err(req, EROFS);
}

/* No ioctl handler: libfuse answers ENOSYS, which the kernel passes on as
 * ENOTTY, but keeps no answer: every ioctl on a file comes here (seen on 6.18;
 * fs/fuse/ioctl.c), so CPython's open() (isatty) costs a round trip a file,
 * the one request of a warm walk (tests/e2e/test_mount_walk.py). */
const struct fuse_lowlevel_ops fusefs_ops = {
    .init = op_init,
    .lookup = op_lookup,
    .forget = op_forget,
    .forget_multi = op_forget_multi,
    .getattr = op_getattr,
    .open = op_open,
    .opendir = op_opendir,
    .read = op_read,
    .readdir = op_readdir,
    .readdirplus = op_readdirplus,
    .statfs = op_statfs,
    .setattr = op_setattr,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_unlink,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .write = op_write,
    .create = op_create,
    .setxattr = op_setxattr,
    .removexattr = op_removexattr,
};

static int notify_inode(void *ctx, uint64_t ino)
{
	return fuse_lowlevel_notify_inval_inode(ctx, ino, 0, 0);
}

static int notify_entry(void *ctx, uint64_t parent, const char *name)
{
	return fuse_lowlevel_notify_inval_entry(ctx, parent, name, strlen(name));
}

static int notify_store(void *ctx, uint64_t ino, const char *data, size_t len)
{
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(len);

	bv.buf[0].mem = (void *)data;
	return fuse_lowlevel_notify_store(ctx, ino, 0, &bv, 0);
}

void fusefs_notify_ops_session(struct fusefs_notify_ops *ops, struct fuse_session *se)
{
	ops->inval_inode = notify_inode;
	ops->inval_entry = notify_entry;
	ops->store = notify_store;
	ops->ctx = se;
}
