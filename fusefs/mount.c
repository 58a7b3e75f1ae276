/* The life cycle of `mcpfs mount`, in order: check the mountpoint, build the
 * top of the tree, fork (unless -f), start the hub, mount, answer requests
 * until told to stop, then unmount and stop everything in reverse. */
#include "mount.h"

#include <errno.h>
#include <limits.h>
#include <mntent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "../codegen/codegen.h"
#include "../common/fsx.h"
#include "../servers/hub.h"
#include "daemon.h"
#include "fuse_i.h"

#define MOUNT_OPTS "ro,default_permissions,fsname=mcpfs,subtype=mcpfs"
#define MOUNT_THREADS 16
#define POLL_TICK_S 0.25
#define CACHE_MAX_BYTES ((size_t)512 << 20)
#define DEFAULT_CONNECT_S 30.0
#define READY_TRIES 50 /* x 100 ms */

struct mount {
	const struct config *cfg;
	const char *root;
	const struct fusefs_mount_opts *o;
	char mnt[PATH_MAX];
	char log_path[PATH_MAX];
	const struct cg_templates *tpl;
	struct cg_templates *tpl_loaded; /* owned when --templates */
	struct cg_root *cgroot;		 /* owned */
	double *wait_s;			 /* owned: per server */
	struct hub *hub;		 /* owned */
	struct fusefs_source src;
	struct fusefs_tree *_Atomic tree; /* owned; read by hub threads */
	struct fusefs_inval *inval;	  /* owned */
	struct fuse_session *se;	  /* owned */
	int ready_fd;			  /* daemon: the verdict pipe; else -1 */
	pthread_t main_thread;
	atomic_bool pidfile; /* written, so remove it at the end */
};

static int stale_error(const char *given, struct err *err)
{
	return err_set(err, EXIT_USAGE,
		       "mount: %s is a stale FUSE mount left by a killed run (transport endpoint "
		       "is not connected); run 'fusermount3 -u %s' first",
		       given, given);
}

static bool already_mounted(const char *abs)
{
	struct mntent ent, *e;
	char buf[4096];
	bool found = false;
	FILE *f = setmntent("/proc/self/mounts", "r");

	if (!f)
		return false;
	while (!found && (e = getmntent_r(f, &ent, buf, sizeof(buf))))
		found = !strcmp(e->mnt_dir, abs) && !strncmp(e->mnt_type, "fuse", 4);
	endmntent(f);
	return found;
}

/* Resolve the mountpoint and refuse the ones a mount cannot go on. A dead
 * FUSE mount may still answer stat from the kernel's attribute cache;
 * statfs always reaches the (gone) daemon, so it tells stale from live. */
