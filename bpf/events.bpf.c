// SPDX-License-Identifier: GPL-2.0
/*
 * scx-events: scheduler tracepoints into one BPF ring buffer.
 *
 * Cost is the point of this file (see bench/results/events.md).  Three things
 * keep it low:
 *  - filters and 1-in-N sampling run first, from read-only globals, so the
 *    verifier drops every branch of a filter that is off;
 *  - records go to a per-CPU staging buffer and reach the ring buffer a few
 *    KiB at a time: one reservation, one consumer_pos cache miss and one
 *    header per chunk instead of per event;
 *  - the consumer is not woken per chunk (BPF_RB_NO_WAKEUP): it polls on a
 *    timer, and is woken only when the backlog crosses a multiple of
 *    'wakeup_bytes' (edge-triggered, so a starved consumer does not turn into
 *    a storm of wakeups).
 * Staged records are flushed when the buffer is full, when the CPU goes idle,
 * and when the oldest is 'flush_ns' old; user space drains what is left from
 * the 'stage' map after detaching.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "events.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by lib/capture.c before load. */
const volatile __u32 stage_on = 1;	  /* stage records per CPU */
const volatile __u64 flush_ns = 50000000; /* oldest staged record's max age */
const volatile __u64 wakeup_bytes = 256 * 1024;
const volatile __u32 sample_n = 0; /* keep 1 in N, 0/1: all */
const volatile __s32 filter_pid = 0;
const volatile __s32 filter_tgid = 0;
const volatile __u32 filter_comm_on = 0;
const volatile __u64 filter_comm[2] = {};
const volatile __u32 filter_cpus_on = 0;
const volatile __u64 filter_cpus[EV_MAX_CPUS / 64] = {};
const volatile __u32 cgroup_on = 0;    /* cgroup v2 is mounted: read tasks' cgroup ids */
const volatile __u32 sw_state_arg = 1; /* sched_switch has the prev_state argument */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ev_stage);
} stage SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EV_STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_add(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += n;
}

