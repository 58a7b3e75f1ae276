/* cgroups: a group per run with a memory limit (swap included) and a pids
 * limit. cgroup v2 where the memory and pids controllers are delegated to
 * us, else v1 (one folder per controller, as on this machine). No usable
 * controller fails the run: rlimits alone cannot bound memfd, shared
 * mappings or tmpfs. Except for a normal user (rootless), who has a group
 * only where one was delegated: there the run has its rlimits alone, and
 * jail_limits_in_force says so.
 *
 * v1: the run's groups are made inside the ones mcpfs runs in.
 * v2: a group may hand controllers to its children only while it holds no
 * process itself (outside the root), so in a delegated group (a systemd
 * unit with Delegate=yes, a container's cgroup namespace) mcpfs first moves
 * its own processes into a leaf, JAIL_CGROUP_LEAF, as systemd's delegation
 * rules ask; the runs' groups are its siblings. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/cgroupfs.h"
#include "jail_i.h"

#define CGROUP_FS "/sys/fs/cgroup"
#define JAIL_CGROUP_STALE_S 60
/* v2: where mcpfs's own processes live in a delegated group. Not "mcpfs-*":
 * those are runs' groups, which sweep_stale removes when empty. */
#define JAIL_CGROUP_LEAF "mcpfs.main"

static int write_text(const char *dir, const char *file, const char *text, struct err *err)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (jail_write_file(path, 0, 0, text, strlen(text)) < 0)
		return err_set(err, EXIT_FAILED, "write(%s, %s): %s", path, text, strerror(errno));
	return 0;
}

/* The value after @key (a line "key value") in @dir/@file; 0 when absent. */
static unsigned long long read_key(const char *dir, const char *file, const char *key)
{
	char path[4200], line[256];
	unsigned long long v = 0;
	size_t klen = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			v = strtoull(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

static bool has_words(const char *dir, const char *file, const char *a, const char *b)
{
	char path[4200], text[512], *w, *save;
	bool ha = false, hb = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(text, sizeof(text), f))
		for (w = strtok_r(text, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
			ha |= !strcmp(w, a);
			hb |= !strcmp(w, b);
		}
	fclose(f);
	return ha && hb;
}

/* Remove groups of runs whose mcpfs was killed outright (SIGKILL leaves no
 * chance to clean up): empty "mcpfs-*" folders beside ours, old enough that
 * no run can still be setting them up. */
static void sweep_stale(const char *parent)
{
	char path[4400], procs[16];
	struct dirent *d;
	struct stat st;
	DIR *dir = opendir(parent);
	int fd;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "mcpfs-", 6))
			continue;
		snprintf(path, sizeof(path), "%s/%s", parent, d->d_name);
		if (stat(path, &st) < 0 || time(NULL) - st.st_mtime < JAIL_CGROUP_STALE_S)
			continue;
		snprintf(path, sizeof(path), "%s/%s/cgroup.procs", parent, d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read(fd, procs, sizeof(procs)) == 0) {
			snprintf(path, sizeof(path), "%s/%s", parent, d->d_name);
			rmdir(path);
		}
		close(fd);
	}
	closedir(dir);
}

/* Is @pid this process or one it started (a server, say)? */
static bool ours(pid_t pid)
{
	char path[64], line[512], *p;
	int depth;
	FILE *f;

	for (depth = 0; pid > 1 && depth < 64; depth++) {
		if (pid == getpid())
			return true;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "re");
		if (!f)
			return false;
		p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
		fclose(f);
		/* "pid (comm) state ppid": comm may hold anything but ends at the last ')' */
		if (!p || sscanf(p + 1, " %*c %d", &pid) != 1)
			return false;
	}
	return false;
}

/* Move this process, then every process of @group started by it, into
 * @group/JAIL_CGROUP_LEAF. Processes forked meanwhile follow their parent
 * there. Returns 0, or -1 with @err. */
