/* The server profile of the jail. A server's bugs must not become a way out
 * of the code's jail: jailed code reaches every server through the bridge,
 * so whatever a server can touch, the code can ask it to.
 *
 * - Ids: a customer's server runs as that customer's uid (the one its code
 *   has, as they share the customer's folders), a shared one as its own;
 *   never root. Its user namespace is owned by that uid (jail.c). Run by a
 *   normal user, every server is that user outside, as its code is
 *   (jail_host_ids): servers are kept from one another by their binds and
 *   namespaces then, not by their uids.
 * - Files: /usr and the jail's minimal /etc and /dev; what it runs from,
 *   read-only (the command, and each absolute path among its arguments: the
 *   whole node_modules folder a script sits in, else the script's folder);
 *   its cwd, read-only; its home, read-write (a customer's server: that
 *   customer's workspace and state, and nothing else of the data root; a
 *   shared one: <root>/server-homes/<name> at /home/mcpfs); the config's "ro"
 *   and "rw". Each but that home at the path it has on the host, so the
 *   server's arguments mean what they say. Nothing that holds the data root
 *   is bound, nor anything in it but the customer's own folders.
 * - Network: a loopback of its own for customer-scoped servers; the host's
 *   for shared ones (most are API clients), with the host's resolver and CA
 *   files; "network" in the config says otherwise.
 * - Environment: PATH, LANG, LC_ALL, TZ, HOME (its home) and the config's env.
 * - Limits: cgroup memory and pids, rlimits, seccomp, no capabilities, as
 *   for code, but no CPU or wall-clock limit: a server lives long. */
#define _GNU_SOURCE
#include "server_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/fsx.h"
#include "jail.h"
#include "run.h"
#include "server_hold.h"

#define SB_MEMORY_MB 2048
#define SB_PIDS 1024
#define SB_MAX_BINDS 28 /* of JAIL_MAX_BINDS */
#define SB_MAX_ENV 64
/* A shared server's home, inside: nothing of the data root's path. */
#define SB_SHARED_HOME "/home/mcpfs"

/* Read-only, for a server on the host's network, where they exist. */
static const char *const net_files[] = {"/etc/resolv.conf",    "/etc/nsswitch.conf", "/etc/hosts",
					"/etc/host.conf",      "/etc/gai.conf",	     "/etc/ssl",
					"/etc/ca-certificates"};

/* Host variables a server keeps (besides its config's env). */
static const char *const kept_env[] = {"PATH", "LANG", "LC_ALL", "TZ"};

struct server_sandbox {
	struct server_launcher base; /* first */
	char *root;		     /* the data root, resolved */
	char *cgroup_parent;
};

struct proc_jail {
	struct server_proc base; /* first */
	struct jail *jail;
	bool reaped;
	int status;
	int lock_fd; /* lock_path, locked while the server lives */
	char lock_path[PATH_MAX];
};

/* One start's spec and what it owns; freed once the jail started. */
struct plan {
	const struct server_sandbox *sb;
	const struct server_config *sc;
	struct jail_bind binds[SB_MAX_BINDS];
	char *owned[SB_MAX_BINDS], *owned_dst[SB_MAX_BINDS]; /* dst: when it is not src */
	size_t nbinds;
	const char *env[SB_MAX_ENV + 1];
	char home_env[PATH_MAX + 8];
	char home[PATH_MAX];	 /* on the host */
	const char *home_inside; /* where the server sees it */
	char exe[PATH_MAX];
	const char **argv;
	char run_id[64];
	struct jail_spec spec;
	struct jail *jail; /* the result */
	struct err *err;
};

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* Whether @dst, a path inside, is already there (read-write when @rw). */
static bool covered(const struct plan *p, const char *dst, bool rw)
{
	size_t i;

	if (!rw && under(dst, "/usr"))
		return true;
	for (i = 0; i < p->nbinds; i++)
		if (under(dst, p->binds[i].dst) && (p->binds[i].rw || !rw))
			return true;
	return false;
}

