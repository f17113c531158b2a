/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroup v2 ids to paths, for the cgroup records scx-events writes (scx(7)).
 * The BPF side reads a task's id (the kernfs node id of its cgroup, what
 * bpf_get_current_cgroup_id() returns); this finds the path of an id below
 * the cgroup2 mount:
 *
 *	c = scx_cgroups__open(NULL, 0, 0);	// the cgroup2 mount, walked once
 *	path = scx_cgroups__path(c, id);	// "/system.slice/x.service"
 *
 * The walk gets each directory's id with name_to_handle_at() (the 8-byte
 * kernfs handle is the id), at most max_depth levels and max_entries
 * directories, so a machine with a million cgroups costs a bounded time and
 * memory.  An id the walk did not see (made after it, or past a bound) is
 * opened by its handle (open_by_handle_at, root only) and its path read back;
 * failing that, the tree is walked again, at most once a second.  An id
 * found by neither is remembered as unknown and not looked for again.
 */
#ifndef SCX_CGROUP_H
#define SCX_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#define SCX_CGROUP_DEPTH_MAX 32	      /* levels below the root the walk enters */
#define SCX_CGROUP_ENTRIES_MAX 100000 /* directories the walk maps */

struct scx_cgroups;

/*
 * Map the tree at root (NULL: the cgroup2 mount of /proc/self/mounts).
 * max_depth, max_entries 0: the defaults above.  NULL + errno: ENOENT when
 * there is no cgroup2 mount (a kernel or system without cgroup v2).
 */
struct scx_cgroups *scx_cgroups__open(const char *root, unsigned max_depth, unsigned max_entries);
void scx_cgroups__free(struct scx_cgroups *c);
/* The path of id, "/" for the root; NULL when it cannot be found. */
const char *scx_cgroups__path(struct scx_cgroups *c, uint64_t id);
/*
 * For a stream: the first time id is seen, append its cgroup record (scx(7))
 * to rec and return 1; 0 when it was announced before or has no path (then
 * counted in scx_cgroups__unnamed()).
 */
struct scx_buf;
int scx_cgroups__announce(struct scx_cgroups *c, uint64_t id, struct scx_buf *rec);
size_t scx_cgroups__unnamed(const struct scx_cgroups *c);
/* Directories mapped, and those the bounds left out (for messages). */
size_t scx_cgroups__nr(const struct scx_cgroups *c);
size_t scx_cgroups__skipped(const struct scx_cgroups *c);
/* The tree's root directory. */
const char *scx_cgroups__root(const struct scx_cgroups *c);

/* The id of directory name under dirfd: its kernfs handle, else its inode; 0 on error. */
uint64_t scx_cgroup_id_at(int dirfd, const char *name);
/* The mount point of the first cgroup2 file system in a mounts file; NULL if none. */
const char *scx_cgroup2_mount(const char *mounts, char *buf, size_t size);

#endif
