// SPDX-License-Identifier: GPL-2.0
/* Cgroup v2 ids to paths (see cgroup.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/cgroup.h"
#include "core/hashmap.h"
#include "core/util.h"
#include "stream/stream.h"

#define FILEID_KERNFS 0xfe /* include/linux/exportfs.h: a kernfs node id */
#define RESCAN_NS 1000000000ull

struct scx_cgroups {
	char root[SCX_CGROUP_PATH_MAX];
	size_t root_len;
	int root_fd;
	unsigned max_depth, max_entries;
	struct scx_map paths; /* id -> char * (NULL: looked for, not found) */
	struct scx_map told;  /* ids announced (or found unnamed) -> nothing */
	size_t nr, skipped, unnamed;
	uint64_t scanned_ns;
};

uint64_t scx_cgroup_id_at(int dirfd, const char *name)
{
	struct {
		struct file_handle h;
		unsigned char b[64];
	} fh;
	struct stat st;
	int mnt;

	fh.h.handle_bytes = sizeof(fh.b);
	if (!name_to_handle_at(dirfd, name, &fh.h, &mnt, 0) && fh.h.handle_type == FILEID_KERNFS &&
	    fh.h.handle_bytes == 8) {
		uint64_t id;

		memcpy(&id, fh.h.f_handle, 8);
		return id;
	}
	/* not kernfs (a test tree): the inode, which is the id on 64-bit kernfs too */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	return st.st_ino;
}

const char *scx_cgroup2_mount(const char *mounts, char *buf, size_t size)
{
	FILE *f = fopen(mounts, "re");
	char line[4096];
	const char *found = NULL;

	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		char dev[256], dir[2048], type[64];

		if (sscanf(line, "%255s %2047s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2") && strlen(dir) < size) {
			/* mounts escapes spaces as \040: such a mount point is not supported */
			if (strchr(dir, '\\'))
				continue;
			strcpy(buf, dir);
			found = buf;
		}
	}
	fclose(f);
	return found;
}

static void put_path(struct scx_cgroups *c, uint64_t id, const char *path)
{
	bool added;
	char **slot = scx_map_put(&c->paths, id, &added);

	if (!added && *slot)
		return;
	*slot = path ? scx_xstrdup(path) : NULL;
	if (path)
		c->nr++;
}

/* Walk dirfd (path rel, "" for the root) depth levels down; dirfd is consumed. */
static void walk(struct scx_cgroups *c, int dirfd, char *rel, size_t len, unsigned depth)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;

	if (!d) {
		close(dirfd);
		return;
	}
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		uint64_t id;
		int fd;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (depth >= c->max_depth || c->nr >= c->max_entries ||
		    len + 1 + nl >= SCX_CGROUP_PATH_MAX) {
			c->skipped++;
			continue;
		}
		if (!(id = scx_cgroup_id_at(dirfd, de->d_name)))
			continue; /* gone since readdir */
		rel[len] = '/';
		memcpy(rel + len + 1, de->d_name, nl + 1);
		put_path(c, id, rel);
		fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0)
			walk(c, fd, rel, len + 1 + nl, depth + 1);
		rel[len] = 0;
	}
	closedir(d);
}