/* Whether the data root, or any of it but this server's own folders, would
 * be in reach through @real. */
static bool touches_data_root(const struct plan *p, const char *real)
{
	const struct server_config *sc = p->sc;

	if (under(p->sb->root, real))
		return true; /* it holds the data root */
	if (!under(real, p->sb->root))
		return false;
	return !((sc->workspace_dir && under(real, sc->workspace_dir)) ||
		 (sc->state_dir && under(real, sc->state_dir)) || under(real, p->home));
}

/* Bind host folder @real (resolved) at @dst inside. Returns 0 or -1. */
static int bind_at(struct plan *p, const char *real, const char *dst, bool rw)
{
	char *src, *at;

	if (covered(p, dst, rw))
		return 0;
	if (p->nbinds == SB_MAX_BINDS)
		return err_set(p->err, EXIT_UNREACHABLE, "server '%s': sandbox: more than %d paths",
			       p->sc->name, SB_MAX_BINDS);
	src = strdup(real);
	at = strcmp(real, dst) ? strdup(dst) : src;
	if (!src || !at) {
		free(src);
		return err_set(p->err, EXIT_UNREACHABLE, "server '%s': out of memory", p->sc->name);
	}
	p->owned[p->nbinds] = src;
	p->owned_dst[p->nbinds] = at != src ? at : NULL;
	p->binds[p->nbinds++] = (struct jail_bind){src, at, rw, false};
	return 0;
}

/* Bind @path (resolved) at its own path, and also where @path says when a
 * symlink on the way made them differ (the server opens what it was told;
 * Node resolves modules by the real path). @must: a path the config names,
 * which must exist and be allowed; else one of the server's arguments,
 * skipped quietly when it is not a path we may bind. Returns 0 or -1. */
static int add_bind(struct plan *p, const char *path, bool rw, bool must)
{
	char real[PATH_MAX];

	if (!realpath(path, real)) {
		if (!must)
			return 0;
		return err_set(p->err, EXIT_UNREACHABLE, "server '%s': sandbox path %s: %s",
			       p->sc->name, path, strerror(errno));
	}
	if (touches_data_root(p, real) || touches_data_root(p, path)) {
		if (!must)
			return 0;
		return err_set(p->err, EXIT_UNREACHABLE,
			       "server '%s': sandbox path %s: holds or is inside the data root %s "
			       "(only the customer's own workspace and state may be bound)",
			       p->sc->name, path, p->sb->root);
	}
	if (bind_at(p, real, real, rw) < 0)
		return -1;
	/* as written, when it is a plain absolute path that differs */
	if (strcmp(path, real) && path[0] == '/' && !strstr(path, "/./") && !strstr(path, "/../") &&
	    !strstr(path, "//"))
		return bind_at(p, real, path, rw);
	return 0;
}

static bool has_file(const char *dir, const char *name)
{
	char probe[PATH_MAX + 32];

	return snprintf(probe, sizeof(probe), "%s/%s", dir, name) < (int)sizeof(probe) &&
	       access(probe, F_OK) == 0;
}

/* @dir becomes the folder of the nearest package.json or pyproject.toml
 * above it (a package reaches its dependencies from there); none: as is. */
static void package_root(char *dir)
{
	char up[PATH_MAX], *slash;

	snprintf(up, sizeof(up), "%s", dir);
	for (;;) {
		if (has_file(up, "package.json") || has_file(up, "pyproject.toml")) {
			memcpy(dir, up, strlen(up) + 1);
			return;
		}
		slash = strrchr(up, '/');
		if (!slash || slash == up)
			return;
		*slash = '\0';
	}
}

/* What an argument that names a file needs: the outermost node_modules
 * folder it sits in, else its package's folder; a folder, itself. The
 * command likewise, and for a program outside /usr in a bin/ folder, the
 * prefix above it (its libraries sit beside). */