/* Wake the consumer only when the backlog crosses a multiple of wakeup_bytes. */
static __always_inline __u64 wake_flags(__u64 size)
{
	__u64 avail = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA);

	if ((avail + size) / wakeup_bytes != avail / wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* Staged bytes stay below EV_STAGE_SIZE, so the mask below is exact; it is
 * there for the verifier, which loses a plain bounds check in some builds. */
#define STAGE_CAP (EV_STAGE_SIZE - 8)

static __always_inline void stage_flush(struct ev_stage *st)
{
	__u32 len = st->len & (EV_STAGE_SIZE - 1);

	if (len == 0)
		goto out;
	if (bpf_ringbuf_output(&rb, st->buf, len, wake_flags(len)))
		stat_add(EV_STAT_LOST, st->nr);
	else
		stat_add(EV_STAT_EMITTED, st->nr);
out:
	st->len = 0;
	st->nr = 0;
}

/*
 * Hand one record to the ring buffer.  'size' is a compile-time constant at
 * every call site (this is inlined), which is what lets the verifier accept
 * the copy at a variable offset of the staging buffer.
 */
static __always_inline void emit(void *rec, __u32 size, bool idle)
{
	struct ev_hdr *h = rec;
	struct ev_stage *st;
	__u32 zero = 0, off;

	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	if (!stage_on)
		goto direct;
	st = bpf_map_lookup_elem(&stage, &zero);
	/* an interrupt arrived while this CPU was appending: go around the stage */
	if (!st || st->busy)
		goto nested;
	st->busy = 1;
	if (st->len + size > STAGE_CAP)
		stage_flush(st);
	off = st->len;
	if (off > STAGE_CAP - size) { /* cannot happen after the flush */
		stat_add(EV_STAT_LOST, 1);
		st->busy = 0;
		return;
	}
	if (off == 0)
		st->first_ts = h->ts;
	__builtin_memcpy(st->buf + off, rec, size);
	st->len = off + size;
	st->nr++;
	if (idle || h->ts - st->first_ts >= flush_ns)
		stage_flush(st);
	st->busy = 0;
	return;
nested:
	stat_add(EV_STAT_NESTED, 1);
direct:
	if (bpf_ringbuf_output(&rb, rec, size, wake_flags(size)))
		stat_add(EV_STAT_LOST, 1);
	else
		stat_add(EV_STAT_EMITTED, 1);
}

/*
 * The hot events (switch, wakeups) are built in place in the staging buffer,
 * saving the copy from the stack: rec_begin() returns where to build a record
 * of 'size' bytes (the stage, or 'tmp' on the stack when staging is off or
 * this CPU is already appending), rec_end() finishes it.  Every byte of such
 * a record must be written: the stage holds older records' bytes.
 */
static __always_inline void *rec_begin(struct ev_stage **stp, void *tmp, __u32 size)
{
	struct ev_stage *st;
	__u32 zero = 0, off;

	*stp = NULL;
	if (!stage_on)
		return tmp;
	st = bpf_map_lookup_elem(&stage, &zero);
	if (!st || st->busy)
		return tmp;
	st->busy = 1;
	if (st->len + size > STAGE_CAP)
		stage_flush(st);
	off = st->len;
	if (off > STAGE_CAP - size) {
		st->busy = 0;
		return tmp;
	}
	*stp = st;
	return st->buf + off;
}

static __always_inline void rec_end(struct ev_stage *st, void *rec, __u32 size, bool idle)
{
	struct ev_hdr *h = rec;

	if (!st) {
		emit(rec, size, idle);
		return;
	}
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	if (st->len == 0)
		st->first_ts = h->ts;
	st->len += size;
	st->nr++;
	if (idle || h->ts - st->first_ts >= flush_ns)
		stage_flush(st);
	st->busy = 0;
}

/*
 * A switch a filter or the sampling left out still ages this CPU's stage:
 * without it a staged record would wait for the next kept event on its CPU
 * (for ever, if it was the workload's last), not flush_ns, and a flight
 * window cut meanwhile would miss it.  Going idle flushes, as in rec_end().
 */
static __always_inline void stage_tick(bool idle)
{
	struct ev_stage *st;
	__u32 zero = 0;

	if (!stage_on)
		return;
	st = bpf_map_lookup_elem(&stage, &zero);
	if (!st || st->busy || !st->len)
		return;
	if (!idle && bpf_ktime_get_boot_ns() - st->first_ts < flush_ns)
		return;
	st->busy = 1;
	stage_flush(st);
	st->busy = 0;
}

static __always_inline bool sampled_out(void)
{
	return sample_n > 1 && bpf_get_prandom_u32() % sample_n;
}

static __always_inline bool cpu_ok(void)
{
	__u32 cpu;

	if (!filter_cpus_on)
		return true;
	cpu = bpf_get_smp_processor_id();
	if (cpu >= EV_MAX_CPUS)
		return false;
	return (filter_cpus[cpu / 64] >> (cpu % 64)) & 1;
}

static __always_inline bool task_ok(struct task_struct *p)
{
	if (filter_pid && p->pid != filter_pid)
		return false;
	if (filter_tgid && p->tgid != filter_tgid)
		return false;
	if (filter_comm_on) {
		__u64 c[2];

		bpf_probe_read_kernel(c, sizeof(c), p->comm);
		if (c[0] != filter_comm[0] || c[1] != filter_comm[1])
			return false;
	}
	return true;
}

static __always_inline bool task_filter_on(void)
{
	return filter_pid || filter_tgid || filter_comm_on;
}

/* For events that are not about a task: match the task running on the CPU. */
static __always_inline bool current_ok(void)
{
	if (!task_filter_on())
		return true;
	return task_ok(bpf_get_current_task_btf());
}

static __always_inline __s32 task_cpu(struct task_struct *p)
{
	struct task_struct___cpu {
		unsigned int cpu;
	} __attribute__((preserve_access_index)) *q = (void *)p;

	/* direct loads: tp_btf pointers are trusted, no probe_read needed */
	if (bpf_core_field_exists(p->thread_info.cpu))
		return p->thread_info.cpu;
	return q->cpu;
}

/* Two direct 8-byte loads: a third of the cost of bpf_probe_read_kernel here. */
static __always_inline void copy_comm(char *dst, struct task_struct *p)
{
	__u64 *d = (void *)dst;

	d[0] = *(__u64 *)&p->comm[0];
	d[1] = *(__u64 *)&p->comm[8];
}

/*
 * The task's cgroup v2 id: the kernfs id of its default-hierarchy cgroup,
 * what bpf_get_current_cgroup_id() gives for current.  Direct loads (tp_btf
 * pointers, PROBE_MEM); 0 for the idle task, which belongs to no cgroup.
 */
static __always_inline __u64 task_cgroup(struct task_struct *p)
{
	if (!cgroup_on || !p->pid)
		return 0;
	return p->cgroups->dfl_cgrp->kn->id;
}

static __always_inline __u16 report_state(bool preempt, unsigned int state, struct task_struct *p)
{
	return ev_report_state(preempt, state, p->exit_state);
}

static __always_inline unsigned int task_state(struct task_struct *p)
{
	struct task_struct___old {
		long state;
	} __attribute__((preserve_access_index)) *o = (void *)p;

	if (bpf_core_field_exists(p->__state))
		return BPF_CORE_READ(p, __state);
	return BPF_CORE_READ(o, state);
}

/* ---- sched_ext (optional, never loaded on a kernel without it) ------------ */

struct scx_dispatch_q___evs {
	__u32 nr;
	__u64 id;
} __attribute__((preserve_access_index));

struct sched_ext_entity___evs {
	struct scx_dispatch_q___evs *dsq;
	__u64 slice;
	__u64 dsq_vtime;
} __attribute__((preserve_access_index));

struct task_struct___evs {
	struct sched_ext_entity___evs scx;
} __attribute__((preserve_access_index));

struct sched_ext_ops___evs {
	char name[128];
} __attribute__((preserve_access_index));

/* 6.19+: __scx_bpf_dsq_insert_vtime() takes its arguments in a struct */
struct scx_bpf_dsq_insert_vtime_args___evs {
	__u64 dsq_id;
	__u64 slice;
	__u64 vtime;
	__u64 enq_flags;
};

extern __s32 scx_bpf_dsq_nr_queued(__u64 dsq_id) __ksym __weak;

struct scx_tctx {
	__u64 insert_ts;
	__u64 dsq_id;
	__u64 vtime;
	__u64 slice_in; /* slice left when the task last switched in */
};

/* Keyed by pid (kprobes cannot use task storage); sized to 1 without sched_ext. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct scx_tctx);
} scx_tasks SEC(".maps");

static __always_inline void scx_note_insert(struct task_struct *p, __u64 dsq_id, __u64 slice,
					    __u64 vtime)
{
	struct scx_tctx t = {}, *old;
	__u32 pid;

	if (!p)
		return;
	pid = BPF_CORE_READ(p, pid);
	old = bpf_map_lookup_elem(&scx_tasks, &pid);
	if (old)
		t.slice_in = old->slice_in;
	t.insert_ts = bpf_ktime_get_boot_ns();
	t.dsq_id = dsq_id;
	t.vtime = vtime;
	bpf_map_update_elem(&scx_tasks, &pid, &t, BPF_ANY);
}

SEC("?kprobe/scx_bpf_dsq_insert")
int BPF_KPROBE(scx_insert, struct task_struct *p, __u64 dsq_id, __u64 slice)
{
	scx_note_insert(p, dsq_id, slice, 0);
	return 0;
}

SEC("?kprobe/scx_bpf_dsq_insert___v2")
int BPF_KPROBE(scx_insert_v2, struct task_struct *p, __u64 dsq_id, __u64 slice)
{
	scx_note_insert(p, dsq_id, slice, 0);
	return 0;
}

SEC("?kprobe/scx_bpf_dispatch")
int BPF_KPROBE(scx_dispatch, struct task_struct *p, __u64 dsq_id, __u64 slice)
{
	scx_note_insert(p, dsq_id, slice, 0);
	return 0;
}

SEC("?kprobe/scx_bpf_dsq_insert_vtime")
int BPF_KPROBE(scx_insert_vtime, struct task_struct *p, __u64 dsq_id, __u64 slice, __u64 vtime)
{
	scx_note_insert(p, dsq_id, slice, vtime);
	return 0;
}

SEC("?kprobe/scx_bpf_dispatch_vtime")
int BPF_KPROBE(scx_dispatch_vtime, struct task_struct *p, __u64 dsq_id, __u64 slice, __u64 vtime)
{
	scx_note_insert(p, dsq_id, slice, vtime);
	return 0;
}

SEC("?kprobe/__scx_bpf_dsq_insert_vtime")
int BPF_KPROBE(scx_insert_vtime_args, struct task_struct *p, void *args)
{
	struct scx_bpf_dsq_insert_vtime_args___evs a = {};

	bpf_probe_read_kernel(&a, sizeof(a), args);
	scx_note_insert(p, a.dsq_id, a.slice, a.vtime);
	return 0;
}

/*
 * Moves between DSQs: scx_bpf_dsq_move[_vtime]() (6.13 on), 6.12's
 * scx_bpf_dispatch[_vtime]_from_dsq().  The scheduler iterates a DSQ and moves
 * a task to another; a slice or vtime it set through the iterator
 * (..._set_slice/_set_vtime) waits in the kernel's iterator until the move
 * applies it, so the entry probe reads it there.  A move can fail (the task
 * left the DSQ meanwhile): the record goes out from the return probe, and only
 * when the kfunc says the task moved.
 */
struct scx_dsq_list_node___evs {
	__u32 flags;
} __attribute__((preserve_access_index));

struct bpf_iter_scx_dsq_kern___evs {
	struct scx_dsq_list_node___evs cursor;
	struct scx_dispatch_q___evs *dsq;
	__u64 slice;
	__u64 vtime;
} __attribute__((preserve_access_index));

/* the kernel's __SCX_DSQ_ITER_HAS_SLICE / _HAS_VTIME (6.12 to now) */
#define EV_DSQ_ITER_HAS_SLICE (1u << 30)
#define EV_DSQ_ITER_HAS_VTIME (1u << 31)

/*
 * Moves between their entry and return, per task: return probes pair with
 * entries last in, first out on a task, also when an interrupt's move nests
 * in another.  LRU: an entry whose return probe was missed cannot pile up.
 */
#define SCX_MOVE_NEST 2
struct scx_move_stack {
	__u32 n;
	__u32 _pad;
	__u64 task[SCX_MOVE_NEST];
	struct ev_dsq_insert e[SCX_MOVE_NEST];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64); /* the current task_struct's address */
	__type(value, struct scx_move_stack);
} scx_moves SEC(".maps");