static void scan(struct scx_cgroups *c)
{
	char rel[SCX_CGROUP_PATH_MAX] = "";
	int fd = openat(c->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint64_t id = scx_cgroup_id_at(c->root_fd, ".");

	c->skipped = 0;
	c->scanned_ns = scx_now_mono_ns();
	if (id)
		put_path(c, id, "/");
	if (fd >= 0)
		walk(c, fd, rel, 0, 0);
}

struct scx_cgroups *scx_cgroups__open(const char *root, unsigned max_depth, unsigned max_entries)
{
	struct scx_cgroups *c;
	char buf[SCX_CGROUP_PATH_MAX];

	if (!root && !(root = scx_cgroup2_mount("/proc/self/mounts", buf, sizeof(buf)))) {
		errno = ENOENT;
		return NULL;
	}
	if (strlen(root) >= sizeof(c->root)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	c = scx_xcalloc(1, sizeof(*c));
	strcpy(c->root, root);
	c->root_len = strlen(root);
	while (c->root_len > 1 && c->root[c->root_len - 1] == '/')
		c->root[--c->root_len] = 0;
	c->max_depth = max_depth ? max_depth : SCX_CGROUP_DEPTH_MAX;
	c->max_entries = max_entries ? max_entries : SCX_CGROUP_ENTRIES_MAX;
	scx_map_init(&c->paths, sizeof(char *));
	scx_map_init(&c->told, 1);
	c->root_fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->root_fd < 0) {
		int e = errno;

		scx_cgroups__free(c);
		errno = e;
		return NULL;
	}
	scan(c);
	return c;
}

/* The path of a kernfs id through its handle; needs CAP_DAC_READ_SEARCH. */
static bool path_by_handle(struct scx_cgroups *c, uint64_t id, char *out, size_t size)
{
	struct {
		struct file_handle h;
		unsigned char b[8];
	} fh;
	char link[64], buf[SCX_CGROUP_PATH_MAX];
	ssize_t n;
	int fd;

	fh.h.handle_bytes = 8;
	fh.h.handle_type = FILEID_KERNFS;
	memcpy(fh.h.f_handle, &id, 8);
	fd = open_by_handle_at(c->root_fd, &fh.h, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || (size_t)n < c->root_len || memcmp(buf, c->root, c->root_len) ||
	    (n > (ssize_t)c->root_len && buf[c->root_len] != '/' && c->root_len > 1))
		return false;
	buf[n] = 0;
	snprintf(out, size, "%s",
		 n == (ssize_t)c->root_len ? "/" : buf + (c->root_len > 1 ? c->root_len : 0));
	return true;
}

const char *scx_cgroups__path(struct scx_cgroups *c, uint64_t id)
{
	char **slot = scx_map_get(&c->paths, id), buf[SCX_CGROUP_PATH_MAX];

	if (slot)
		return *slot;
	if (id == SCX_CGROUP_NONE)
		return NULL;
	if (path_by_handle(c, id, buf, sizeof(buf)))
		put_path(c, id, buf);
	else if (scx_now_mono_ns() - c->scanned_ns >= RESCAN_NS)
		scan(c);
	/* not found: gone already, or past the bounds; not looked for again */
	if (!scx_map_get(&c->paths, id))
		put_path(c, id, NULL);
	return *(char **)scx_map_get(&c->paths, id);
}

int scx_cgroups__announce(struct scx_cgroups *c, uint64_t id, struct scx_buf *rec)
{
	const char *path;
	bool added;

	if (id == SCX_CGROUP_NONE || scx_map_get(&c->told, id))
		return 0;
	scx_map_put(&c->told, id, &added);
	if (!(path = scx_cgroups__path(c, id))) {
		c->unnamed++;
		return 0;
	}
	scx_cgroup_rec_json(rec, id, path);
	return 1;
}

size_t scx_cgroups__unnamed(const struct scx_cgroups *c)
{
	return c->unnamed;
}

size_t scx_cgroups__nr(const struct scx_cgroups *c)
{
	return c->nr;
}

size_t scx_cgroups__skipped(const struct scx_cgroups *c)
{
	return c->skipped;
}

const char *scx_cgroups__root(const struct scx_cgroups *c)
{
	return c->root;
}

void scx_cgroups__free(struct scx_cgroups *c)
{
	size_t pos = 0;
	char **p;

	if (!c)
		return;
	while ((p = scx_map_next(&c->paths, &pos, NULL)))
		free(*p);
	scx_map_free(&c->paths);
	scx_map_free(&c->told);
	if (c->root_fd >= 0)
		close(c->root_fd);
	free(c);
}
