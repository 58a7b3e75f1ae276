/* Finding or making the tree for a run (see run_tree.h). */
#define _GNU_SOURCE
#include "run_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../codegen/codegen.h"
#include "../common/fsx.h"
#include "../common/strmap.h"
#include "../fusefs/mount.h"
#include "../policy/policy.h"
#include "../servers/config.h"
#include "../servers/hub.h"
#include "../tree/snapshot.h"
#include "../tree/write.h"
#include "run.h"

/* A tree last written this long ago is bound by no run: it stopped being
 * fresh after RUN_TREE_MAX_AGE_S, and a run that bound it just before lasts
 * RUN_MAX_TIMEOUT_S at most. The hour is for clocks and slow starts. */
#define RUN_TREE_SWEEP_AGE_S (RUN_TREE_MAX_AGE_S + RUN_MAX_TIMEOUT_S + 3600)

/* One field of the key, its NUL included as a separator: "ab","c" differs
 * from "a","bc". NULL counts as "". */
static uint64_t key_add(uint64_t h, const char *s)
{
	return s ? strhash_add(h, s, strlen(s) + 1) : strhash_add(h, "", 1);
}

/* The cache key: whatever changes the tree's bytes short of a catalog change.
 * That includes the program writing it: a new mcpfs (other templates, other
 * codegen, another bridge protocol) must not reuse an older one's tree. */
static uint64_t tree_key(const struct config *cfg, const struct policy_rules *rules)
{
	uint64_t h = STRHASH_INIT;
	struct stat self;
	char id[128];
	size_t i, k;

	if (stat("/proc/self/exe", &self) == 0) {
		snprintf(id, sizeof(id), "%ju:%ju:%jd.%09ld:%jd", (uintmax_t)self.st_dev,
			 (uintmax_t)self.st_ino, (intmax_t)self.st_mtim.tv_sec,
			 self.st_mtim.tv_nsec, (intmax_t)self.st_size);
		h = key_add(h, id);
	}
	h = key_add(h, cfg->origin);
	h = key_add(h, policy_rules_key(rules));
	for (i = 0; i < cfg->nservers; i++) {
		const struct server_config *sc = &cfg->servers[i];

		h = key_add(h, sc->name);
		h = key_add(h, sc->command);
		h = key_add(h, sc->url);
		for (k = 0; k < sc->nargs; k++)
			h = key_add(h, sc->args[k]);
	}
	return h;
}

/* Does super option list @opts (comma-separated) hold @want whole? */
static bool has_option(const char *opts, const char *want)
{
	size_t len = strlen(want);
	const char *p;

	for (p = opts; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, want, len) && (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

/* Can the jail's user read the mount at @mp? With allow_other, yes;
 * without, FUSE lets in only the uid and gid that mounted it, which a
 * rootless jail's user is on the host (jail_host_ids). Else it gets EACCES
 * on every file of the mount. */
static bool mount_allows_jail(const char *mp)
{
	char line[8192], *tok[64], *save, *t, uid[32], gid[32];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int n, i;

	snprintf(uid, sizeof(uid), "user_id=%u", (unsigned)geteuid());
	snprintf(gid, sizeof(gid), "group_id=%u", (unsigned)getegid());

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		n = 0;
		for (t = strtok_r(line, " \n", &save); t && n < 64;
		     t = strtok_r(NULL, " \n", &save))
			tok[n++] = t;
		if (n < 5 || strcmp(tok[4], mp))
			continue;
		/* after the "-" separator: fstype, source, super options */
		for (i = 5; i < n && strcmp(tok[i], "-"); i++)
			;
		found = i + 3 < n && (has_option(tok[i + 3], "allow_other") ||
				      (geteuid() != 0 && has_option(tok[i + 3], uid) &&
				       has_option(tok[i + 3], gid)));
	}
	fclose(f);
	return found;
}

/* Seconds since the tree in @dir was written (its servers/ folder was), or
 * -1 when it has none. */
static double tree_age(const char *dir)
{
	char servers[4500];
	struct stat st;

	snprintf(servers, sizeof(servers), "%s/servers", dir);
	if (stat(servers, &st) < 0 || !S_ISDIR(st.st_mode))
		return -1;
	return difftime(time(NULL), st.st_mtime);
}

static bool fresh(const char *dir)
{
	double age = tree_age(dir);

	return age >= 0 && age < RUN_TREE_MAX_AGE_S;
}

/* Was @path (not followed) last changed over RUN_TREE_SWEEP_AGE_S ago? */
static bool long_unchanged(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && difftime(time(NULL), st.st_mtime) > RUN_TREE_SWEEP_AGE_S;
}

/* Hold the lock file @path exclusively; when @wait is false, give up with
 * -EWOULDBLOCK while another holds it. A sweep unlinks the lock file of a
 * tree it removes, and a lock on an unlinked file guards nothing: then the
 * lock is taken again on the file now at @path. Returns the descriptor
 * holding it, or -errno. */
static int lock_take(const char *path, bool wait)
{
	struct stat held, now;
	int fd, rc;

	for (;;) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return -errno;
		while ((rc = flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB)) < 0 && errno == EINTR)
			;
		if (rc < 0) {
			rc = -errno;
			close(fd);
			return rc;
		}
		if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_dev == now.st_dev &&
		    held.st_ino == now.st_ino)
			return fd;
		close(fd);
	}
}