static int move_ours_to_leaf(const char *group, struct err *err)
{
	char leaf[3100], procs[3100], pid[32];
	FILE *f;
	int p;

	snprintf(leaf, sizeof(leaf), "%s/" JAIL_CGROUP_LEAF, group);
	if (mkdir(leaf, 0755) < 0 && errno != EEXIST)
		return err_set(err, EXIT_FAILED, "mkdir(%s): %s", leaf, strerror(errno));
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (write_text(leaf, "cgroup.procs", pid, err) < 0)
		return -1;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", group);
	f = fopen(procs, "re");
	if (!f)
		return err_set(err, EXIT_FAILED, "open(%s): %s", procs, strerror(errno));
	while (fscanf(f, "%d", &p) == 1) {
		snprintf(pid, sizeof(pid), "%d", p);
		/* one that exited meanwhile is no matter */
		if (ours(p))
			write_text(leaf, "cgroup.procs", pid, NULL);
	}
	fclose(f);
	return 0;
}

/* Hand memory and pids to @group's children, if need be after moving our
 * processes out of it when @ours_inside (EBUSY: outside the root, a group
 * that holds processes cannot; the root of a container's cgroup namespace
 * is no root). Returns 0, 1 when the controllers are not ours to use here
 * (v1 may have them), or -1 with @err. */
static int delegate_v2(const char *group, bool ours_inside, struct err *err)
{
	const char *want = "+memory +pids";
	int saved;

	if (has_words(group, "cgroup.subtree_control", "memory", "pids"))
		return 0;
	if (!has_words(group, "cgroup.controllers", "memory", "pids"))
		return 1;
	if (write_text(group, "cgroup.subtree_control", want, NULL) == 0)
		return 0;
	saved = errno;
	if (saved != EBUSY || !ours_inside)
		return err_set(err, EXIT_FAILED, "write(%s/cgroup.subtree_control, %s): %s", group,
			       want, strerror(saved));
	/* EBUSY: processes in the group itself. Ours can leave it. */
	if (move_ours_to_leaf(group, err) < 0)
		return -1;
	if (write_text(group, "cgroup.subtree_control", want, NULL) == 0)
		return 0;
	saved = errno;
	return err_set(err, EXIT_FAILED,
		       "cannot give the runs' groups memory and pids limits in %s: %s%s", group,
		       strerror(saved),
		       saved == EBUSY ? " (processes that are not mcpfs's share its group: run "
					"mcpfs in a cgroup delegated to it, e.g. systemd-run "
					"--scope -p Delegate=yes, or name one that holds no "
					"process in MCPFS_CGROUP)"
				      : "");
}

/* The group to make the run's group in, into @parent (@n bytes): the one
 * MCPFS_CGROUP names, else ours, with memory and pids handed down. Returns 0,
 * 1 when v2 has no such group for us, or -1 with @err. */
static int v2_parent(const struct jail *j, char *parent, size_t n, struct err *err)
{
	const char *mnt = cgroupfs_is_v2(CGROUP_FS)		 ? CGROUP_FS
			  : cgroupfs_is_v2(CGROUP_FS "/unified") ? CGROUP_FS "/unified"
								 : NULL;
	const char *want = j->spec->cgroup_parent;
	char own[2048], *leaf;
	int rc;

	if (want && *want) {
		if (!mnt || want[0] != '/' || strstr(want, "/..") ||
		    (size_t)snprintf(parent, n, "%s%s", mnt, want) >= n || !cgroupfs_is_v2(parent))
			return err_set(err, EXIT_USAGE, "MCPFS_CGROUP=%s: no such cgroup v2 group",
				       want);
		rc = delegate_v2(parent, false, err);
		if (rc == 1)
			return err_set(err, EXIT_USAGE,
				       "MCPFS_CGROUP=%s: memory and pids are not available there",
				       want);
		return rc;
	}
	if (!mnt || cgroupfs_own("", own, sizeof(own)) < 0)
		return 1;
	/* Already moved to our leaf (an earlier run of this process, or another
	 * mcpfs in the same group): the runs' groups go beside it. */
	leaf = strrchr(own, '/');
	if (leaf && !strcmp(leaf + 1, JAIL_CGROUP_LEAF))
		*leaf = '\0';
	snprintf(parent, n, "%s%s", mnt, own[0] && strcmp(own, "/") ? own : "");
	return delegate_v2(parent, true, err);
}

