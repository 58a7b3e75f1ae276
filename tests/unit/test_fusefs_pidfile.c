/* The mount's pid file: its path and format (fusefs/mount.h), and that
 * fusefs_mount_find does not take a live process whose mountpoint is not a
 * FUSE mount for a mount. */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/fsx.h"
#include "../../fusefs/mount.h"
#include "check.h"

int main(void)
{
	char root[] = "/tmp/test_fusefs_pidfile_XXXXXX";
	char path[PATH_MAX], other[PATH_MAX], found[PATH_MAX];
	const char *mnt = NULL, *langs = NULL, *config = NULL;
	json_int_t pid = 0;
	unsigned l = 0;
	json_t *doc;
	char *text;

	if (!mkdtemp(root)) {
		printf("mkdtemp failed\n");
		return 1;
	}
	CHECK(fusefs_pidfile_path(root, "/srv/tree", path, sizeof(path)) == 0, "path");
	CHECK(strncmp(path, root, strlen(root)) == 0 && strstr(path, "/run/mount-") &&
		  strlen(strstr(path, "/run/mount-")) == strlen("/run/mount-") + 16 + 5,
	      "path is <root>/run/mount-<16 hex>.json: %s", path);
	fusefs_pidfile_path(root, "/srv/other", other, sizeof(other));
	CHECK(strcmp(path, other) != 0, "keyed by the mountpoint");
	CHECK(fusefs_pidfile_path(root, "/srv/tree", found, 10) == -ENAMETOOLONG, "too long");

	CHECK(fusefs_pidfile_write(root, "/srv/tree", 1u, "/etc/mcpfs.json") == 0, "write");
	CHECK(fsx_read(path, 1 << 16, &text, NULL) == 0, "read it back");
	doc = json_loads(text, 0, NULL);
	free(text);
	CHECK(doc && json_unpack(doc, "{s:s, s:I, s:s, s:s}", "mountpoint", &mnt, "pid", &pid,
				 "langs", &langs, "config", &config) == 0,
	      "the documented fields");
	CHECK(mnt && !strcmp(mnt, "/srv/tree") && pid == getpid() && langs &&
		  !strcmp(langs, "py") && config && !strcmp(config, "/etc/mcpfs.json"),
	      "their values");
	json_decref(doc);

	/* Alive but not a FUSE mount: not found. */
	CHECK(fusefs_mount_find(root, NULL, found, sizeof(found), &l) == -ENOENT,
	      "a mountpoint that does not answer as FUSE is not a mount");
	CHECK(!fusefs_mount_answers("/"), "/ is not a FUSE mount");
	fusefs_pidfile_remove(root, "/srv/tree");
	CHECK(access(path, F_OK) < 0 && errno == ENOENT, "removed");
	CHECK(fusefs_mount_find(root, NULL, found, sizeof(found), &l) == -ENOENT, "none left");

	fsx_remove_tree(root);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
