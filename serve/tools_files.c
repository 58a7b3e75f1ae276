/* The workspace from outside the jail: list, read, write. Every path is
 * resolved beneath the workspace's folder fd with openat2 (common/fsx.h):
 * no "..", no absolute path, no symlink on the way, even one the customer's
 * own code planted. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../servers/crypto_lib.h"
#include "../common/buf.h"
#include "../common/fsx.h"
#include "../common/fsx.h"
#include "tools.h"

#define LIST_MAX 1000
#define READ_DEFAULT 65536
#define READ_MAX (1u << 20)
#define WRITE_MAX (4u << 20)
#define PATH_MAX_LEN 1024

/* Refuse what can only be a mistake or an attack, with a clear text; the
 * kernel (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) enforces it regardless. */
static int path_ok(const char *path, bool empty_ok, struct err *err)
{
	const char *p = path, *slash;
	size_t len;

	if (!*path)
		return empty_ok ? 0 : err_set(err, EXIT_USAGE, "path is empty");
	if (strlen(path) > PATH_MAX_LEN)
		return err_set(err, EXIT_USAGE, "path is longer than %d bytes", PATH_MAX_LEN);
	if (path[0] == '/')
		return err_set(err, EXIT_USAGE,
			       "'%.200s' is absolute: paths are relative to the workspace", path);
	for (;;) {
		slash = strchr(p, '/');
		len = slash ? (size_t)(slash - p) : strlen(p);
		if (len == 2 && !strncmp(p, "..", 2))
			return err_set(err, EXIT_USAGE,
				       "'%.200s' leaves the workspace ('..' is not allowed)", path);
		if (!slash)
			return 0;
		p = slash + 1;
	}
}

static int fs_fail(struct err *err, const char *what, const char *path, int rc)
{
	if (rc == -ELOOP)
		return err_set(err, EXIT_USAGE,
			       "%s '%.200s': a symlink is on the way (not followed)", what, path);
	if (rc == -EXDEV)
		return err_set(err, EXIT_USAGE, "%s '%.200s': leaves the workspace", what, path);
	if (rc == -ENOENT)
		return err_set(err, EXIT_USAGE, "%s '%.200s': no such file or folder", what, path);
	return err_set(err, EXIT_FAILED, "%s '%.200s': %s", what, path, strerror(-rc));
}

static const char *type_of(mode_t m)
{
	return S_ISREG(m) ? "file" : S_ISDIR(m) ? "folder" : S_ISLNK(m) ? "symlink" : "other";
}

struct listing {
	json_t *entries;
	const char *prefix; /* the listed folder's path in the workspace */
};

static int list_one(void *ctx, const struct fsx_entry *e)
{
	struct listing *l = ctx;
	char path[PATH_MAX_LEN + 300];

	snprintf(path, sizeof(path), "%s%s%s", l->prefix, l->prefix[0] ? "/" : "", e->rel);
	return json_array_append_new(l->entries, json_pack("{s:s,s:s,s:I}", "path", path, "type",
							   type_of(e->st->st_mode), "size",
							   (json_int_t)e->st->st_size))
		   ? -ENOMEM
		   : 0;
}

/* The entries of the folder @fd (consumed), one level. */
static int list_flat(int fd, struct listing *l)
{
	struct fsx_entry e;
	struct dirent *d;
	struct stat st;
	size_t n = 0;
	DIR *dir = fdopendir(fd);
	int rc = 0;

	if (!dir) {
		close(fd);
		return -errno;
	}
	while (!rc && (d = readdir(dir)) && n <= LIST_MAX) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		e = (struct fsx_entry){d->d_name, &st, dirfd(dir), d->d_name};
		rc = list_one(l, &e);
		n++;
	}
	closedir(dir);
	return rc;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "path")),
		      json_string_value(json_object_get(*(json_t *const *)b, "path")));
}

static int list_workspace_files(struct tool_ctx *t, json_t *args, struct tool_out *out,
				struct err *err)
{
	const char *path = json_string_value(json_object_get(args, "path")) ?: "";
	bool recursive = json_is_true(json_object_get(args, "recursive"));
	struct listing l = {.prefix = path};
	struct ws ws;
	int top, fd, rc;
	size_t n;
	json_t **items, *v;