/* The filters of task_ok() for a pointer a kprobe got (read, not loaded). */
static __always_inline bool task_ok_read(struct task_struct *p)
{
	if (filter_pid && BPF_CORE_READ(p, pid) != filter_pid)
		return false;
	if (filter_tgid && BPF_CORE_READ(p, tgid) != filter_tgid)
		return false;
	if (filter_comm_on) {
		__u64 c[2] = {};

		bpf_probe_read_kernel(c, sizeof(c), &p->comm);
		if (c[0] != filter_comm[0] || c[1] != filter_comm[1])
			return false;
	}
	return true;
}

static __always_inline void scx_move_enter(void *it, struct task_struct *p, __u64 dsq_id)
{
	struct bpf_iter_scx_dsq_kern___evs *kit = it;
	struct task_struct___evs *t = (void *)p;
	struct scx_move_stack *m, fresh = {};
	__u64 key = bpf_get_current_task();
	struct ev_dsq_insert *e;
	__u32 flags, i;

	m = bpf_map_lookup_elem(&scx_moves, &key);
	if (!m) {
		bpf_map_update_elem(&scx_moves, &key, &fresh, BPF_NOEXIST);
		m = bpf_map_lookup_elem(&scx_moves, &key);
		if (!m)
			return;
	}
	i = m->n++; /* the return probe takes it off, even when this records nothing */
	if (i >= SCX_MOVE_NEST)
		return;
	m->task[i] = 0;
	if (!p || !cpu_ok() || sampled_out() || (task_filter_on() && !task_ok_read(p)))
		return;
	m->task[i] = (__u64)p;
	e = &m->e[i];
	e->pid = BPF_CORE_READ(p, pid);
	e->tgid = BPF_CORE_READ(p, tgid);
	bpf_probe_read_kernel(e->comm, sizeof(e->comm), &p->comm);
	e->dsq_id = dsq_id;
	e->from_dsq_id = BPF_CORE_READ(kit, dsq, id);
	flags = BPF_CORE_READ(kit, cursor.flags);
	e->slice_ns = flags & EV_DSQ_ITER_HAS_SLICE ? BPF_CORE_READ(kit, slice) :
						      BPF_CORE_READ(t, scx.slice);
	e->vtime = flags & EV_DSQ_ITER_HAS_VTIME ? BPF_CORE_READ(kit, vtime) :
						   BPF_CORE_READ(t, scx.dsq_vtime);
}

