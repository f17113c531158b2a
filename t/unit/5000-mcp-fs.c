// SPDX-License-Identifier: GPL-2.0
/*
 * scx-mcp's file sandbox (lib/mcp/mcp_fs.c) and trace ids: what may be opened
 * under a root, and the ways out that must fail (.., absolute paths,
 * symlinks to and through the outside).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp/mcp_int.h"
#include "tap.h"

static char base[] = "/tmp/scx-mcp-fs.XXXXXX";
static char root[PATH_MAX], outside[PATH_MAX];

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs("x\n", f);
		fclose(f);
	}
}

static int try_open(struct mcp_server *s, const char *path, int flags)
{
	char resolved[PATH_MAX];
	int fd = mcp_fs_open(s, path, flags, resolved);

	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : fd;
}

int main(void)
{
	const char *roots[1];
	struct mcp_opts o = { 0 };
	struct mcp_server *s;
	char p[PATH_MAX + 64];

	if (!mkdtemp(base))
		return 1;
	snprintf(root, sizeof(root), "%s/root", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	mkdir(root, 0755);
	mkdir(outside, 0755);
	snprintf(p, sizeof(p), "%s/a.pb", root);
	touch(p);
	snprintf(p, sizeof(p), "%s/sub", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sub/b.pb", root);
	touch(p);
	snprintf(p, sizeof(p), "%s/secret", outside);
	touch(p);
	snprintf(p, sizeof(p), "%s/to-outside", root);
	symlink(outside, p);
	snprintf(p, sizeof(p), "%s/to-b", root);
	symlink("sub/b.pb", p);
	snprintf(p, sizeof(p), "%s/abs-b", root);
	{
		char t[PATH_MAX + 16];

		snprintf(t, sizeof(t), "%s/sub/b.pb", root);
		symlink(t, p); /* absolute, pointing inside: still refused by RESOLVE_BENEATH */
	}

	roots[0] = root;
	o.roots = roots;
	o.nr_roots = 1;
	s = mcp_server__new(&o);
	ok(s != NULL, "server with a root");

	is_int(try_open(s, "a.pb", O_RDONLY), 0, "relative file under the root");
	is_int(try_open(s, "sub/b.pb", O_RDONLY), 0, "file in a subdirectory");
	is_int(try_open(s, "sub/../a.pb", O_RDONLY), 0, ".. that stays inside");
	snprintf(p, sizeof(p), "%s/a.pb", root);
	is_int(try_open(s, p, O_RDONLY), 0, "absolute path under the root");
	is_int(try_open(s, "to-b", O_RDONLY), 0, "relative symlink inside the root");
	is_int(try_open(s, "../outside/secret", O_RDONLY), -EACCES, ".. out of the root");
	snprintf(p, sizeof(p), "%s/secret", outside);
	is_int(try_open(s, p, O_RDONLY), -EACCES, "absolute path outside");
	is_int(try_open(s, "to-outside/secret", O_RDONLY), -EACCES, "through a symlink to outside");
	is_int(try_open(s, "/etc/passwd", O_RDONLY), -EACCES, "/etc/passwd");
	snprintf(p, sizeof(p), "%s/../outside/secret", root);
	is_int(try_open(s, p, O_RDONLY), -EACCES, "absolute path with .. out of the root");
	is_int(try_open(s, "abs-b", O_RDONLY), -EACCES, "absolute symlink (even to inside)");
	is_int(try_open(s, "missing.pb", O_RDONLY), -ENOENT, "missing file under the root");
	is_int(try_open(s, "to-outside/new.json", O_WRONLY | O_CREAT | O_TRUNC), -EACCES,
	       "create through a symlink to outside");
	snprintf(p, sizeof(p), "%s/new.json", outside);
	ok(access(p, F_OK) != 0, "nothing was created outside");
	is_int(try_open(s, "sub/new.json", O_WRONLY | O_CREAT | O_TRUNC), 0,
	       "create under the root");
	is_int(try_open(s, "", O_RDONLY), -EINVAL, "empty path");
	mcp_server__free(s);

	o.nr_roots = 0;
	o.roots = NULL;
	roots[0] = "/nonexistent/dir";
	o.roots = roots;
	o.nr_roots = 1;
	ok(mcp_server__new(&o) == NULL && errno == ENOENT, "a missing root is an error");

	ok(mcp_trace_id_ok("wprof-schedview"), "plain id");
	ok(mcp_trace_id_ok("run_1.v2"), "id with dot and underscore");
	ok(!mcp_trace_id_ok(""), "empty id");
	ok(!mcp_trace_id_ok("../x"), "id with ..");
	ok(!mcp_trace_id_ok("a/b"), "id with a slash");
	ok(!mcp_trace_id_ok(".hidden"), "id starting with a dot");
	ok(!mcp_trace_id_ok("x y"), "id with a space");
	ok(!mcp_trace_id_ok("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
	   "65 characters");

	snprintf(p, sizeof(p), "rm -rf '%s'", base);
	ok(system(p) == 0, "clean up");
	return done_testing();
}