	if (path_ok(path, true, err) < 0 || tool_ws(t, &ws, err) < 0)
		return -1;
	top = fsx_open_dir(ws.workspace);
	if (top < 0)
		return fs_fail(err, "open", "the workspace", top);
	fd = fsx_open_at(top, path[0] ? path : ".", O_RDONLY | O_DIRECTORY, 0);
	close(top);
	if (fd < 0)
		return fs_fail(err, "list", path, fd);
	l.entries = json_array();
	if (!l.entries) {
		close(fd);
		return err_set(err, EXIT_FAILED, "out of memory");
	}
	if (recursive) {
		rc = fsx_walk_at(fd, LIST_MAX + 1, list_one, &l);
		close(fd);
	} else {
		rc = list_flat(fd, &l);
	}
	if (rc < 0) {
		json_decref(l.entries);
		return fs_fail(err, "list", path, rc);
	}
	n = json_array_size(l.entries);
	/* Sorted for a stable answer: copy out, sort, rebuild. */
	items = calloc(n ? n : 1, sizeof(*items));
	if (items) {
		size_t i;

		json_array_foreach(l.entries, i, v) items[i] = json_incref(v);
		qsort(items, n, sizeof(*items), by_path);
		json_array_clear(l.entries);
		for (i = 0; i < n; i++)
			if (i < LIST_MAX)
				json_array_append_new(l.entries, items[i]);
			else
				json_decref(items[i]);
		free(items);
	}
	out->structured = json_pack("{s:s,s:o,s:b}", "path", path, "entries", l.entries,
				    "truncated", n > LIST_MAX);
	return out->structured ? 0 : err_set(err, EXIT_FAILED, "out of memory");
}

static bool is_text(const unsigned char *p, size_t n)
{
	json_t *j;

	if (memchr(p, 0, n))
		return false;
	j = json_stringn((const char *)p, n); /* NULL for invalid UTF-8 */
	json_decref(j);
	return j != NULL;
}

static int read_workspace_file(struct tool_ctx *t, json_t *args, struct tool_out *out,
			       struct err *err)
{
	const char *path = json_string_value(json_object_get(args, "path"));
	json_t *jo = json_object_get(args, "offset"), *jl = json_object_get(args, "length");
	size_t off = jo ? (size_t)json_integer_value(jo) : 0;
	size_t want = jl ? (size_t)json_integer_value(jl) : READ_DEFAULT;
	unsigned char *data = NULL;
	char *b64 = NULL;
	struct stat st;
	struct ws ws;
	ssize_t r;
	size_t got = 0, size;
	int top, fd;
	bool text;

	if (path_ok(path, false, err) < 0 || tool_ws(t, &ws, err) < 0)
		return -1;
	top = fsx_open_dir(ws.workspace);
	if (top < 0)
		return fs_fail(err, "open", "the workspace", top);
	fd = fsx_open_at(top, path, O_RDONLY, 0);
	close(top);
	if (fd < 0)
		return fs_fail(err, "read", path, fd);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, EXIT_USAGE, "read '%.200s': not a regular file", path);
	}
	size = (size_t)st.st_size;
	data = malloc(want ? want : 1);
	if (!data) {
		close(fd);
		return err_set(err, EXIT_FAILED, "out of memory");
	}
	while (got < want && (r = pread(fd, data + got, want - got, (off_t)(off + got))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int rc = -errno;

			free(data);
			close(fd);
			return fs_fail(err, "read", path, rc);
		}
		got += (size_t)r;
	}
	close(fd);
	text = is_text(data, got);
	if (!text) {
		const struct crypto_lib *c = crypto_lib_load(NULL);

		b64 = c ? malloc(4 * ((got + 2) / 3) + 1) : NULL;
		if (b64)
			c->EVP_EncodeBlock((unsigned char *)b64, data, (int)got);
	}
	out->structured =
	    json_pack("{s:s,s:I,s:I,s:I,s:b,s:s,s:s%}", "path", path, "size", (json_int_t)size,
		      "offset", (json_int_t)off, "length", (json_int_t)got, "eof",
		      off + got >= size, "encoding", text ? "utf-8" : "base64", "content",
		      text  ? (const char *)data
		      : b64 ? b64
			    : "",
		      text  ? got
		      : b64 ? strlen(b64)
			    : 0);
	if (out->structured && text) {
		out->text = strndup((const char *)data, got);
		if (out->text && off + got < size) {
			char *more = NULL;

			if (asprintf(&more,
				     "%s\n[%zu of %zu bytes from offset %zu; read on with "
				     "offset %zu]",
				     out->text, got, size, off, off + got) >= 0) {
				free(out->text);
				out->text = more;
			}
		}
	}
	free(data);
	free(b64);
	return out->structured ? 0 : err_set(err, EXIT_FAILED, "out of memory");
}

