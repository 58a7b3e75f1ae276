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
#include "../servers/hub_progress.h"
#include "daemon.h"
#include "fuse_i.h"
#include "warm.h"

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
	struct hub *hub;		 /* owned, unless embedded */
	struct hub_progress *progress;	 /* owned: on a terminal; else NULL */
	bool embedded;			 /* fusefs_mount_start: on a hub someone else holds */
	int listener;			 /* hub_listen handle, or 0 */
	struct fusefs_hub_view view;	 /* src's */
	struct fusefs_source src;
	struct fusefs_tree *_Atomic tree; /* owned; read by hub threads */
	struct fusefs_inval *inval;	  /* owned */
	struct fuse_session *se;	  /* owned */
	int ready_fd;			  /* daemon: the verdict pipe; else -1 */
	bool signals, mounted;		  /* libfuse's signal handlers set; mounted */
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

/* Whether @f (NULL: everything shown) leaves @server out of the tree. */
static bool hidden(const struct tree_filter *f, const char *server)
{
	bool hide = false;

	if (f)
		json_decref(f->tools(f->ctx, server, NULL, &hide));
	return hide;
}

/* The top of the tree: it depends on the server names only. */
static int build_root(struct mount *m, struct err *err)
{
	const char **names;
	size_t i, k, n = m->cfg->nservers;
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
	for (i = 0, k = 0; i < n; i++) {
		if (hidden(m->o->filter, m->cfg->servers[i].name))
			continue;
		names[k] = m->cfg->servers[i].name;
		t = m->cfg->servers[i].connect_timeout_s;
		m->wait_s[k++] = t > 0 ? t : DEFAULT_CONNECT_S;
	}
	m->cgroot = cg_root_new(names, k, m->o->langs, m->tpl);
	free(names);
	if (!m->cgroot)
		return err_set(err, EXIT_FAILED, "mount: out of memory building the tree");
	return 0;
}

static void root_free(struct mount *m)
{
	cg_root_free(m->cgroot);
	m->cgroot = NULL;
	cg_templates_free(m->tpl_loaded);
	m->tpl_loaded = NULL;
	free(m->wait_s);
	m->wait_s = NULL;
}

static void on_catalog_changed(void *ctx, const char *server, uint64_t generation)
{
	struct mount *m = ctx;
	struct fusefs_tree *t = atomic_load(&m->tree);

	(void)generation;
	if (t)
		fusefs_tree_changed(t, server);
}

/* Wait until the mountpoint answers, then write the pid file. Returns false
 * when it never answered. */
static bool wait_ready(struct mount *m)
{
	int i, rc;

	for (i = 0; i < READY_TRIES && !fusefs_mount_answers(m->mnt); i++)
		usleep(100 * 1000);
	if (i == READY_TRIES)
		return false;
	rc = fusefs_pidfile_write(m->root, m->mnt, m->o->langs, m->cfg->origin);
	if (rc)
		fprintf(stderr, "mcpfs: mount: writing the pid file under %s/run: %s\n", m->root,
			strerror(-rc));
	else
		atomic_store(&m->pidfile, true);
	return true;
}

/* Lets the parent go once the mount answers; otherwise reports and stops
 * the loop. */
static void *ready_main(void *arg)
{
	struct mount *m = arg;
	char line[ERR_TEXT_MAX];

	if (!wait_ready(m)) {
		if (m->ready_fd >= 0) {
			snprintf(line, sizeof(line), "mount: %.400s does not answer after mounting",
				 m->mnt);
			fusefs_daemon_report(m->ready_fd, EXIT_FAILED, line, NULL);
			m->ready_fd = -1;
		}
		pthread_kill(m->main_thread, SIGTERM);
		return NULL;
	}
	if (m->ready_fd >= 0) {
		/* A daemon's stderr is about to become its log: the first listing
		 * shows on the terminal now, or never. */
		if (m->progress) {
			fusefs_warm(m->mnt, m->cgroot);
			hub_progress_stop(m->progress);
			m->progress = NULL;
		}
		fusefs_daemon_report(m->ready_fd, 0, NULL, m->log_path);
		m->ready_fd = -1;
	}
	return NULL;
}

/* A normal user mounts through fusermount3 (setuid root), which auto_unmount
 * asks libfuse for outright: without it libfuse first opens /dev/fuse itself
 * and gives up where the device is not open to users (mode 0600), instead of
 * trying fusermount3. It also unmounts the tree when mcpfs dies. */
static struct fuse_session *session_new(struct mount *m, struct fusefs_tree *tree, struct err *err)
{
	char *argv[7] = {"mcpfs", "-o", MOUNT_OPTS};
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse_session *se;

