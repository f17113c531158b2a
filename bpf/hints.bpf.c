// SPDX-License-Identifier: GPL-2.0
/*
 * Task-storage hint updates for scx-prof record.  Two optional attach points,
 * enabled by user space after probing:
 *  - fentry/bpf_map_update_value: the path every bpf(BPF_MAP_UPDATE_ELEM) from
 *    user space takes (the original hooked the bpf_map_update_elem *helper*,
 *    which user-space writes never reach), filtered by map id in the kernel;
 *  - tracepoint/syscalls/sys_enter_bpf: where fentry is refused (no BTF
 *    trampolines, lockdown); it cannot see the map, so user space filters by
 *    the map id in /proc/PID/fdinfo/FD.
 * Events go through a ring buffer; a full buffer counts a drop, never blocks.
 *
 * BPF programs change hints by storing through bpf_task_storage_get()'s
 * pointer, which no hook sees; the iter/task program reads every task's
 * current value from the pinned map (reused by fd) so user space can scan
 * for changes at a fixed cadence.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "hints.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_map_id;

__u64 dropped;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); /* resized by user space */
} events SEC(".maps");

static __always_inline void emit(__u64 hints, __s32 map_fd, __s32 key, __u32 src)
{
	struct prof_hint_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u64 id = bpf_get_current_pid_tgid();

	if (!e) {
		__sync_fetch_and_add(&dropped, 1);
		return;
	}
	e->hints = hints;
	e->ts = bpf_ktime_get_ns();
	e->pid = (__u32)id;
	e->tgid = id >> 32;
	e->map_fd = map_fd;
	e->key = key;
	e->src = src;
	e->pad = 0;
	bpf_ringbuf_submit(e, 0);
}

/* the pinned map itself: user space reuses its fd before loading */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} hint_map SEC(".maps");

SEC("?iter/task")
int scan_tasks(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct prof_hint_scan rec;
	__u64 *v;

	if (!t)
		return 0;
	v = bpf_task_storage_get(&hint_map, t, 0, 0);
	if (!v)
		return 0;
	rec.hints = *v;
	rec.ts = bpf_ktime_get_ns();
	rec.pid = BPF_CORE_READ(t, pid);
	rec.tgid = BPF_CORE_READ(t, tgid);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

/* test only: a BPF-side hint store, as a scheduler would make one */
__u64 test_hint_value;
__u32 test_hint_tgid;

SEC("?tp_btf/sys_enter")
int BPF_PROG(test_store_hint, struct pt_regs *regs, long id)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 *v;

	if (id != 110 /* getppid on x86_64 */ ||
	    (bpf_get_current_pid_tgid() >> 32) != test_hint_tgid)
		return 0;
	v = bpf_task_storage_get(&hint_map, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (v)
		*v = test_hint_value;
	return 0;
}

SEC("?fentry/bpf_map_update_value")
int BPF_PROG(on_update_value, struct bpf_map *map, struct file *map_file, void *key, void *value,
	     __u64 flags)
{
	__u64 hints = 0;
	__s32 k = -1;

	if (BPF_CORE_READ(map, id) != target_map_id)
		return 0;
	/* key and value are kernel copies of the user's buffers */
	bpf_probe_read_kernel(&k, sizeof(k), key);
	bpf_probe_read_kernel(&hints, sizeof(hints), value);
	emit(hints, -1, k, PROF_HINT_SRC_KERNEL);
	return 0;
}

SEC("?tracepoint/syscalls/sys_enter_bpf")
int on_sys_bpf(struct trace_event_raw_sys_enter *ctx)
{
	union bpf_attr *uattr = (union bpf_attr *)ctx->args[1];
	__u32 map_fd = 0;
	__u64 kptr = 0, vptr = 0, hints = 0;
	__s32 k = -1;

	if (ctx->args[0] != BPF_MAP_UPDATE_ELEM)
		return 0;
	if (bpf_probe_read_user(&map_fd, sizeof(map_fd), &uattr->map_fd) ||
	    bpf_probe_read_user(&kptr, sizeof(kptr), &uattr->key) ||
	    bpf_probe_read_user(&vptr, sizeof(vptr), &uattr->value))
		return 0;
	bpf_probe_read_user(&k, sizeof(k), (void *)kptr);
	bpf_probe_read_user(&hints, sizeof(hints), (void *)vptr);
	emit(hints, (__s32)map_fd, k, PROF_HINT_SRC_SYSCALL);
	return 0;
}