static int check_mountpoint(struct mount *m, struct err *err)
{
	const char *given = m->o->mountpoint;
	struct statfs sf;
	struct stat st;

	if (!realpath(given, m->mnt)) {
		if (errno == ENOTCONN)
			return stale_error(given, err);
		return err_set(err, EXIT_USAGE, "mount: %s: %s", given, strerror(errno));
	}
	if (stat(m->mnt, &st) < 0) {
		if (errno == ENOTCONN)
			return stale_error(given, err);
		return err_set(err, EXIT_USAGE, "mount: stat(%s): %s", given, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return err_set(err, EXIT_USAGE, "mount: %s: not a directory", given);
	if (!already_mounted(m->mnt))
		return 0;
	if (statfs(m->mnt, &sf) < 0 && errno == ENOTCONN)
		return stale_error(given, err);
	return err_set(err, EXIT_USAGE,
		       "mount: %s is already a FUSE mount; unmount it first with "
		       "'fusermount3 -u %s'",
		       given, given);
}

/* The top of the tree: it depends on the server names only. */
static int build_root(struct mount *m, struct err *err)
{
	const char **names;
	size_t i, n = m->cfg->nservers;
	double t;

	if (m->o->templates_dir) {
		m->tpl_loaded = cg_templates_load(m->o->templates_dir, err);
		if (!m->tpl_loaded)
			return -1;
		m->tpl = m->tpl_loaded;
	} else {
		m->tpl = cg_templates_embedded();
	}
	names = calloc(n + 1, sizeof(*names));
	m->wait_s = calloc(n + 1, sizeof(*m->wait_s));
	if (!names || !m->wait_s) {
		free(names);
		return err_set(err, EXIT_FAILED, "mount: out of memory");
	}
	for (i = 0; i < n; i++) {
		names[i] = m->cfg->servers[i].name;
		t = m->cfg->servers[i].connect_timeout_s;
		m->wait_s[i] = t > 0 ? t : DEFAULT_CONNECT_S;
	}
	m->cgroot = cg_root_new(names, n, m->o->langs, m->tpl);
	free(names);
	if (!m->cgroot)
		return err_set(err, EXIT_FAILED, "mount: out of memory building the tree");
	return 0;
}

static void on_catalog_changed(void *ctx, const char *server, uint64_t generation)
{
	struct mount *m = ctx;
	struct fusefs_tree *t = atomic_load(&m->tree);

	(void)generation;
	if (t)
		fusefs_tree_changed(t, server);
}

/* Waits until the mountpoint answers, then writes the pid file and lets the
 * parent go; on failure, reports and stops the loop. */
static void *ready_main(void *arg)
{
	struct mount *m = arg;
	int i, rc;

	for (i = 0; i < READY_TRIES && !fusefs_mount_answers(m->mnt); i++)
		usleep(100 * 1000);
	if (i == READY_TRIES) {
		if (m->ready_fd >= 0) {
			char line[ERR_TEXT_MAX];

			snprintf(line, sizeof(line), "mount: %.400s does not answer after mounting",
				 m->mnt);
			fusefs_daemon_report(m->ready_fd, EXIT_FAILED, line, NULL);
			m->ready_fd = -1;
		}
		pthread_kill(m->main_thread, SIGTERM);
		return NULL;
	}
	rc = fusefs_pidfile_write(m->root, m->mnt, m->o->langs, m->cfg->origin);
	if (rc)
		fprintf(stderr, "mcpfs: mount: writing the pid file under %s/run: %s\n", m->root,
			strerror(-rc));
	else
		atomic_store(&m->pidfile, true);
	if (m->ready_fd >= 0) {
		fusefs_daemon_report(m->ready_fd, 0, NULL, m->log_path);
		m->ready_fd = -1;
	}
	return NULL;
}

static struct fuse_session *session_new(struct mount *m, struct fusefs_tree *tree, struct err *err)
{
	char *argv[] = {"mcpfs", "-o", MOUNT_OPTS, "-o", (char *)m->o->fuse_opts, NULL};
	struct fuse_args args = FUSE_ARGS_INIT(m->o->fuse_opts ? 5 : 3, argv);
	struct fuse_session *se = fuse_session_new(&args, &fusefs_ops, sizeof(fusefs_ops), tree);

	fuse_opt_free_args(&args);
	if (!se)
		err_set(err, EXIT_USAGE, "mount: fuse_session_new(-o %s%s%s) failed", MOUNT_OPTS,
			m->o->fuse_opts ? "," : "", m->o->fuse_opts ? m->o->fuse_opts : "");
	return se;
}

static int serve(struct mount *m)
{
	struct fuse_loop_config *lc = fuse_loop_cfg_create();
	int rc;

	if (!lc)
		return -ENOMEM;
	fuse_loop_cfg_set_max_threads(lc, MOUNT_THREADS);
	fuse_loop_cfg_set_clone_fd(lc, 0);
	rc = fuse_session_loop_mt(m->se, lc);
	fuse_loop_cfg_destroy(lc);
	return rc;
}

/* Everything after the fork. Returns an exit status. */
static int run(struct mount *m, struct err *err)
{
	struct fusefs_tree_opts topts = {0};
	struct fusefs_notify_ops nops;
	struct hub_opts ho = {0};
	struct fusefs_tree *tree;
	char logs[PATH_MAX];
	pthread_t ready;
	int status = EXIT_FAILED, rc, n;

	n = snprintf(logs, sizeof(logs), "%s/logs", m->root);
	if (n < 0 || (size_t)n >= sizeof(logs) ||
	    snprintf(m->log_path, sizeof(m->log_path), "%s/logs/mount.log", m->root) >=
		(int)sizeof(m->log_path)) {
		err_set(err, EXIT_USAGE, "mount: data root %s: path too long", m->root);
		return EXIT_USAGE;
	}
	fsx_mkdirs(logs, 0700);
	ho.state_dir = m->root;
	ho.cache_max_age_s = -1; /* a mount is long-lived: live catalogs only */
	ho.launcher = m->o->launcher;
	m->hub = hub_new(m->cfg, &ho);
	m->inval = fusefs_inval_new(POLL_TICK_S);
	if (!m->hub || !m->inval) {
		err_set(err, EXIT_FAILED, "mount: out of memory");
		return EXIT_FAILED;
	}
	if (hub_listen(m->hub, &(struct hub_listener){on_catalog_changed, m}) < 0) {
		err_set(err, EXIT_FAILED, "mount: out of memory");
		return EXIT_FAILED;
	}
	fusefs_source_hub(&m->src, m->hub);
	topts.root = m->cgroot;
	topts.src = &m->src;
	topts.wait_s = m->wait_s;
	topts.cache_max = CACHE_MAX_BYTES;
	topts.on_swap = fusefs_inval_push;
	topts.swap_ctx = m->inval;
	topts.on_listed = fusefs_inval_listed;
	topts.listed_ctx = m->inval;
	tree = fusefs_tree_new(&topts);
	if (!tree) {
		err_set(err, EXIT_FAILED, "mount: out of memory");
		return EXIT_FAILED;
	}
	atomic_store(&m->tree, tree);
	m->se = session_new(m, tree, err);
	if (!m->se) {
		status = EXIT_USAGE;
		goto out_tree;
	}
	if (fuse_set_signal_handlers(m->se)) {
		err_set(err, EXIT_FAILED, "mount: fuse_set_signal_handlers failed");
		goto out_session;
	}
	if (fuse_session_mount(m->se, m->mnt)) {
		err_set(err, EXIT_FAILED, "mount: fuse_session_mount(%s) failed", m->mnt);
		goto out_signals;
	}
	fusefs_notify_ops_session(&nops, m->se);
	rc = fusefs_inval_start(m->inval, tree, &nops);
	if (rc) {
		err_set(err, EXIT_FAILED, "mount: pthread_create(invalidation): %s", strerror(-rc));
		goto out_unmount;
	}
	m->main_thread = pthread_self();
	rc = pthread_create(&ready, NULL, ready_main, m);
	if (rc) {
		err_set(err, EXIT_FAILED, "mount: pthread_create(ready): %s", strerror(rc));
		goto out_unmount;
	}
	rc = serve(m);
	pthread_join(ready, NULL);
	if (rc < 0 && rc != -ENODEV)
		err_set(err, EXIT_FAILED, "mount: fuse_session_loop_mt: %s", strerror(-rc));
	else
		status = 0;
out_unmount:
	/* The invalidation thread talks to the session: stop it first. */
	fusefs_inval_stop(m->inval);
	fuse_session_unmount(m->se);
	if (atomic_load(&m->pidfile))
		fusefs_pidfile_remove(m->root, m->mnt);
out_signals:
	fuse_remove_signal_handlers(m->se);
out_session:
	fusefs_inval_stop(m->inval);
	fuse_session_destroy(m->se);
	m->se = NULL;
out_tree:
	/* Loaders may sit in hub_tools: join them before the hub goes; the
	 * hub's callbacks may come until hub_free returns. */
	fusefs_tree_stop(tree);
	hub_free(m->hub);
	m->hub = NULL;
	/* Queued jobs hold snapshots, which charge the tree's budget. */
	fusefs_inval_free(m->inval);
	m->inval = NULL;
	atomic_store(&m->tree, NULL);
	fusefs_tree_free(tree);
	return status;
}

int fusefs_mount(const struct config *cfg, const char *root, const struct fusefs_mount_opts *o,
		 struct err *err)
{
	struct mount m = {.cfg = cfg, .root = root, .o = o, .ready_fd = -1};
	int status, parent_status;

	if (check_mountpoint(&m, err) || build_root(&m, err)) {
		status = err->status;
		goto out_free;
	}
	if (!o->foreground) {
		switch (fusefs_daemon_fork(&m.ready_fd, &parent_status, err)) {
		case -1:
			status = EXIT_FAILED;
			goto out_free;
		case 1:
			status = parent_status;
			goto out_free;
		default:
			break;
		}
	}
	status = run(&m, err);
	if (m.ready_fd >= 0) {
		/* Never became ready: the parent prints the error, not us. */
		fusefs_daemon_report(m.ready_fd, status ? status : EXIT_FAILED,
				     err->text[0] ? err->text : "mount: stopped before ready",
				     NULL);
		err->text[0] = '\0';
	}
out_free:
	hub_free(m.hub);
	fusefs_inval_free(m.inval);
	cg_root_free(m.cgroot);
	cg_templates_free(m.tpl_loaded);
	free(m.wait_s);
	return status;
}