	if (geteuid() != 0) {
		argv[args.argc++] = "-o";
		argv[args.argc++] = "auto_unmount";
	}
	if (m->o->fuse_opts) {
		argv[args.argc++] = "-o";
		argv[args.argc++] = (char *)m->o->fuse_opts;
	}
	se = fuse_session_new(&args, &fusefs_ops, sizeof(fusefs_ops), tree);
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

/* The tree, the session (with libfuse's signal handlers for `mcpfs mount`)
 * and the kernel mount over m->hub, and the invalidation thread. Returns 0,
 * or -1 with @err (its status the exit status); mount_down undoes whatever
 * was done. */
static int mount_up(struct mount *m, struct err *err)
{
	struct fusefs_tree_opts topts = {0};
	struct fusefs_notify_ops nops;
	struct fusefs_tree *tree;
	int rc;

	m->inval = fusefs_inval_new(POLL_TICK_S);
	if (!m->inval)
		return err_set(err, EXIT_FAILED, "mount: out of memory");
	m->listener = hub_listen(m->hub, &(struct hub_listener){on_catalog_changed, m});
	if (m->listener < 0)
		return err_set(err, EXIT_FAILED, "mount: hub_listen: %s", strerror(-m->listener));
	m->view = (struct fusefs_hub_view){m->hub, m->o->filter};
	fusefs_source_hub(&m->src, &m->view);
	topts.root = m->cgroot;
	topts.src = &m->src;
	topts.wait_s = m->wait_s;
	topts.cache_max = CACHE_MAX_BYTES;
	topts.on_swap = fusefs_inval_push;
	topts.swap_ctx = m->inval;
	topts.on_listed = fusefs_inval_listed;
	topts.listed_ctx = m->inval;
	tree = fusefs_tree_new(&topts);
	if (!tree)
		return err_set(err, EXIT_FAILED, "mount: out of memory");
	atomic_store(&m->tree, tree);
	m->se = session_new(m, tree, err);
	if (!m->se)
		return -1;
	if (!m->embedded) {
		/* libfuse sets its handlers only where a signal is at its default:
		 * a mount started ignoring SIGINT (a background job of a script)
		 * would not stop on it. SIGHUP ignored (nohup) is meant. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (fuse_set_signal_handlers(m->se))
			return err_set(err, EXIT_FAILED, "mount: fuse_set_signal_handlers failed");
		m->signals = true;
	}
	if (fuse_session_mount(m->se, m->mnt)) {
		/* fusermount3 opens the device as the user: its mode is the
		 * host's word on who may use FUSE */
		if (geteuid() != 0 && access("/dev/fuse", R_OK | W_OK) < 0)
			return err_set(err, EXIT_FAILED,
				       "mount: %s: /dev/fuse is not open to uid %u (%s): a normal "
				       "user needs it mode 0666, as distributions ship it",
				       m->mnt, (unsigned)geteuid(), strerror(errno));
		return err_set(err, EXIT_FAILED,
			       "mount: fuse_session_mount(%s) failed ('mcpfs doctor' checks FUSE)",
			       m->mnt);
	}
	m->mounted = true;
	fusefs_notify_ops_session(&nops, m->se);
	rc = fusefs_inval_start(m->inval, tree, &nops);
	if (rc)
		return err_set(err, EXIT_FAILED, "mount: pthread_create(invalidation): %s",
			       strerror(-rc));
	return 0;
}

/* Undo mount_up, in reverse, from whatever state it reached. The loop must
 * have ended. */
static void mount_down(struct mount *m)
{
	struct fusefs_tree *tree = atomic_load(&m->tree);

	/* The invalidation thread talks to the session: stop it first. */
	if (m->inval)
		fusefs_inval_stop(m->inval);
	if (m->mounted)
		fuse_session_unmount(m->se);
	m->mounted = false;
	if (atomic_load(&m->pidfile))
		fusefs_pidfile_remove(m->root, m->mnt);
	atomic_store(&m->pidfile, false);
	if (m->signals)
		fuse_remove_signal_handlers(m->se);
	m->signals = false;
	if (m->se)
		fuse_session_destroy(m->se);
	m->se = NULL;
	/* Loaders may sit in hub_tools: join them before the hub goes, and
	 * stop listening before the tree goes (a callback may be under way). */
	if (tree)
		fusefs_tree_stop(tree);
	if (m->listener > 0 && m->embedded)
		hub_unlisten(m->hub, m->listener);
	m->listener = 0;
	if (!m->embedded) {
		hub_free(m->hub);
		m->hub = NULL;
	}
	/* Queued jobs hold snapshots, which charge the tree's budget. */
	fusefs_inval_free(m->inval);
	m->inval = NULL;
	atomic_store(&m->tree, NULL);
	fusefs_tree_free(tree);
}

/* `mcpfs mount`, after the fork: a hub of its own, the loop in this thread
 * until a signal or an unmount. Returns an exit status. */
static int run(struct mount *m, struct err *err)
{
	struct hub_opts ho = {0};
	char logs[PATH_MAX];
	pthread_t ready;
	int status, rc, n;

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
	if (!m->hub) {
		err_set(err, EXIT_FAILED, "mount: out of memory");
		return EXIT_FAILED;
	}
	/* The first listings, which start the servers, show on a terminal: in
	 * the foreground when they come; a daemon does them before it detaches
	 * (ready_main), as its stderr then becomes its log. */
	m->progress = hub_progress_start(m->hub, STDERR_FILENO);
	status = EXIT_FAILED;
	if (mount_up(m, err) < 0) {
		status = err->status;
		goto out;
	}
	m->main_thread = pthread_self();
	rc = pthread_create(&ready, NULL, ready_main, m);
	if (rc) {
		err_set(err, EXIT_FAILED, "mount: pthread_create(ready): %s", strerror(rc));
		goto out;
	}
	rc = serve(m);
	pthread_join(ready, NULL);
	status = 0;
	if (rc < 0 && rc != -ENODEV) {
		err_set(err, EXIT_FAILED, "mount: fuse_session_loop_mt: %s", strerror(-rc));
		status = EXIT_FAILED;
	}
out:
	hub_progress_stop(m->progress); /* before mount_down frees the hub it watches */
	m->progress = NULL;
	mount_down(m);
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
	root_free(&m);
	return status;
}

/* --- a mount on a hub someone else holds (`mcpfs serve --mount`) --- */

/* Wakes the loop's thread from its wait, so that it sees the session has
 * exited: what libfuse's own signal handlers do for `mcpfs mount`. */
#define WAKE_SIGNAL SIGUSR2

struct fusefs_mount {
	struct mount m;
	struct fusefs_mount_opts o; /* a copy; its strings borrowed */
	pthread_t loop;
	bool looping;
	atomic_bool ended; /* the loop returned */
};

static void on_wake(int sig)
{
	(void)sig;
}

static void *loop_main(void *arg)
{
	struct fusefs_mount *fm = arg;
	sigset_t wake;
	int rc;

	sigemptyset(&wake);
	sigaddset(&wake, WAKE_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &wake, NULL);
	rc = serve(&fm->m);
	if (rc < 0 && rc != -ENODEV)
		fprintf(stderr, "mcpfs: mount: fuse_session_loop_mt(%s): %s\n", fm->m.mnt,
			strerror(-rc));
	atomic_store(&fm->ended, true);
	return NULL;
}

struct fusefs_mount *fusefs_mount_start(const struct config *cfg, const char *root, struct hub *hub,
					const struct fusefs_mount_opts *o, struct err *err)
{
	struct sigaction sa = {.sa_handler = on_wake}; /* no SA_RESTART: the wait ends */
	struct fusefs_mount *fm = calloc(1, sizeof(*fm));
	struct mount *m;
	int rc;

	if (!fm) {
		err_set(err, EXIT_FAILED, "mount: out of memory");
		return NULL;
	}
	fm->o = *o;
	m = &fm->m;
	*m = (struct mount){
	    .cfg = cfg, .root = root, .o = &fm->o, .hub = hub, .embedded = true, .ready_fd = -1};
	sigemptyset(&sa.sa_mask);
	sigaction(WAKE_SIGNAL, &sa, NULL);
	if (check_mountpoint(m, err) || build_root(m, err) || mount_up(m, err) < 0)
		goto out_stop;
	rc = pthread_create(&fm->loop, NULL, loop_main, fm);
	if (rc) {
		err_set(err, EXIT_FAILED, "mount: pthread_create(loop): %s", strerror(rc));
		goto out_stop;
	}
	fm->looping = true;
	if (!wait_ready(m)) {
		err_set(err, EXIT_FAILED, "mount: %.400s does not answer after mounting", m->mnt);
		goto out_stop;
	}
	return fm;
out_stop:
	fusefs_mount_stop(fm);
	return NULL;
}

void fusefs_mount_stop(struct fusefs_mount *fm)
{
	if (!fm)
		return;
	if (fm->looping) {
		/* A wake that comes before the loop waits is lost: repeat it. */
		fuse_session_exit(fm->m.se);
		while (!atomic_load(&fm->ended)) {
			pthread_kill(fm->loop, WAKE_SIGNAL);
			usleep(20 * 1000);
		}
		pthread_join(fm->loop, NULL);
	}
	mount_down(&fm->m);
	root_free(&fm->m);
	free(fm);
}
