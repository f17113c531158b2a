/* SPDX-License-Identifier: GPL-2.0 */
/* The sample record of bpf/profile.bpf.c, as lib/mcp/profile.c reads it from the ring buffer. */
#ifndef SCX_BPF_PROFILE_H
#define SCX_BPF_PROFILE_H

#define PROFILE_MAX_STACK 64 /* frames of each stack */

struct profile_sample {
	__u32 pid, tgid;
	__u32 cpu;
	__s32 kstack_bytes; /* bpf_get_stack() results: bytes or -errno */
	__s32 ustack_bytes;
	__u32 pad;
	char comm[16];
	__u64 kstack[PROFILE_MAX_STACK];
	__u64 ustack[PROFILE_MAX_STACK];
};

#endif
