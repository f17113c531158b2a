// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup ids to paths (lib/capture/cgroup.c) on a fake tree in a temporary
 * directory: every directory is mapped to its path below the root with the
 * id a kernfs handle would give (on a file system without kernfs handles,
 * its inode), "/" is the root, the depth and entry bounds hold and are
 * counted, and each id is announced once as a cgroup record.  The cgroup2
 * mount point is found in a mounts file.  On a real cgroup2 mount the
 * handle's id is checked against the inode, which the kernel makes equal
 * on 64-bit machines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/cgroup.h"
#include "core/util.h"
#include "json/json.h"
#include "stream/stream.h"
#include "tap.h"

static char base[] = "/tmp/scx-cgroup.XXXXXX";

static void dir(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", base, rel);
	if (mkdir(p, 0755)) {
		perror(p);
		exit(1);
	}
}

static uint64_t ino(const char *rel)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", base, rel);
	return stat(p, &st) ? 0 : st.st_ino;
}

static void rm_tree(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", base);
}

static const char *const tree[] = {
	"/a",	"/a/x", "/a/x/deep", "/a/x/deep/deeper",
	"/a/y", "/b",	"/b/z",	     "/odd name\\with\"quote",
};

static void walk_maps_every_directory(void)
{
	struct scx_cgroups *c = scx_cgroups__open(base, 0, 0);

	ok(c != NULL, "open a fake tree");
	if (!c)
		return;
	is_int(scx_cgroups__nr(c), SCX_ARRAY_SIZE(tree) + 1, "every directory and the root mapped");
	is_str(scx_cgroups__path(c, ino("")), "/", "the root is /");
	for (size_t i = 0; i < SCX_ARRAY_SIZE(tree); i++)
		is_str(scx_cgroups__path(c, ino(tree[i])), tree[i], "%s by its id", tree[i]);
	ok(scx_cgroups__path(c, 0) == NULL, "id 0 is no cgroup");
	ok(scx_cgroups__path(c, 0x7fffffff12345ull) == NULL, "an id not in the tree has no path");
	is_int(scx_cgroups__skipped(c), 0, "nothing skipped within the default bounds");
	scx_cgroups__free(c);
}

static void bounds(void)
{
	struct scx_cgroups *c = scx_cgroups__open(base, 2, 0);

	is_int(scx_cgroups__nr(c), 7, "depth 2: the root and six directories");
	ok(scx_cgroups__path(c, ino("/a/x/deep")) == NULL, "/a/x/deep is past depth 2");
	is_int(scx_cgroups__skipped(c), 1, "... and counted as skipped");
	scx_cgroups__free(c);
	c = scx_cgroups__open(base, 0, 3);
	is_int(scx_cgroups__nr(c), 3, "at most 3 directories, the root one of them");
	ok(scx_cgroups__skipped(c) > 0, "the rest counted as skipped");
	scx_cgroups__free(c);
}

static void announce_once(void)
{
	struct scx_cgroups *c = scx_cgroups__open(base, 0, 0);
	struct scx_buf b = { 0 };
	struct scx_json_doc d = { 0 };
	char path[256], err[128];
	uint64_t id;

	ok(scx_cgroups__announce(c, ino(tree[7]), &b) == 1, "first sight of an id: a record");
	ok(!scx_json_parse(&d, b.data, b.len) &&
		   scx_cgroup_rec_parse(&d, &id, path, sizeof(path), err, sizeof(err)) == 1 &&
		   id == ino(tree[7]) && !strcmp(path, tree[7]),
	   "the record reads back: %.*s", (int)b.len, b.data);
	b.len = 0;
	ok(scx_cgroups__announce(c, ino(tree[7]), &b) == 0 && !b.len, "second sight: nothing");
	ok(scx_cgroups__announce(c, 0, &b) == 0 && !b.len, "unknown id: nothing");
	ok(scx_cgroups__announce(c, 0x7fffffff12345ull, &b) == 0 && !b.len &&
		   scx_cgroups__unnamed(c) == 1,
	   "an id without a path: no record, counted");
	scx_json_free(&d);
	scx_buf_free(&b);
	scx_cgroups__free(c);
}

static void mounts(void)
{
	struct scx_cgroups *c;
	char mf[600], buf[256];
	FILE *f;

	snprintf(mf, sizeof(mf), "%s/mounts", base);
	f = fopen(mf, "w");
	fputs("sysfs /sys sysfs rw 0 0\n"
	      "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
	      "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nsdelegate 0 0\n",
	      f);
	fclose(f);
	is_str(scx_cgroup2_mount(mf, buf, sizeof(buf)), "/sys/fs/cgroup/unified",
	       "the cgroup2 mount point, not a v1 hierarchy");
	f = fopen(mf, "w");
	fputs("cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n", f);
	fclose(f);
	ok(scx_cgroup2_mount(mf, buf, sizeof(buf)) == NULL, "v1 only: no cgroup2 mount");
	errno = 0;
	c = scx_cgroups__open(NULL, 0, 0);
	ok(c != NULL || errno == ENOENT, "this system: a cgroup2 tree, or ENOENT without one");
	scx_cgroups__free(c);
	unlink(mf);
}

/* On a real cgroup2 mount: the kernfs handle id is the inode (64-bit kernfs). */
static void real_mount(void)
{
	char m[256];
	uint64_t id;
	struct stat st;

	if (!scx_cgroup2_mount("/proc/self/mounts", m, sizeof(m)) || stat(m, &st)) {
		ok(1, "# SKIP no cgroup2 mount here");
		return;
	}
	id = scx_cgroup_id_at(AT_FDCWD, m);
	ok(id == st.st_ino && (sizeof(long) < 8 || id == 1),
	   "cgroup2 root %s: handle id %llu, inode %llu", m, (unsigned long long)id,
	   (unsigned long long)st.st_ino);
}

int main(void)
{
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	for (size_t i = 0; i < SCX_ARRAY_SIZE(tree); i++)
		dir(tree[i]);
	walk_maps_every_directory();
	bounds();
	announce_once();
	mounts();
	real_mount();
	rm_tree();
	return done_testing();
}