/* Open (making them) the folders of @path's parent beneath @top. Returns
 * the parent's fd and points *leaf at the last component, or -errno. */
static int parent_dir(int top, char *path, const char **leaf, uid_t uid, gid_t gid)
{
	char *p = path, *slash;
	int dir = dup(top), sub, rc;

	if (dir < 0)
		return -errno;
	while ((slash = strchr(p, '/'))) {
		*slash = '\0';
		if (*p && strcmp(p, ".")) {
			rc = fsx_mkdir_at(dir, p, 0755);
			if (!rc)
				fchownat(dir, p, uid, gid, AT_SYMLINK_NOFOLLOW);
			sub = rc ? rc : fsx_open_at(dir, p, O_RDONLY | O_DIRECTORY, 0);
			close(dir);
			if (sub < 0)
				return sub;
			dir = sub;
		}
		p = slash + 1;
	}
	*leaf = p;
	return dir;
}

static int write_workspace_file(struct tool_ctx *t, json_t *args, struct tool_out *out,
				struct err *err)
{
	const char *path = json_string_value(json_object_get(args, "path"));
	json_t *content = json_object_get(args, "content");
	const char *enc = json_string_value(json_object_get(args, "encoding")) ?: "utf-8";
	bool append = json_is_true(json_object_get(args, "append"));
	unsigned char *data = NULL;
	const char *leaf = NULL;
	char *copy;
	size_t len = json_string_length(content);
	struct stat st;
	struct ws ws;
	int top, dir, fd, rc;

	if (path_ok(path, false, err) < 0 || tool_ws(t, &ws, err) < 0)
		return -1;
	if (path[strlen(path) - 1] == '/')
		return err_set(err, EXIT_USAGE, "'%.200s' names a folder, not a file", path);
	if (!strcmp(enc, "base64")) {
		const struct crypto_lib *c = crypto_lib_load(NULL);
		int n;

		data = c ? malloc(len / 4 * 3 + 3) : NULL;
		n = data ? c->EVP_DecodeBlock(
			       data, (const unsigned char *)json_string_value(content), (int)len)
			 : -1;
		if (n < 0) {
			free(data);
			return err_set(err, EXIT_USAGE, "content is not valid base64");
		}
		/* EVP_DecodeBlock counts the padding as zero bytes. */
		while (len && json_string_value(content)[len - 1] == '=' && n > 0) {
			n--;
			len--;
		}
		len = (size_t)n;
	}
	if (len > WRITE_MAX) {
		free(data);
		return err_set(err, EXIT_USAGE, "content is larger than 4 MiB");
	}
	top = fsx_open_dir(ws.workspace);
	if (top < 0) {
		free(data);
		return fs_fail(err, "open", "the workspace", top);
	}
	copy = strdup(path);
	rc = copy && fstat(top, &st) == 0 ? 0 : -ENOMEM;
	dir = rc ? rc : parent_dir(top, copy, &leaf, st.st_uid, st.st_gid);
	close(top);
	if (dir < 0) {
		free(copy);
		free(data);
		return fs_fail(err, "write", path, dir);
	}
	if (append) {
		fd = fsx_open_at(dir, leaf, O_WRONLY | O_APPEND | O_CREAT, 0644);
		rc = fd < 0 ? fd
			    : fsx_write_all(
				  fd, data ? (const char *)data : json_string_value(content), len);
		if (fd >= 0)
			close(fd);
	} else {
		rc = fsx_write_atomic_at(
		    dir, leaf, data ? (const char *)data : json_string_value(content), len, 0644);
	}
	if (!rc)
		fchownat(dir, leaf, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW);
	close(dir);
	free(copy);
	free(data);
	if (rc)
		return fs_fail(err, "write", path, rc);
	out->structured =
	    json_pack("{s:s,s:I,s:b}", "path", path, "bytes", (json_int_t)len, "appended", append);
	return out->structured ? 0 : err_set(err, EXIT_FAILED, "out of memory");
}

