/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records written by bpf/events.bpf.c into its ring buffer, shared with
 * lib/capture.c.  A ring-buffer sample holds one or more records back to back
 * (several when per-CPU staging is on); each starts with struct ev_hdr whose
 * 'size' (a multiple of 8) gives the distance to the next one.  Records are
 * kept small on purpose: every byte is paid for at ~2M events/s.
 */
#ifndef SCX_BPF_EVENTS_H
#define SCX_BPF_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define EV_COMM_LEN 16
#define EV_PATH_LEN 128
#define EV_NAME_LEN 32
#define EV_MSG_LEN 72	   /* sched_ext exit message, truncated */
#define EV_MAX_CPUS 16384  /* --cpus bitmap; SCX_MAX_CPUS of lib/core/event.h */
#define EV_STAGE_SIZE 4096 /* per-CPU staging buffer, a power of two */
#define EV_MAX_REC 256	   /* no record is larger */

/* Record kinds (ev_hdr.type); not the wire kinds of lib/event.h. */
enum ev_kind {
	EVK_SWITCH = 1,
	EVK_SWITCH_SCX, /* switch + sched_ext data */
	EVK_WAKING,
	EVK_WAKEUP,
	EVK_WAKEUP_NEW,
	EVK_MIGRATE,
	EVK_FORK,
	EVK_EXEC,
	EVK_EXIT,
	EVK_FREE,
	EVK_SOFTIRQ_ENTRY, /* hdr.aux = vec */
	EVK_SOFTIRQ_EXIT,
	EVK_IPI_SEND,
	EVK_IPI_ENTRY,
	EVK_IPI_EXIT,
	EVK_FREQ,
	EVK_IDLE,
	EVK_CPUHP_ENTER,
	EVK_CPUHP_EXIT,
	EVK_SCX_ENABLE,
	EVK_SCX_DISABLE,
	EVK_DSQ_INSERT,
	EVK_SCX_DUMP, /* one line of a sched_ext debug dump */
	EVK__COUNT
};

/* Event selection bits (rodata 'ev_mask'); -e names are in lib/capture.c. */
enum ev_sel {
	EVS_SWITCH = 1u << 0,
	EVS_WAKING = 1u << 1,
	EVS_WAKEUP = 1u << 2,
	EVS_WAKEUP_NEW = 1u << 3,
	EVS_MIGRATE = 1u << 4,
	EVS_FORK = 1u << 5,
	EVS_EXEC = 1u << 6,
	EVS_EXIT = 1u << 7,
	EVS_FREE = 1u << 8,
	EVS_SOFTIRQ = 1u << 9,
	EVS_IPI = 1u << 10,
	EVS_FREQ = 1u << 11,
	EVS_IDLE = 1u << 12,
	EVS_CPUHP = 1u << 13,
	EVS_SCX = 1u << 14, /* scx_enable/disable, dsq_insert, DSQ data on switches */
};

struct ev_hdr {
	__u64 ts;   /* bpf_ktime_get_boot_ns() */
	__u16 type; /* enum ev_kind */
	__u16 size; /* bytes of this record, header included */
	__u16 cpu;
	__u16 aux; /* switch: prev_state; softirq: vec */
};

struct ev_switch {
	struct ev_hdr h;
	__s32 prev_pid, prev_tgid, next_pid, next_tgid;
	__s16 prev_prio, next_prio;
	__u32 _pad;
	char prev_comm[EV_COMM_LEN];
	char next_comm[EV_COMM_LEN];
	__u64 prev_cgroup, next_cgroup; /* cgroup v2 ids, 0 unknown (idle, or cgroup_on off) */
};

struct ev_switch_scx {
	struct ev_switch sw;
	__u64 dsq_id;
	__u64 dsq_lat_ns;
	__u64 dsq_vtime;
	__u64 slice_ns;
	__u64 prev_slice_used_ns;
	__u32 dsq_depth;
	__u32 _pad;
};

struct ev_wakeup {
	struct ev_hdr h;
	__s32 pid, tgid, prio, target_cpu;
	__s32 waker_pid, waker_tgid;
	char comm[EV_COMM_LEN];
	__u64 cgroup;
};

struct ev_migrate {
	struct ev_hdr h;
	__s32 pid, tgid, prio, orig_cpu, dest_cpu;
	__s32 _pad;
	char comm[EV_COMM_LEN];
};