static int create_v2(struct jail *j, struct err *err)
{
	const struct jail_limits *l = &j->spec->limits;
	char parent[3000], v[64];
	int rc = v2_parent(j, parent, sizeof(parent), err);

	if (rc)
		return rc;
	sweep_stale(parent);
	snprintf(j->cg.dirs[0], sizeof(j->cg.dirs[0]), "%s/mcpfs-%s", parent, j->spec->run_id);
	if (mkdir(j->cg.dirs[0], 0755) < 0)
		return err_set(err, EXIT_FAILED, "mkdir(%s): %s", j->cg.dirs[0], strerror(errno));
	j->cg.version = 2;
	j->cg.ndirs = 1;
	snprintf(v, sizeof(v), "%lu", l->memory_mb << 20);
	if (write_text(j->cg.dirs[0], "memory.max", v, err) < 0)
		return -1;
	/* absent without swap accounting, and then there is nothing to cap */
	write_text(j->cg.dirs[0], "memory.swap.max", "0", NULL);
	/* out of memory, the whole run ends at once */
	write_text(j->cg.dirs[0], "memory.oom.group", "1", NULL);
	snprintf(v, sizeof(v), "%lu", l->pids);
	if (write_text(j->cg.dirs[0], "pids.max", v, err) < 0)
		return -1;
	j->cg.dirfd = open(j->cg.dirs[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->cg.dirfd < 0)
		return err_set(err, EXIT_FAILED, "open(%s): %s", j->cg.dirs[0], strerror(errno));
	return 0;
}

static int create_v1(struct jail *j, struct err *err)
{
	const struct jail_limits *l = &j->spec->limits;
	static const char *const controllers[JAIL_CGROUP_CONTROLLERS] = {"memory", "pids"};
	char own[2048], v[64], path[4200], *dir;
	int i;

	for (i = 0; i < JAIL_CGROUP_CONTROLLERS; i++) {
		if (cgroupfs_own(controllers[i], own, sizeof(own)) < 0)
			return err_set(err, EXIT_FAILED,
				       "no cgroup v1 %s controller and no delegated v2 group: "
				       "cannot limit memory and processes",
				       controllers[i]);
		dir = j->cg.dirs[i];
		snprintf(dir, sizeof(j->cg.dirs[i]), CGROUP_FS "/%s%s", controllers[i],
			 strcmp(own, "/") ? own : "");
		sweep_stale(dir);
		snprintf(dir + strlen(dir), sizeof(j->cg.dirs[i]) - strlen(dir), "/mcpfs-%s",
			 j->spec->run_id);
		if (mkdir(dir, 0755) < 0)
			return err_set(err, EXIT_FAILED, "mkdir(%s): %s", dir, strerror(errno));
		j->cg.version = 1;
		j->cg.ndirs = i + 1;
	}
	snprintf(v, sizeof(v), "%lu", l->memory_mb << 20);
	if (write_text(j->cg.dirs[0], "memory.limit_in_bytes", v, err) < 0)
		return -1;
	/* memory+swap, where the kernel accounts swap: no escape into swap */
	if (access(CGROUP_FS "/memory/memory.memsw.limit_in_bytes", F_OK) == 0 &&
	    write_text(j->cg.dirs[0], "memory.memsw.limit_in_bytes", v, err) < 0)
		return -1;
	snprintf(v, sizeof(v), "%lu", l->pids);
	if (write_text(j->cg.dirs[1], "pids.max", v, err) < 0)
		return -1;
	for (i = 0; i < JAIL_CGROUP_CONTROLLERS; i++) {
		snprintf(path, sizeof(path), "%s/tasks", j->cg.dirs[i]);
		j->cg.tasks_fds[i] = open(path, O_WRONLY | O_CLOEXEC);
		if (j->cg.tasks_fds[i] < 0)
			return err_set(err, EXIT_FAILED, "open(%s): %s", path, strerror(errno));
	}
	return 0;
}

/* A normal user has a group of its own only where systemd (or a container)
 * delegated one; elsewhere the run goes on under its rlimits alone, and says
 * so (jail_cgroup_version). A group MCPFS_CGROUP names must work. */
static bool rootless_without(const struct jail *j)
{
	const char *want = j->spec->cgroup_parent;

	return j->rootless && !(want && *want);
}

int jail_cgroup_create(struct jail *j, struct err *err)
{
	struct err quiet = {0};
	struct err *e = rootless_without(j) ? &quiet : err;
	int rc = create_v2(j, e);

	if (rc == 1)
		rc = create_v1(j, e);
	j->in_force = j->spec->limits;
	if (rc < 0 && e == &quiet) {
		jail_cgroup_close(j);
		jail_cgroup_remove(j);
		if (j->in_force.nproc > j->in_force.pids)
			j->in_force.nproc = j->in_force.pids;
		j->in_force.memory_mb = j->in_force.pids = 0;
		return 0;
	}
	if (rc < 0)
		err_prefix(err, "jail: cgroup");
	return rc < 0 ? -1 : 0;
}

const struct jail_limits *jail_limits_in_force(const struct jail *j)
{
	return &j->in_force;
}

/* v1: the child moves itself, first of all its steps. A thread moving
 * itself through "tasks" skips the kernel's global threadgroup lock, and
 * with it an RCU grace period: 0.03 ms here, against 10-16 ms for the
 * parent writing the child's pid to cgroup.procs. The child is a single
 * thread, so "tasks" moves all of it. The descriptors were opened by the
 * parent, as host root; they close at exec. */
int jail_cgroup_join_child(struct jail *j, char *why, size_t n)
{
	int i;

	for (i = 0; i < JAIL_CGROUP_CONTROLLERS; i++)
		if (j->cg.tasks_fds[i] >= 0 && write(j->cg.tasks_fds[i], "0", 1) != 1)
			return jail_why(why, n, "write(%s/tasks, 0)", j->cg.dirs[i]);
	return 0;
}

/* v2, where the kernel could not start the child in its group (before
 * 5.7): the parent moves it. */
int jail_cgroup_setup_parent(struct jail *j, struct err *err)
{
	char pid[32];

	jail_cgroup_close(j);
	if (j->cg.version != 2 || j->cg.born_inside)
		return 0;
	snprintf(pid, sizeof(pid), "%d", (int)j->pid);
	return write_text(j->cg.dirs[0], "cgroup.procs", pid, err);
}

void jail_cgroup_close(struct jail *j)
{
	int i;

	for (i = 0; i < JAIL_CGROUP_CONTROLLERS; i++) {
		if (j->cg.tasks_fds[i] >= 0)
			close(j->cg.tasks_fds[i]);
		j->cg.tasks_fds[i] = -1;
	}
	if (j->cg.dirfd >= 0)
		close(j->cg.dirfd);
	j->cg.dirfd = -1;
}

/* Entered once in the run's group: it becomes our root, and
 * the host's hierarchy above it is out of sight. */
int jail_cgroup_setup_child(struct jail *j, char *why, size_t n)
{
	(void)j;
	if (unshare(CLONE_NEWCGROUP) < 0)
		return jail_why(why, n, "unshare(CLONE_NEWCGROUP)");
	return 0;
}

void jail_cgroup_kill(struct jail *j)
{
	int i;

	if (j->cg.version == 2 && write_text(j->cg.dirs[0], "cgroup.kill", "1", NULL) == 0)
		return;
	for (i = 0; i < j->cg.ndirs; i++)
		cgroupfs_kill(j->cg.dirs[i]);
}

void jail_cgroup_events(struct jail *j, bool *memory, bool *pids)
{
	*memory = *pids = false;
	if (j->cg.version == 2) {
		/* not "max": that counts reclaim at the limit, which kills nothing */
		*memory = read_key(j->cg.dirs[0], "memory.events", "oom_kill") > 0;
		*pids = read_key(j->cg.dirs[0], "pids.events", "max") > 0;
	} else if (j->cg.version == 1) {
		*memory = read_key(j->cg.dirs[0], "memory.oom_control", "oom_kill") > 0;
		*pids = j->cg.ndirs > 1 && read_key(j->cg.dirs[1], "pids.events", "max") > 0;
	}
}

void jail_cgroup_remove(struct jail *j)
{
	int i, rc;

	for (i = j->cg.ndirs - 1; i >= 0; i--) {
		rc = cgroupfs_remove(j->cg.dirs[i]);
		/* a later run's sweep removes it once it is old (sweep_stale) */
		if (rc < 0)
			fprintf(stderr, "mcpfs: cgroup %s left behind: %s\n", j->cg.dirs[i],
				strerror(-rc));
	}
	j->cg.ndirs = 0;
	j->cg.version = 0;
}
