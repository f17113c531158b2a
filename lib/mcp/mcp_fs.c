// SPDX-License-Identifier: GPL-2.0
/*
 * scx-mcp runs as root and takes file names from a language model, so every
 * file it opens must lie under a directory given on its command line.  The
 * kernel enforces that: openat2(RESOLVE_BENEATH) relative to the root's fd
 * refuses "..", absolute symlinks and magic links that would leave it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mcp/mcp_int.h"

int mcp_fs_init(struct mcp_server *s)
{
	const char *const *roots = s->o.roots;
	unsigned n = s->o.nr_roots;
	static const char *const cwd[] = { "." };

	if (!n) {
		roots = cwd;
		n = 1;
	}
	if (n > MCP_MAX_ROOTS)
		return -E2BIG;
	for (unsigned i = 0; i < n; i++) {
		char *rp = realpath(roots[i], NULL);
		int fd;

		if (!rp)
			return -errno;
		fd = open(rp, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			int e = -errno;

			free(rp);
			return e;
		}
		s->roots[s->nr_roots].path = rp;
		s->roots[s->nr_roots].fd = fd;
		s->nr_roots++;
	}
	return 0;
}

void mcp_fs_free(struct mcp_server *s)
{
	for (unsigned i = 0; i < s->nr_roots; i++) {
		free(s->roots[i].path);
		close(s->roots[i].fd);
	}
	s->nr_roots = 0;
}

/* Where the kernel says an fd points, checked to be under root. */
static bool fd_under(int fd, const char *root)
{
	char link[64], where[PATH_MAX];
	size_t n = strlen(root);
	ssize_t l;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	l = readlink(link, where, sizeof(where) - 1);
	if (l < 0)
		return false;
	where[l] = 0;
	if (!strcmp(root, "/"))
		return true;
	return !strncmp(where, root, n) && (where[n] == '/' || !where[n]);
}

static int open_beneath(const struct mcp_root *r, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? 0644 : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, r->fd, rel, &how, sizeof(how));

	if (fd >= 0)
		return fd;
	if (errno == EXDEV || errno == ELOOP)
		return -EACCES;
	if (errno != ENOSYS)
		return -errno;
	/* old kernel: open, then check where the fd landed */
	fd = openat(r->fd, rel, flags | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (!fd_under(fd, r->path)) {
		close(fd);
		return -EACCES;
	}
	return fd;
}

/*
 * A FIFO blocks open() and read() until a writer comes, and a device such as
 * /dev/zero never ends: either would stop the one thread that answers the
 * client.  O_NONBLOCK makes the open return at once, fstat() then keeps only
 * regular files.
 */
static int only_regular(int fd)
{
	struct stat st;

	if (fd == -ENXIO) /* O_WRONLY|O_NONBLOCK: a FIFO without a reader */
		return -MCP_FS_NOT_REGULAR;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -MCP_FS_NOT_REGULAR;
	}
	return fd;
}

const char *mcp_fs_strerror(int err)
{
	if (err == -MCP_FS_NOT_REGULAR)
		return "not a regular file (FIFOs, devices, sockets and directories are refused)";
	return strerror(-err);
}

int mcp_fs_open(struct mcp_server *s, const char *path, int flags, char *resolved)
{
	int fd = -EACCES;

	flags |= O_NONBLOCK;

	if (!path || !*path)
		return -EINVAL;
	if (path[0] != '/') {
		fd = open_beneath(&s->roots[0], path, flags);
		if (resolved)
			snprintf(resolved, PATH_MAX, "%s/%s", s->roots[0].path, path);
		return only_regular(fd);
	}
	for (unsigned i = 0; i < s->nr_roots; i++) {
		const struct mcp_root *r = &s->roots[i];
		size_t n = strlen(r->path);
		const char *rel;

		if (n == 1) /* root "/" */
			rel = path[1] ? path + 1 : ".";
		else if (!strncmp(path, r->path, n) && (path[n] == '/' || !path[n]))
			rel = path[n] ? path + n + 1 : ".";
		else
			continue;
		while (*rel == '/')
			rel++;
		fd = open_beneath(r, *rel ? rel : ".", flags);
		if (resolved)
			snprintf(resolved, PATH_MAX, "%s", path);
		if (fd >= 0 || fd != -EACCES)
			return only_regular(fd);
	}
	return fd;
}