static __always_inline void scx_move_exit(bool moved)
{
	__u64 key = bpf_get_current_task();
	struct scx_move_stack *m = bpf_map_lookup_elem(&scx_moves, &key);
	struct task_struct___evs *p;
	struct ev_dsq_insert e;
	__u32 i;

	if (!m || !m->n)
		return;
	i = --m->n;
	if (i < SCX_MOVE_NEST && moved && m->task[i]) {
		e = m->e[i];
		p = (void *)m->task[i];
		e.h.ts = bpf_ktime_get_boot_ns();
		e.h.type = EVK_DSQ_INSERT;
		e.h.aux = 0;
		e._pad = 0;
		/* the DSQ the task is on now, unless a CPU took it off already */
		e.depth = BPF_CORE_READ(p, scx.dsq, nr);
		scx_note_insert((void *)p, e.dsq_id, e.slice_ns, e.vtime);
		emit(&e, sizeof(e), false);
	}
	if (!m->n)
		bpf_map_delete_elem(&scx_moves, &key);
}

#define SCX_MOVE_PROBES(name, func) \
	SEC("?kprobe/" #func) \
	int BPF_KPROBE(name, void *it, struct task_struct *p, __u64 dsq_id) \
	{ \
		scx_move_enter(it, p, dsq_id); \
		return 0; \
	} \
	SEC("?kretprobe/" #func) \
	int BPF_KRETPROBE(name##_ret, __u64 ret) \
	{ \
		scx_move_exit(ret & 0xff); /* a bool: the rest of the register is not set */ \
		return 0; \
	}

SCX_MOVE_PROBES(scx_move, scx_bpf_dsq_move)
SCX_MOVE_PROBES(scx_move_vtime, scx_bpf_dsq_move_vtime)
SCX_MOVE_PROBES(scx_from_dsq, scx_bpf_dispatch_from_dsq)
SCX_MOVE_PROBES(scx_vtime_from_dsq, scx_bpf_dispatch_vtime_from_dsq)

static __always_inline void scx_ops_event(void *kdata, __u16 kind)
{
	struct sched_ext_ops___evs *ops = kdata;
	struct ev_scx_ops e = {};

	e.h.ts = bpf_ktime_get_boot_ns();
	e.h.type = kind;
	bpf_probe_read_kernel_str(e.name, sizeof(e.name), &ops->name);
	emit(&e, sizeof(e), false);
}

SEC("?kprobe/bpf_scx_reg")
int BPF_KPROBE(scx_reg, void *kdata)
{
	scx_ops_event(kdata, EVK_SCX_ENABLE);
	return 0;
}

SEC("?kprobe/bpf_scx_unreg")
int BPF_KPROBE(scx_unreg, void *kdata)
{
	scx_ops_event(kdata, EVK_SCX_DISABLE);
	return 0;
}

/*
 * 6.12 keeps the running scheduler's ops, its exit info and the claimed exit
 * kind in three statics of kernel/sched/ext.c; their addresses come from
 * kallsyms (CONFIG_KALLSYMS_ALL).  Weak: 0 where they do not exist.
 */
extern const void scx_ops __ksym __weak;
extern const void scx_exit_info __ksym __weak;
extern const void scx_exit_kind __ksym __weak;

struct scx_exit_info___evs {
	int kind;
	__s64 exit_code;
	char *msg;
} __attribute__((preserve_access_index));

#define EV_SCX_EXIT_NONE 0
#define EV_SCX_EXIT_DONE 1

/*
 * The work that disables a scheduler, whatever the cause (unregistration,
 * scx_bpf_error(), a stall): it runs once the exit kind is claimed and the
 * message written, before the ops are cleared, so the record has the name,
 * kind, code and message.  Loaded instead of scx_unreg where it exists.
 */
SEC("?kprobe/scx_ops_disable_workfn")
int BPF_KPROBE(scx_disable_work)
{
	struct scx_exit_info___evs *ei = NULL;
	struct sched_ext_ops___evs *ops = (void *)&scx_ops;
	struct ev_scx_ops e = {};
	char *msg;
	int kind = 0;

	if (!&scx_ops || !&scx_exit_info || !&scx_exit_kind)
		return 0;
	bpf_probe_read_kernel(&kind, sizeof(kind), &scx_exit_kind);
	/* NONE: a new scheduler came in since; DONE: this one is gone already */
	if (kind == EV_SCX_EXIT_NONE || kind == EV_SCX_EXIT_DONE)
		return 0;
	e.h.ts = bpf_ktime_get_boot_ns();
	e.h.type = EVK_SCX_DISABLE;
	e.exit_kind = kind;
	bpf_probe_read_kernel_str(e.name, sizeof(e.name), &ops->name);
	bpf_probe_read_kernel(&ei, sizeof(ei), &scx_exit_info);
	if (ei) {
		e.exit_code = BPF_CORE_READ(ei, exit_code);
		msg = BPF_CORE_READ(ei, msg);
		if (msg)
			bpf_probe_read_kernel_str(e.msg, sizeof(e.msg), msg);
	}
	emit(&e, sizeof(e), false);
	return 0;
}

/* ---- sched_switch ----------------------------------------------------------- */

static __always_inline void fill_switch(struct ev_switch *e, bool preempt, struct task_struct *prev,
					struct task_struct *next, unsigned long long *ctx)
{
	unsigned int state = sw_state_arg ? (unsigned int)ctx[3] : task_state(prev);

	e->h.ts = bpf_ktime_get_boot_ns();
	e->h.aux = report_state(preempt, state, prev);
	e->prev_pid = prev->pid;
	e->prev_tgid = prev->tgid;
	e->prev_prio = prev->prio;
	e->next_pid = next->pid;
	e->next_tgid = next->tgid;
	e->next_prio = next->prio;
	copy_comm(e->prev_comm, prev);
	copy_comm(e->next_comm, next);
	e->prev_cgroup = task_cgroup(prev);
	e->next_cgroup = task_cgroup(next);
}

static __always_inline bool switch_ok(struct task_struct *prev, struct task_struct *next)
{
	if (!cpu_ok() || sampled_out())
		return false;
	if (task_filter_on() && !task_ok(prev) && !task_ok(next))
		return false;
	return true;
}

/*
 * The debug dump the kernel writes when a scheduler errors out or stalls, one
 * line per call, all from one CPU under the dump lock: user space parses it.
 * Sent at once (as from idle), as the scheduler is on its way out.
 */
SEC("?tp_btf/sched_ext_dump")
int BPF_PROG(on_scx_dump, const char *line)
{
	struct ev_scx_dump e = {};

	e.h.ts = bpf_ktime_get_boot_ns();
	e.h.type = EVK_SCX_DUMP;
	e.h.aux = 0;
	if (bpf_probe_read_kernel_str(e.line, sizeof(e.line), line) < 0)
		e.line[0] = 0;
	emit(&e, sizeof(e), true);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct ev_switch tmp, *e;
	struct ev_stage *st;

	if (!switch_ok(prev, next)) {
		stage_tick(next->pid == 0);
		return 0;
	}
	e = rec_begin(&st, &tmp, sizeof(*e));
	e->h.type = EVK_SWITCH;
	e->_pad = 0;
	fill_switch(e, preempt, prev, next, ctx);
	rec_end(st, e, sizeof(*e), next->pid == 0);
	return 0;
}

/* Loaded instead of on_switch when the kernel has sched_ext. */
SEC("?tp_btf/sched_switch")
int BPF_PROG(on_switch_scx, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct task_struct___evs *n = (void *)next, *p = (void *)prev;
	struct ev_switch_scx e = {};
	struct scx_tctx *t;
	__u32 pid;

	if (!switch_ok(prev, next)) {
		stage_tick(next->pid == 0);
		return 0;
	}
	e.sw.h.type = EVK_SWITCH_SCX;
	fill_switch(&e.sw, preempt, prev, next, ctx);
	e.dsq_id = ~0ULL;

	pid = prev->pid;
	t = bpf_map_lookup_elem(&scx_tasks, &pid);
	if (t) {
		__u64 left = BPF_CORE_READ(p, scx.slice);

		if (t->slice_in >= left)
			e.prev_slice_used_ns = t->slice_in - left;
	}
	pid = next->pid;
	e.slice_ns = BPF_CORE_READ(n, scx.slice);
	t = bpf_map_lookup_elem(&scx_tasks, &pid);
	if (t) {
		if (t->insert_ts) {
			e.dsq_id = t->dsq_id;
			e.dsq_lat_ns = e.sw.h.ts - t->insert_ts;
			e.dsq_vtime = t->vtime ? t->vtime : BPF_CORE_READ(n, scx.dsq_vtime);
			if (scx_bpf_dsq_nr_queued) {
				__s32 nr = scx_bpf_dsq_nr_queued(t->dsq_id);

				e.dsq_depth = nr > 0 ? nr : 0;
			}
			t->insert_ts = 0;
		}
		t->slice_in = e.slice_ns;
	} else if (pid) {
		struct scx_tctx nt = { .slice_in = e.slice_ns };

		bpf_map_update_elem(&scx_tasks, &pid, &nt, BPF_ANY);
	}
	emit(&e, sizeof(e), pid == 0);
	return 0;
}

/* ---- wakeups, migration ------------------------------------------------------ */

static __always_inline void wakeup_event(struct task_struct *p, __u16 kind)
{
	struct ev_wakeup tmp, *e;
	struct ev_stage *st;
	__u64 id;

	if (!cpu_ok() || sampled_out() || (task_filter_on() && !task_ok(p)))
		return;
	id = bpf_get_current_pid_tgid();
	e = rec_begin(&st, &tmp, sizeof(*e));
	e->h.ts = bpf_ktime_get_boot_ns();
	e->h.type = kind;
	e->h.aux = 0;
	e->pid = p->pid;
	e->tgid = p->tgid;
	e->prio = p->prio;
	e->target_cpu = task_cpu(p);
	e->waker_pid = (__u32)id;
	e->waker_tgid = id >> 32;
	copy_comm(e->comm, p);
	e->cgroup = task_cgroup(p);
	rec_end(st, e, sizeof(*e), false);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	wakeup_event(p, EVK_WAKING);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	wakeup_event(p, EVK_WAKEUP);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct *p)
{
	wakeup_event(p, EVK_WAKEUP_NEW);
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(on_migrate, struct task_struct *p, int dest_cpu)
{
	struct ev_migrate e;

	if (!cpu_ok() || sampled_out() || (task_filter_on() && !task_ok(p)))
		return 0;
	e.h.ts = bpf_ktime_get_boot_ns();
	e.h.type = EVK_MIGRATE;
	e.h.aux = 0;
	e.pid = p->pid;
	e.tgid = p->tgid;
	e.prio = p->prio;
	e.orig_cpu = task_cpu(p);
	e.dest_cpu = dest_cpu;
	e._pad = 0;
	copy_comm(e.comm, p);
	emit(&e, sizeof(e), false);
	return 0;
}

/* ---- process lifecycle (never sampled: they are rare and anchor the rest) --- */

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	struct ev_fork e;

	if (!cpu_ok() || (task_filter_on() && !task_ok(parent) && !task_ok(child)))
		return 0;
	e.h.ts = bpf_ktime_get_boot_ns();
	e.h.type = EVK_FORK;
	e.h.aux = 0;
	e.parent_pid = parent->pid;
	e.parent_tgid = parent->tgid;
	e.child_pid = child->pid;
	e.child_tgid = child->tgid;
	copy_comm(e.parent_comm, parent);
	copy_comm(e.child_comm, child);
	emit(&e, sizeof(e), false);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct ev_exec e = {};

	if (!cpu_ok() || (task_filter_on() && !task_ok(p)))
		return 0;
	e.h.ts = bpf_ktime_get_boot_ns();
	e.h.type = EVK_EXEC;
	e.pid = p->pid;
	e.tgid = p->tgid;
	e.old_pid = old_pid;
	copy_comm(e.comm, p);
	bpf_probe_read_kernel_str(e.filename, sizeof(e.filename), BPF_CORE_READ(bprm, filename));
	emit(&e, sizeof(e), false);
	return 0;
}

static __always_inline void task_event(struct task_struct *p, __u16 kind)
{
	struct ev_task e;

	if (!cpu_ok() || (task_filter_on() && !task_ok(p)))
		return;
	e.h.ts = bpf_ktime_get_boot_ns();
	e.h.type = kind;
	e.h.aux = 0;
	e.pid = p->pid;
	e.tgid = p->tgid;
	e.prio = p->prio;
	e._pad = 0;
	copy_comm(e.comm, p);
	emit(&e, sizeof(e), false);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	task_event(p, EVK_EXIT);
	return 0;
}

SEC("tp_btf/sched_process_free")
int BPF_PROG(on_free, struct task_struct *p)
{
	__u32 pid = p->pid;

	task_event(p, EVK_FREE);
	bpf_map_delete_elem(&scx_tasks, &pid);
	return 0;
}

/* ---- CPU-level events ------------------------------------------------------- */

static __always_inline bool cpu_event_ok(void)
{
	return cpu_ok() && !sampled_out() && current_ok();
}

static __always_inline void softirq_event(unsigned int vec, __u16 kind)
{
	struct ev_hdr e;

	if (!cpu_event_ok())
		return;
	e.ts = bpf_ktime_get_boot_ns();
	e.type = kind;
	e.aux = vec;
	emit(&e, sizeof(e), false);
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(on_softirq_entry, unsigned int vec)
{
	softirq_event(vec, EVK_SOFTIRQ_ENTRY);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(on_softirq_exit, unsigned int vec)
{
	softirq_event(vec, EVK_SOFTIRQ_EXIT);
	return 0;
}

static __always_inline void ipi_event(__s32 target, __u64 callsite, __u16 kind)
{
	struct ev_ipi e;

	e.h.ts = bpf_ktime_get_boot_ns();
	e.h.type = kind;
	e.h.aux = 0;
	e.target_cpu = target;
	e._pad = 0;
	e.callsite = callsite;
	emit(&e, sizeof(e), false);
}

SEC("tp_btf/ipi_send_cpu")
int BPF_PROG(on_ipi_send_cpu, unsigned int cpu, unsigned long callsite)
{
	if (cpu_event_ok())
		ipi_event(cpu, callsite, EVK_IPI_SEND);
	return 0;
}

struct ipi_mask_ctx {
	__u64 bits[4];
	__u64 callsite;
};

static long ipi_mask_one(__u64 i, struct ipi_mask_ctx *m)
{
	if (i < 256 && (m->bits[i / 64] >> (i % 64)) & 1)
		ipi_event(i, m->callsite, EVK_IPI_SEND);
	return 0;
}

/*
 * One event per target CPU, for the first 256 CPUs of the mask; bpf_loop so
 * the verifier sees emit() once rather than 256 times.
 */
SEC("tp_btf/ipi_send_cpumask")
int BPF_PROG(on_ipi_send_cpumask, struct cpumask *mask, unsigned long callsite)
{
	struct ipi_mask_ctx m = { .callsite = callsite };

	if (!cpu_event_ok())
		return 0;
	bpf_probe_read_kernel(m.bits, sizeof(m.bits), mask->bits);
	bpf_loop(256, ipi_mask_one, &m, 0);
	return 0;
}

SEC("?tp_btf/ipi_entry")
int BPF_PROG(on_ipi_entry)
{
	if (cpu_event_ok())
		ipi_event(-1, 0, EVK_IPI_ENTRY);
	return 0;
}

SEC("?tp_btf/ipi_exit")
int BPF_PROG(on_ipi_exit)
{
	if (cpu_event_ok())
		ipi_event(-1, 0, EVK_IPI_EXIT);
	return 0;
}

static __always_inline void cpuval_event(__u32 cpu_id, __u32 val, __u16 kind)
{
	struct ev_cpuval e;

	if (!cpu_event_ok())
		return;
	e.h.ts = bpf_ktime_get_boot_ns();
	e.h.type = kind;
	e.h.aux = 0;
	e.cpu_id = cpu_id;
	e.val = val;
	emit(&e, sizeof(e), false);
}

SEC("tp_btf/cpu_frequency")
int BPF_PROG(on_cpu_frequency, unsigned int khz, unsigned int cpu_id)
{
	cpuval_event(cpu_id, khz, EVK_FREQ);
	return 0;
}

SEC("tp_btf/cpu_idle")
int BPF_PROG(on_cpu_idle, unsigned int state, unsigned int cpu_id)
{
	cpuval_event(cpu_id, state, EVK_IDLE);
	return 0;
}

static __always_inline void cpuhp_event(__u32 cpu_id, int target, int idx, int ret, __u16 kind)
{
	struct ev_cpuhp e;

	if (!cpu_event_ok())
		return;
	e.h.ts = bpf_ktime_get_boot_ns();
	e.h.type = kind;
	e.h.aux = 0;
	e.cpu_id = cpu_id;
	e.target = target;
	e.idx = idx;
	e.ret = ret;
	emit(&e, sizeof(e), false);
}

SEC("tp_btf/cpuhp_enter")
int BPF_PROG(on_cpuhp_enter, unsigned int cpu, int target, int idx)
{
	cpuhp_event(cpu, target, idx, 0, EVK_CPUHP_ENTER);
	return 0;
}

SEC("tp_btf/cpuhp_exit")
int BPF_PROG(on_cpuhp_exit, unsigned int cpu, int state, int idx, int ret)
{
	cpuhp_event(cpu, state, idx, ret, EVK_CPUHP_EXIT);
	return 0;
}
