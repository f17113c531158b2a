// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for t/1107: when SCX_TEST_EXTRA_EMITTED is N, the "stats"
 * map of scx-events' programs says N more records were handed to the ring
 * on CPU 0 than were, as a record lost between the programs and user space
 * would.  The capture's stop has to find them and count them as lost.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "events.h"

int bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	static int (*real)(int, const void *, void *);
	const char *extra = getenv("SCX_TEST_EXTRA_EMITTED");
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	int err;

	if (!real)
		real = (int (*)(int, const void *, void *))dlsym(RTLD_NEXT, "bpf_map_lookup_elem");
	err = real(fd, key, value);
	if (err || !extra)
		return err;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || strcmp(info.name, "stats") ||
	    info.key_size != sizeof(__u32) || *(const __u32 *)key != EV_STAT_EMITTED)
		return err;
	((__u64 *)value)[0] += strtoull(extra, NULL, 10);
	return 0;
}