/* A tree's folder name: its key, 16 hex digits. */
static bool is_tree_name(const char *name)
{
	return strlen(name) == 16 && strspn(name, "0123456789abcdef") == 16;
}

/* Remove what no run can still be using under @base: trees of other
 * configs or other mcpfs builds (each has its own key) written too long
 * ago, and the ".<key>.mcpfs-*" folders, trees replaced by newer ones and
 * what writers that died half-way left. A tree whose lock is held is being
 * written again, and stays. */
static void sweep(const char *base)
{
	char path[4400], lock[4500];
	struct dirent *d;
	DIR *dir = opendir(base);
	int fd;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		snprintf(path, sizeof(path), "%s/%s", base, d->d_name);
		if (d->d_name[0] == '.' && strstr(d->d_name, ".mcpfs-") && long_unchanged(path)) {
			fsx_remove_tree(path);
			continue;
		}
		if (!is_tree_name(d->d_name) || tree_age(path) <= RUN_TREE_SWEEP_AGE_S)
			continue;
		snprintf(lock, sizeof(lock), "%s.lock", path);
		fd = lock_take(lock, false);
		if (fd < 0)
			continue;
		if (tree_age(path) > RUN_TREE_SWEEP_AGE_S) {
			unlink(lock);
			fsx_remove_tree(path);
		}
		close(fd);
	}
	closedir(dir);
}

static int generate(struct hub *hub, const struct policy_rules *rules, const char *dir,
		    struct err *err)
{
	struct tree_filter f = {policy_tree_tools, (void *)rules};
	struct tree_snapshot *s = tree_snapshot_filtered(
	    hub, CG_LANG_ALL, cg_templates_embedded(), policy_rules_key(rules)[0] ? &f : NULL, err);
	int rc;

	if (!s)
		return -1;
	/* Runs that bound the tree replaced here still import from it: it stays
	 * until sweep() finds it older than any of them can be. */
	rc = tree_write(s, dir, TREE_WRITE_KEEP_OLD, NULL, err);
	tree_snapshot_free(s);
	return rc < 0 ? -1 : 0;
}

void run_tree_expire(const char *root)
{
	const time_t old = time(NULL) - RUN_TREE_MAX_AGE_S - 1;
	const struct timespec t[2] = {{old, 0}, {old, 0}};
	char base[4096], servers[4400];
	struct dirent *d;
	DIR *dir;

	snprintf(base, sizeof(base), "%s/cache/trees", root);
	if (!(dir = opendir(base)))
		return;
	while ((d = readdir(dir)))
		if (is_tree_name(d->d_name)) {
			snprintf(servers, sizeof(servers), "%s/%s/servers", base, d->d_name);
			utimensat(AT_FDCWD, servers, t, AT_SYMLINK_NOFOLLOW);
		}
	closedir(dir);
}

int run_tree_dir(const char *root, const struct config *cfg, struct hub *hub,
		 const struct policy_rules *rules, char *out, size_t n, struct err *err)
{
	char base[4096], dir[4200], lock[4300];
	unsigned langs = 0;
	int fd, rc;

	if (!policy_rules_key(rules)[0] &&
	    fusefs_mount_find(root, cfg->origin, out, n, &langs) == 0 &&
	    (langs & CG_LANG_ALL) == CG_LANG_ALL && mount_allows_jail(out))
		return 1;
	snprintf(base, sizeof(base), "%s/cache/trees", root);
	snprintf(dir, sizeof(dir), "%s/%016llx", base, (unsigned long long)tree_key(cfg, rules));
	if ((size_t)snprintf(out, n, "%s", dir) >= n)
		return err_set(err, EXIT_USAGE, "tree path too long: %s", dir);
	if (fresh(dir))
		return 0;
	if ((rc = fsx_mkdirs(base, 0755)) < 0)
		return err_set(err, EXIT_FAILED, "mkdir %s: %s", base, strerror(-rc));
	/* One writer at a time: runs that start cold together write the tree
	 * once, and the others find it fresh. */
	snprintf(lock, sizeof(lock), "%s.lock", dir);
	fd = lock_take(lock, true);
	if (fd < 0)
		return err_set(err, EXIT_FAILED, "lock %s: %s", lock, strerror(-fd));
	rc = fresh(dir) ? 0 : generate(hub, rules, dir, err);
	close(fd);
	if (rc < 0) {
		err_prefix(err, "tree for the run");
		return rc;
	}
	/* Only a run that wrote a tree looks for old ones: warm runs pay nothing. */
	sweep(base);
	return 0;
}
