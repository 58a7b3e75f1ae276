#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsx.h"

int paths_root(const char *flag, char *out, size_t n, struct err *err)
{
	char cwd[PATH_MAX], path[PATH_MAX];
	const char *env, *home;
	int rc;

	if (flag && *flag)
		rc = snprintf(path, sizeof(path), "%s", flag);
	else if ((env = getenv("MCPFS_ROOT")) && *env)
		rc = snprintf(path, sizeof(path), "%s", env);
	else if ((env = getenv("XDG_DATA_HOME")) && *env)
		rc = snprintf(path, sizeof(path), "%s/mcpfs", env);
	else if ((home = getenv("HOME")) && *home)
		rc = snprintf(path, sizeof(path), "%s/.local/share/mcpfs", home);
	else
		return err_set(err, EXIT_USAGE, "no data root: set --root, $MCPFS_ROOT or $HOME");
	if (rc < 0 || (size_t)rc >= sizeof(path))
		return err_set(err, EXIT_USAGE, "data root path too long");
	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return err_set(err, EXIT_USAGE, "getcwd: %s", strerror(errno));
		rc = snprintf(out, n, "%s/%s", cwd, path);
	} else {
		rc = snprintf(out, n, "%s", path);
	}
	if (rc < 0 || (size_t)rc >= n)
		return err_set(err, EXIT_USAGE, "data root path too long");
	rc = fsx_mkdirs(out, 0700);
	if (rc)
		return err_set(err, EXIT_USAGE, "data root %s: mkdir: %s", out, strerror(-rc));
	return 0;
}
