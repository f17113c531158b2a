/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between bpf/hints.bpf.c and lib/prof_hintrec.c. */
#ifndef SCX_PROF_HINTS_H
#define SCX_PROF_HINTS_H

enum prof_hint_src {
	PROF_HINT_SRC_SYSCALL = 1, /* bpf(BPF_MAP_UPDATE_ELEM) seen at the syscall tracepoint */
	PROF_HINT_SRC_KERNEL = 2,  /* bpf_map_update_value(), map already resolved */
};

/* One task's current hint, from the iter/task scan (sees BPF-side stores too). */
struct prof_hint_scan {
	__u64 hints;
	__u64 ts;
	__u32 pid, tgid;
};

/* One map update; the user-space side resolves fds through /proc. */
struct prof_hint_event {
	__u64 hints;	 /* first 8 bytes of the value */
	__u64 ts;	 /* bpf_ktime_get_ns() */
	__u32 pid, tgid; /* the updating thread */
	__s32 map_fd;	 /* in the updater's fd table */
	__s32 key;	 /* task storage key: a pidfd in the updater's fd table */
	__u32 src;
	__u32 pad;
};

#endif
