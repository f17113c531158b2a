// SPDX-License-Identifier: GPL-2.0
/*
 * CPU profiling for scx-mcp (lib/mcp/profile.c): attached to one perf event per
 * CPU; each sample records who ran and its kernel and user stacks into a
 * ring buffer.  Samples that find the ring full are counted, not lost
 * silently.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "profile.h"

const volatile __u32 filter_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} samples SEC(".maps");

__u64 dropped = 0;

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	struct profile_sample *s;

	if (filter_tgid && tgid != filter_tgid)
		return 0;
	s = bpf_ringbuf_reserve(&samples, sizeof(*s), 0);
	if (!s) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	s->pid = (__u32)id;
	s->tgid = tgid;
	s->cpu = bpf_get_smp_processor_id();
	s->pad = 0;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	s->kstack_bytes = bpf_get_stack(ctx, s->kstack, sizeof(s->kstack), 0);
	s->ustack_bytes =
		tgid ? bpf_get_stack(ctx, s->ustack, sizeof(s->ustack), BPF_F_USER_STACK) : 0;
	bpf_ringbuf_submit(s, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