struct ev_fork {
	struct ev_hdr h;
	__s32 parent_pid, parent_tgid, child_pid, child_tgid;
	char parent_comm[EV_COMM_LEN];
	char child_comm[EV_COMM_LEN];
};

struct ev_exec {
	struct ev_hdr h;
	__s32 pid, tgid, old_pid;
	__s32 _pad;
	char comm[EV_COMM_LEN];
	char filename[EV_PATH_LEN];
};

/* exit and free */
struct ev_task {
	struct ev_hdr h;
	__s32 pid, tgid, prio;
	__s32 _pad;
	char comm[EV_COMM_LEN];
};

struct ev_ipi {
	struct ev_hdr h;
	__s32 target_cpu;
	__s32 _pad;
	__u64 callsite;
};

/* cpu_frequency, cpu_idle */
struct ev_cpuval {
	struct ev_hdr h;
	__u32 cpu_id;
	__u32 val; /* kHz or idle state */
};

struct ev_cpuhp {
	struct ev_hdr h;
	__u32 cpu_id;
	__s32 target, idx, ret;
};

/* scx_enable, scx_disable; the exit fields are for scx_disable only */
struct ev_scx_ops {
	struct ev_hdr h;
	char name[EV_NAME_LEN];
	__s32 exit_kind; /* the kernel's enum scx_exit_kind, 0 if unknown */
	__u32 _pad;
	__s64 exit_code;
	char msg[EV_MSG_LEN];
};

/* a task moved to a DSQ (scx_bpf_dsq_move*, 6.12's scx_bpf_dispatch_from_dsq*) */
struct ev_dsq_insert {
	struct ev_hdr h;
	__s32 pid, tgid;
	__u64 dsq_id;
	__u64 vtime;
	__u64 slice_ns;
	__u32 depth;
	__u32 _pad;
	char comm[EV_COMM_LEN];
	__u64 from_dsq_id;
};

/* sched_ext_dump: the kernel's line (at most 1023 bytes) cut to fit EV_MAX_REC */
#define EV_DUMP_LINE_LEN 232
struct ev_scx_dump {
	struct ev_hdr h;
	char line[EV_DUMP_LINE_LEN];
};

/* The per-CPU staging buffer (map 'stage'); user space drains it at stop. */
struct ev_stage {
	__u32 len;  /* bytes used in buf */
	__u32 nr;   /* records in buf */
	__u32 busy; /* an append is in progress (nesting guard) */
	__u32 _pad;
	__u64 first_ts; /* ts of the oldest staged record */
	__u8 buf[EV_STAGE_SIZE];
};

/* Per-CPU counters (map 'stats') */
enum ev_stat {
	EV_STAT_LOST = 0, /* records lost: ring buffer full */
	EV_STAT_EMITTED,  /* records handed to the ring buffer */
	EV_STAT_NESTED,	  /* records that bypassed staging (nesting) */
	EV_STAT__COUNT
};

/*
 * prev_state as the sched_switch tracepoint reports it (the kernel's
 * __trace_sched_switch_state): TASK_REPORT_MAX (0x100, "R+") when preempted,
 * else the highest TASK_REPORT bit of state|exit_state, with TASK_IDLE
 * reported as TASK_REPORT_IDLE and an rtlock waiter as uninterruptible.
 * Shared by the BPF program and the unit test that checks it.
 */
#define EV_TASK_REPORT 0x7f
#define EV_TASK_IDLE 0x402 /* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define EV_TASK_RTLOCK_WAIT 0x1000
#define EV_TASK_REPORT_IDLE 0x80
#define EV_TASK_REPORT_MAX 0x100

static inline __u16 ev_report_state(int preempt, unsigned int state, unsigned int exit_state)
{
	unsigned int s;
	int i;

	if (preempt)
		return EV_TASK_REPORT_MAX;
	s = (state | exit_state) & EV_TASK_REPORT;
	if ((state & EV_TASK_IDLE) == EV_TASK_IDLE)
		s = EV_TASK_REPORT_IDLE;
	if (state & EV_TASK_RTLOCK_WAIT)
		s = 2;
	/* 1 << (fls(s) - 1): keep the highest bit */
	for (i = 7; i >= 0; i--)
		if (s & (1u << i))
			return 1u << i;
	return 0;
}

#endif