static int add_arg(struct plan *p, const char *arg, bool exe)
{
	char dir[PATH_MAX];
	const char *nm;
	struct stat st;
	size_t n;

	if (arg[0] != '/' || stat(arg, &st) < 0 || strlen(arg) >= sizeof(dir))
		return 0;
	nm = strstr(arg, "/node_modules/");
	if (nm) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(nm - arg) + 13, arg);
		return add_bind(p, dir, false, false);
	}
	if (S_ISDIR(st.st_mode))
		return add_bind(p, arg, false, false);
	snprintf(dir, sizeof(dir), "%s", arg);
	*strrchr(dir, '/') = '\0';
	n = strlen(dir);
	if (!n)
		return 0;
	if (!exe)
		package_root(dir);
	else if (n > 4 && !strcmp(dir + n - 4, "/bin"))
		dir[n - 4] = '\0';
	/* a script that sits beside the data root: itself alone */
	return add_bind(p, touches_data_root(p, dir) ? arg : dir, false, false);
}

/* The command as execvpe would find it, in the PATH the server gets. */
static int find_exe(struct plan *p, const struct spawn_spec *s)
{
	const char *path = NULL, *dir, *end;
	char *const *e;
	size_t n;

	if (strchr(s->file, '/')) {
		/* relative to its cwd, as execvpe would take it there */
		if (snprintf(p->exe, sizeof(p->exe), "%s%s%s", s->file[0] == '/' ? "" : s->cwd ?: ".",
			     s->file[0] == '/' ? "" : "/", s->file) >= (int)sizeof(p->exe) ||
		    p->exe[0] != '/' || access(p->exe, X_OK) < 0)
			return err_set(p->err, EXIT_UNREACHABLE, "server '%s': command %s: %s",
				       p->sc->name, s->file,
				       p->exe[0] != '/' ? "a relative path needs an absolute cwd"
							: strerror(errno));
		return 0;
	}
	for (e = s->envp; *e; e++)
		if (!strncmp(*e, "PATH=", 5))
			path = *e + 5;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (dir = path; *dir; dir = *end ? end + 1 : end) {
		end = strchrnul(dir, ':');
		n = (size_t)(end - dir);
		if (!n || dir[0] != '/')
			continue;
		if (snprintf(p->exe, sizeof(p->exe), "%.*s/%s", (int)n, dir, s->file) >=
		    (int)sizeof(p->exe))
			continue;
		if (access(p->exe, X_OK) == 0)
			return 0;
	}
	return err_set(p->err, EXIT_UNREACHABLE, "server '%s': command %s: not found in PATH",
		       p->sc->name, s->file);
}

static bool env_named(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(entry, name, n) && entry[n] == '=';
}

/* The host's kept variables from @s, HOME, then the config's env (which
 * spawn_spec already merged; its entries win). */
static int build_env(struct plan *p, const struct spawn_spec *s)
{
	const struct server_config *sc = p->sc;
	bool config_home = false;
	size_t n = 0, i, k;
	char *const *e;

	for (i = 0; i < sc->nenv; i++)
		config_home |= env_named(sc->env[i], "HOME");
	for (e = s->envp; *e && n < SB_MAX_ENV - 1; e++) {
		bool keep = false;

		for (k = 0; k < sizeof(kept_env) / sizeof(kept_env[0]); k++)
			keep |= env_named(*e, kept_env[k]);
		for (i = 0; i < sc->nenv; i++)
			keep |= !strcmp(*e, sc->env[i]);
		if (keep)
			p->env[n++] = *e;
	}
	if (!config_home) {
		snprintf(p->home_env, sizeof(p->home_env), "HOME=%s", p->home_inside);
		p->env[n++] = p->home_env;
	}
	p->env[n] = NULL;
	return 0;
}

/* The server's home, made its own: a customer's state folder, or
 * <root>/server-homes/<name>. */