#define PATH_PROP(what)                                                                            \
	"\"path\":{\"type\":\"string\",\"maxLength\":1024,\"description\":\"" what "\"}"

const struct serve_tool tools_files[] = {
    {
	.name = "list_workspace_files",
	.title = "List workspace files",
	.description =
	    "List files in your persistent workspace (the working directory of execute_code), "
	    "with type and size: what earlier runs saved, cut outputs (.outputs/), your data. "
	    "path is relative to the workspace (default: its top); recursive walks below it. At "
	    "most 1,000 entries (truncated says when there are more).",
	.input_schema = "{\"type\":\"object\",\"properties\":{" PATH_PROP(
	    "A folder, relative to the workspace.") ",\"recursive\":{\"type\":\"boolean\","
						    "\"default\":false}},"
						    "\"additionalProperties\":false}",
	.output_schema =
	    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	    "\"entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
	    "\"path\":{\"type\":\"string\"},\"type\":{\"type\":\"string\"},"
	    "\"size\":{\"type\":\"integer\"}},\"required\":[\"path\",\"type\",\"size\"]}},"
	    "\"truncated\":{\"type\":\"boolean\"}},"
	    "\"required\":[\"path\",\"entries\",\"truncated\"]}",
	.hints = TOOL_READ_ONLY | TOOL_IDEMPOTENT,
	.fn = list_workspace_files,
    },
    {
	.name = "read_workspace_file",
	.title = "Read a workspace file",
	.description =
	    "Read part of a file in your workspace: length bytes (default 65,536, at most "
	    "1 MiB) from offset (default 0). Text comes back as UTF-8, anything else as "
	    "base64; eof says whether the end was reached. Use it for a cut output "
	    "(.outputs/<run>.txt) or a file a run wrote; to process big files, prefer "
	    "execute_code.",
	.input_schema = "{\"type\":\"object\",\"properties\":{" PATH_PROP(
	    "The file, relative to the workspace.") ",\"offset\":{\"type\":\"integer\","
						    "\"minimum\":0},\"length\":{\"type\":"
						    "\"integer\",\"minimum\":1,\"maximum\":"
						    "1048576}},\"required\":[\"path\"],"
						    "\"additionalProperties\":false}",
	.output_schema =
	    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	    "\"size\":{\"type\":\"integer\"},\"offset\":{\"type\":\"integer\"},"
	    "\"length\":{\"type\":\"integer\"},\"eof\":{\"type\":\"boolean\"},"
	    "\"encoding\":{\"type\":\"string\",\"enum\":[\"utf-8\",\"base64\"]},"
	    "\"content\":{\"type\":\"string\"}},\"required\":[\"path\",\"size\",\"offset\","
	    "\"length\",\"eof\",\"encoding\",\"content\"]}",
	.hints = TOOL_READ_ONLY | TOOL_IDEMPOTENT,
	.fn = read_workspace_file,
    },
    {
	.name = "write_workspace_file",
	.title = "Write a workspace file",
	.description =
	    "Write a file in your workspace (folders on the way are made), replacing it "
	    "atomically, or appending with append: true. Use it to hand a run its input data "
	    "or configuration. At most 4 MiB; encoding utf-8 (default) or base64. Paths stay "
	    "inside the workspace: no absolute paths, no '..', no symlinks.",
	.input_schema = "{\"type\":\"object\",\"properties\":{" PATH_PROP(
	    "The file, relative to the workspace.") ",\"content\":{\"type\":\"string\","
						    "\"maxLength\":5592408},\"encoding\":{"
						    "\"type\":\"string\",\"enum\":[\"utf-8\","
						    "\"base64\"],\"default\":\"utf-8\"},"
						    "\"append\":{\"type\":\"boolean\","
						    "\"default\":false}},\"required\":[\"path\","
						    "\"content\"],\"additionalProperties\":false}",
	.output_schema = "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
			 "\"bytes\":{\"type\":\"integer\"},\"appended\":{\"type\":\"boolean\"}},"
			 "\"required\":[\"path\",\"bytes\",\"appended\"]}",
	.hints = TOOL_DESTRUCTIVE,
	.fn = write_workspace_file,
    },
    {0},
};