static int prepare_home(struct plan *p, uid_t uid, gid_t gid)
{
	const struct server_config *sc = p->sc;
	struct stat st;
	int rc;

	p->home_inside = SB_SHARED_HOME;
	if (sc->customer && sc->state_dir) {
		snprintf(p->home, sizeof(p->home), "%s", sc->state_dir);
		p->home_inside = p->home; /* ${STATE} in its args names it so */
	} else if (snprintf(p->home, sizeof(p->home), "%s/server-homes/%s", p->sb->root,
			    sc->name) >= (int)sizeof(p->home))
		return err_set(p->err, EXIT_UNREACHABLE, "server '%s': home path too long",
			       sc->name);
	rc = fsx_mkdirs(p->home, 0700);
	if (!rc && stat(p->home, &st) < 0)
		rc = -errno;
	if (!rc && st.st_uid != uid)
		rc = fsx_chown_tree(p->home, uid, gid);
	if (!rc && sc->customer && sc->workspace_dir && stat(sc->workspace_dir, &st) == 0 &&
	    st.st_uid != uid)
		rc = fsx_chown_tree(sc->workspace_dir, uid, gid);
	if (rc)
		return err_set(p->err, EXIT_UNREACHABLE, "server '%s': sandbox home %s: %s",
			       sc->name, p->home, strerror(-rc));
	return 0;
}

static int plan_binds(struct plan *p, const struct spawn_spec *s)
{
	const struct server_config *sc = p->sc;
	char real[PATH_MAX];
	size_t i;

	/* The customer's folders first: the read-only binds below skip what
	 * these already cover. */
	if (sc->customer && sc->workspace_dir && add_bind(p, sc->workspace_dir, true, true) < 0)
		return -1;
	/* the home (made by prepare_home) where the server sees it */
	if (!realpath(p->home, real))
		return err_set(p->err, EXIT_UNREACHABLE, "server '%s': sandbox home %s: %s",
			       sc->name, p->home, strerror(errno));
	if (bind_at(p, real, p->home_inside, true) < 0)
		return -1;
	for (i = 0; i < sc->sandbox.nrw; i++)
		if (add_bind(p, sc->sandbox.rw[i], true, true) < 0)
			return -1;
	for (i = 0; i < sc->sandbox.nro; i++)
		if (add_bind(p, sc->sandbox.ro[i], false, true) < 0)
			return -1;
	if (add_arg(p, p->exe, true) < 0)
		return -1;
	for (i = 1; s->argv[i]; i++)
		if (add_arg(p, s->argv[i], false) < 0)
			return -1;
	if (s->cwd && add_bind(p, s->cwd, false, true) < 0)
		return -1;
	if (p->spec.share_net)
		for (i = 0; i < sizeof(net_files) / sizeof(net_files[0]); i++)
			if (access(net_files[i], F_OK) == 0 &&
			    add_bind(p, net_files[i], false, false) < 0)
				return -1;
	return 0;
}

/* As many open files as we may give: raising a hard limit needs privilege
 * the jail no longer has. */
static unsigned long nofile_max(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) < 0 || r.rlim_max > 65536)
		return 65536;
	return (unsigned long)r.rlim_max;
}

static void plan_free(struct plan *p)
{
	size_t i;

	for (i = 0; i < p->nbinds; i++) {
		free(p->owned[i]);
		free(p->owned_dst[i]);
	}
	free(p->argv);
}

/* On the spawner's thread: the jail's pid 1 dies with mcpfs, not with
 * whichever thread asked for the server. */
static int start_on_spawner(void *arg)
{
	struct plan *p = arg;

	p->jail = jail_start(&p->spec, p->err);
	return 0;
}

static void pj_signal(struct server_proc *sp, int sig)
{
	jail_signal(((struct proc_jail *)sp)->jail, sig);
}

static bool pj_reap(struct server_proc *sp, int ms, int *status)
{
	struct proc_jail *pj = (struct proc_jail *)sp;
	struct pollfd pfd = {.fd = jail_pidfd(pj->jail), .events = POLLIN};
	struct jail_exit ex;
	int r;

	if (pj->reaped) {
		*status = pj->status;
		return true;
	}
	while ((r = poll(&pfd, 1, ms)) < 0 && errno == EINTR)
		;
	if (r <= 0 || jail_wait(pj->jail, &ex) < 0)
		return false;
	pj->reaped = true;
	pj->status = ex.signal ? W_EXITCODE(0, ex.signal) : W_EXITCODE(ex.exit_code, 0);
	*status = pj->status;
	return true;
}

static void pj_free(struct server_proc *sp)
{
	struct proc_jail *pj = (struct proc_jail *)sp;

	if (!pj)
		return;
	jail_free(pj->jail);
	if (pj->lock_fd >= 0) {
		unlink(pj->lock_path);
		close(pj->lock_fd);
	}
	free(pj);
}

/* A lock as a run's (run.h: <root>/run/exec-<id>.lock, made under the sweep
 * lock), held while the server lives: when a killed mcpfs leaves the
 * server's cgroup behind, the next sweep (run_sweep.c) finds the lock free
 * and removes the group. Returns 0 or -1 with @err. */
static int lock_make(struct proc_jail *pj, const struct plan *p, struct err *err)
{
	char dir[PATH_MAX - 64];
	int sweep, rc = 0;

	if (snprintf(dir, sizeof(dir), "%s/run", p->sb->root) >= (int)sizeof(dir))
		return err_set(err, EXIT_UNREACHABLE, "server '%s': data root path too long",
			       p->sc->name);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return err_set(err, EXIT_UNREACHABLE, "server '%s': mkdir %s: %s", p->sc->name, dir,
			       strerror(errno));
	sweep = run_sweep_lock(p->sb->root, LOCK_SH);
	if (sweep < 0)
		return err_set(err, EXIT_UNREACHABLE, "server '%s': %s/" RUN_SWEEP_LOCK ": %s",
			       p->sc->name, p->sb->root, strerror(-sweep));
	if (snprintf(pj->lock_path, sizeof(pj->lock_path), "%s/exec-%s" RUN_LOCK_SUFFIX, dir,
		     p->run_id) >= (int)sizeof(pj->lock_path)) {
		close(sweep);
		return err_set(err, EXIT_UNREACHABLE, "server '%s': data root path too long",
			       p->sc->name);
	}
	pj->lock_fd = open(pj->lock_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (pj->lock_fd < 0 || flock(pj->lock_fd, LOCK_EX) < 0)
		rc = err_set(err, EXIT_UNREACHABLE, "server '%s': %s: %s", p->sc->name,
			     pj->lock_path, strerror(errno));
	close(sweep);
	return rc;
}

static const struct server_proc_ops jail_ops = {
    .signal = pj_signal,
    .reap = pj_reap,
    .free = pj_free,
};

static struct server_proc *jailed_start(const struct server_sandbox *sb,
					const struct server_config *sc, const struct spawn_spec *s,
					struct err *err)
{
	enum server_network net = sc->sandbox.network;
	struct proc_jail *pj = NULL;
	struct plan *p = calloc(1, sizeof(*p));
	size_t n, i;
	uid_t uid;
	gid_t gid;

	if (!p) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
		return NULL;
	}
	jail_host_ids(sc->customer ? JAIL_CUSTOMER_UID : JAIL_SHARED_SERVER_UID, &uid, &gid);
	p->sb = sb;
	p->sc = sc;
	p->err = err;
	if (net == SERVER_NET_DEFAULT)
		net = sc->customer ? SERVER_NET_NONE : SERVER_NET_HOST;
	p->spec.share_net = net == SERVER_NET_HOST;
	for (n = 0; s->argv[n]; n++)
		;
	p->argv = calloc(n + 1, sizeof(*p->argv));
	if (!p->argv || run_id_new(p->run_id + 4, sizeof(p->run_id) - 4) < 0) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
		goto out;
	}
	memcpy(p->run_id, "srv-", 4);
	if (find_exe(p, s) < 0 || prepare_home(p, uid, gid) < 0 || plan_binds(p, s) < 0 ||
	    build_env(p, s) < 0)
		goto out;
	p->argv[0] = p->exe;
	for (i = 1; i < n; i++)
		p->argv[i] = s->argv[i];
	p->spec.argv = p->argv;
	p->spec.envp = p->env;
	p->spec.binds = p->binds;
	p->spec.nbinds = p->nbinds;
	p->spec.cwd = s->cwd ? s->cwd : p->home_inside;
	p->spec.host_uid = uid;
	p->spec.host_gid = gid;
	p->spec.limits = (struct jail_limits){
	    .cpu_s = 0,
	    .fsize_mb = 4096,
	    .nofile = nofile_max(),
	    .nproc = 16384,
	    .memory_mb = sc->sandbox.memory_mb ? sc->sandbox.memory_mb : SB_MEMORY_MB,
	    .pids = sc->sandbox.pids ? sc->sandbox.pids : SB_PIDS,
	    .tmp_mb = 256,
	};
	p->spec.limits.data_mb = 4 * p->spec.limits.memory_mb;
	p->spec.stdin_fd = s->fd_in;
	p->spec.stdout_fd = s->fd_out;
	p->spec.stderr_fd = s->fd_err;
	p->spec.run_id = p->run_id;
	p->spec.cgroup_parent = sb->cgroup_parent;
	pj = calloc(1, sizeof(*pj));
	if (!pj) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", sc->name);
		goto out;
	}
	pj->base.ops = &jail_ops;
	pj->lock_fd = -1;
	if (lock_make(pj, p, err) < 0)
		goto out_free;
	spawner_call(start_on_spawner, p);
	if (!p->jail) {
		err_prefix(err, "server '%s': sandbox", sc->name);
		if (err)
			err->status = EXIT_UNREACHABLE;
		goto out_free;
	}
	pj->jail = p->jail;
	goto out;
out_free:
	pj_free(&pj->base);
	pj = NULL;
out:
	plan_free(p);
	free(p);
	return pj ? &pj->base : NULL;
}

/* A customer's server holds its workspace while it lives (server_hold.h);
 * one with "sandbox": false starts plainly, but holds it too. */
static struct server_proc *sb_start(const struct server_launcher *l, const struct server_config *sc,
				    const struct spawn_spec *s, struct err *err)
{
	const struct server_sandbox *sb = (const struct server_sandbox *)l;
	struct server_hold *h = NULL;
	struct server_proc *p;

	if (sc->customer && !(h = server_hold_take(sb->root, sc->customer, sc->name, err)))
		return NULL;
	p = sc->sandbox.off ? server_proc_plain(sc, s, err) : jailed_start(sb, sc, s, err);
	return h ? server_hold_wrap(h, p) : p;
}

struct server_sandbox *server_sandbox_new(const char *root, const char *cgroup_parent)
{
	struct server_sandbox *sb = calloc(1, sizeof(*sb));
	char real[PATH_MAX];

	if (!sb)
		return NULL;
	sb->base.start = sb_start;
	sb->root = strdup(realpath(root, real) ? real : root);
	sb->cgroup_parent = cgroup_parent ? strdup(cgroup_parent) : NULL;
	if (!sb->root || (cgroup_parent && !sb->cgroup_parent)) {
		server_sandbox_free(sb);
		return NULL;
	}
	return sb;
}

const struct server_launcher *server_sandbox_launcher(struct server_sandbox *sb)
{
	return sb ? &sb->base : NULL;
}

void server_sandbox_free(struct server_sandbox *sb)
{
	if (!sb)
		return;
	free(sb->root);
	free(sb->cgroup_parent);
	free(sb);
}
