/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scx-tools event model: one fixed-size C struct for every event kind the
 * suite knows, and a table that gives every kind and field a stable name.
 *
 * The names in the table are the wire names: NDJSON keys and "type" values,
 * and the order of fields in a binary record (see man/scx.7).  Codecs walk the
 * table, so adding a field is one line here plus one in event.c.  Never rename
 * or reorder a field: append, and bump SCX_WIRE_VERSION only when a reader of
 * the old version would misread the new one.
 */
#ifndef SCX_EVENT_H
#define SCX_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCX_WIRE_VERSION 1
#define SCX_COMM_LEN 16
#define SCX_PATH_LEN 128 /* exec filename, truncated by the producer */
#define SCX_NAME_LEN 32	 /* sched_ext scheduler name */

/* Event kinds.  The numbers are the binary record kinds: stable forever. */
enum scx_ev_type {
	SCX_EV_NONE = 0,
	SCX_EV_SWITCH = 1,     /* sched_switch */
	SCX_EV_WAKING = 2,     /* sched_waking */
	SCX_EV_WAKEUP = 3,     /* sched_wakeup */
	SCX_EV_WAKEUP_NEW = 4, /* sched_wakeup_new */
	SCX_EV_MIGRATE = 5,    /* sched_migrate_task */
	SCX_EV_FORK = 6,       /* sched_process_fork */
	SCX_EV_EXEC = 7,       /* sched_process_exec */
	SCX_EV_EXIT = 8,       /* sched_process_exit */
	SCX_EV_FREE = 9,       /* sched_process_free */
	SCX_EV_SOFTIRQ_ENTRY = 10,
	SCX_EV_SOFTIRQ_EXIT = 11,
	SCX_EV_IPI_SEND = 12, /* ipi_send_cpu, one per target cpu */
	SCX_EV_CPU_FREQUENCY = 13,
	SCX_EV_CPU_IDLE = 14, /* state == SCX_IDLE_EXIT when leaving idle */
	SCX_EV_CPUHP_ENTER = 15,
	SCX_EV_CPUHP_EXIT = 16,
	SCX_EV_SCX_ENABLE = 17,	 /* a sched_ext scheduler was loaded */
	SCX_EV_SCX_DISABLE = 18, /* ... and unloaded */
	SCX_EV_IRQ_ENTRY = 19,	 /* hard irq; from Perfetto traces */
	SCX_EV_IRQ_EXIT = 20,
	SCX_EV_TASK_RENAME = 21, /* task_rename / prctl(PR_SET_NAME) */
	SCX_EV_LOST = 22,	 /* the producer lost 'count' events on 'cpu' */
	SCX_EV_IPI_ENTRY = 23,	 /* ipi handler on the receiving cpu */
	SCX_EV_IPI_EXIT = 24,
	SCX_EV_DSQ_INSERT = 25,	 /* sched_ext: task queued on a DSQ */
	SCX_EV_RESERVED_26 = 26, /* taken by in-kernel aggregation (kagg branch) */
	SCX_EV_RESERVED_27 = 27,
	SCX_EV_FLIGHT = 28,	   /* scx-events --flight: why this window was written */
	SCX_EV_SCX_DUMP_CPU = 29,  /* sched_ext debug dump: one CPU's state */
	SCX_EV_SCX_DUMP_TASK = 30, /* sched_ext debug dump: one task on a CPU */
	SCX_EV_SCX_DUMP_LINE = 31, /* sched_ext debug dump: one line of its text */
	SCX_EV__COUNT
};

/*
 * prev_state of a switch, as the kernel's sched_switch tracepoint reports it:
 * TASK_REPORT bits (S=1 D=2 T=4 t=8 X=16 Z=32 P=64 I=128), 0 for a runnable
 * (preempted) task, and on preemption the kernel reports TASK_REPORT_MAX
 * (256, printed "R+").  Readers of other sources convert to this encoding.
 */
#define SCX_STATE_RUNNING 0x0000
#define SCX_STATE_INTERRUPTIBLE 0x0001
#define SCX_STATE_UNINTERRUPTIBLE 0x0002
#define SCX_STATE_STOPPED 0x0004
#define SCX_STATE_TRACED 0x0008
#define SCX_STATE_DEAD 0x0010
#define SCX_STATE_ZOMBIE 0x0020
#define SCX_STATE_PARKED 0x0040
#define SCX_STATE_IDLE 0x0080
#define SCX_STATE_PREEMPTED 0x0100 /* TASK_REPORT_MAX: "R+" */

#define SCX_IDLE_EXIT 0xffffffffu /* cpu_idle state when the cpu wakes */
#define SCX_DSQ_NONE UINT64_MAX	  /* switch: no sched_ext data */
/*
 * Cgroup ids: 0 is never a cgroup (the kernel numbers kernfs nodes from 1,
 * the root cgroup is 1), so it means "unknown", and a field left out of a
 * stream reads as unknown, never as the root.
 */
#define SCX_CGROUP_NONE 0
/* switch: layer_id travels with the sched_ext fields, written only with a dsq_id */

struct scx_ev_switch {
	int32_t prev_pid, prev_tgid, prev_prio;
	int32_t next_pid, next_tgid, next_prio;
	int64_t prev_state;
	char prev_comm[SCX_COMM_LEN];
	char next_comm[SCX_COMM_LEN];
	/* sched_ext, about next; dsq_id == SCX_DSQ_NONE when absent */
	uint64_t dsq_id;
	uint64_t dsq_lat_ns;	     /* time next spent queued on the DSQ */
	uint64_t dsq_vtime;	     /* next's dsq vtime */
	uint64_t slice_ns;	     /* slice given to next */
	uint64_t prev_slice_used_ns; /* slice prev used before switching out */
	uint32_t dsq_depth;	     /* DSQ depth when next was taken off it */
	int32_t layer_id;	     /* scx_layered layer of next, -1 when unknown */
	/* cgroup v2 ids (kernfs node ids, the root is 1); SCX_CGROUP_NONE when unknown */
	uint64_t prev_cgroup, next_cgroup;
};

/* waking, wakeup, wakeup_new: the woken task, and the task that woke it
 * (the one running on 'cpu' at the time; 0 from interrupts/idle). */
struct scx_ev_wakeup {
	int32_t pid, tgid, prio, target_cpu;
	int32_t waker_pid, waker_tgid;
	char comm[SCX_COMM_LEN];
	uint64_t cgroup; /* the woken task's cgroup v2 id, SCX_CGROUP_NONE */
};

struct scx_ev_migrate {
	int32_t pid, tgid, prio, orig_cpu, dest_cpu;
	int32_t _pad;
	char comm[SCX_COMM_LEN];
};

struct scx_ev_fork {
	int32_t parent_pid, parent_tgid, child_pid, child_tgid;
	char parent_comm[SCX_COMM_LEN];
	char child_comm[SCX_COMM_LEN];
};

struct scx_ev_exec {
	int32_t pid, tgid, old_pid;
	int32_t _pad;
	char comm[SCX_COMM_LEN];
	char filename[SCX_PATH_LEN];
};

/* exit and free */
struct scx_ev_task {
	int32_t pid, tgid, prio;
	int32_t _pad;
	char comm[SCX_COMM_LEN];
};

struct scx_ev_rename {
	int32_t pid, tgid;
	char oldcomm[SCX_COMM_LEN];
	char newcomm[SCX_COMM_LEN];
};

/* softirq_entry/exit: vec is the softirq number (0 HI .. 9 RCU) */
struct scx_ev_softirq {
	uint32_t vec;
	uint32_t _pad;
};

/* irq_entry/exit */
struct scx_ev_irq {
	int32_t irq;
	int32_t ret; /* exit only */
};

/* ipi_send: target_cpu receives an IPI sent from 'cpu' */
struct scx_ev_ipi {
	int32_t target_cpu;
	uint32_t _pad;
	uint64_t callsite; /* kernel address of the sender, 0 if unknown */
};

struct scx_ev_freq {
	uint32_t cpu_id; /* the cpu whose frequency changed */
	uint32_t khz;
};

struct scx_ev_idle {
	uint32_t cpu_id;
	uint32_t state; /* idle state index, SCX_IDLE_EXIT on exit */
};

struct scx_ev_cpuhp {
	uint32_t cpu_id;
	int32_t target, idx, ret; /* ret: exit only */
};

#define SCX_EXIT_REASON_LEN 40
#define SCX_EXIT_MSG_LEN 72 /* the kernel's exit message, truncated */

struct scx_ev_scx_ops {
	char name[SCX_NAME_LEN];
	int32_t exit_kind; /* scx_disable: enum scx_exit_kind, 0 if unknown */
	int64_t exit_code;
	char reason[SCX_EXIT_REASON_LEN]; /* the kernel's words for exit_kind */
	char msg[SCX_EXIT_MSG_LEN];
};

struct scx_ev_dsq_insert {
	int32_t pid, tgid;
	uint64_t dsq_id;
	uint64_t vtime;
	uint64_t slice_ns;
	uint32_t depth; /* DSQ depth after the insert */
	uint32_t _pad;
	char comm[SCX_COMM_LEN];
	/* a move (scx_bpf_dsq_move*): the DSQ the task left; else SCX_DSQ_NONE, not written */
	uint64_t from_dsq_id;
};

#define SCX_FLIGHT_REASON_LEN 24

/*
 * The trigger of a flight-recorder window, written after the window's events:
 * why (reason), the task it names (a latency trigger's task, a signal's
 * sender), and what the bounds dropped since the previous window.
 */
struct scx_ev_flight {
	char reason
		[SCX_FLIGHT_REASON_LEN]; /* scx_exit, wakeup_latency, runq_latency, signal, mcp */
	uint32_t seq;			 /* 1 for the first window of the capture */
	int32_t pid, tgid;		 /* the task named by the trigger, 0 if none */
	uint32_t _pad;
	char comm[SCX_COMM_LEN];
	uint64_t latency_ns;   /* latency triggers: the latency seen */
	uint64_t window_start; /* ts of the window's oldest event */
	uint64_t events;       /* events in the window */
	uint64_t dropped;      /* events pushed out by the size bound before their time */
};

#define SCX_DUMP_CLASS_LEN 24
#define SCX_DUMP_MASK_LEN 32
#define SCX_DUMP_LINE_LEN 128

/* sched_ext debug dump, "CPU N : nr_run=..." and its "curr=" line */
struct scx_ev_dump_cpu {
	int32_t cpu_id; /* the CPU described (not 'cpu', where the dump ran) */
	uint32_t nr_run;
	uint32_t flags;
	int32_t cpu_rel;
	uint64_t pnt_seq;
	int32_t curr_pid;
	uint32_t _pad;
	char curr_comm[SCX_COMM_LEN];
	char curr_class[SCX_DUMP_CLASS_LEN]; /* idle_sched_class, ext_sched_class, ... */
};

/* sched_ext debug dump: a task current or runnable on cpu_id */
struct scx_ev_dump_task {
	int32_t cpu_id;
	int32_t pid;
	char comm[SCX_COMM_LEN];
	char state[4];	     /* task_state_to_char: R, S, D ... */
	uint32_t current;    /* 1: running on cpu_id ('*'), 0: runnable */
	int64_t runnable_ms; /* ms since it became runnable (the dump's %+ldms) */
	uint32_t scx_state, scx_flags, dsq_flags, ops_state;
	uint64_t ops_qseq;
	int32_t sticky_cpu, holding_cpu;
	uint64_t dsq_id; /* SCX_DSQ_NONE when "(n/a)" */
	uint64_t dsq_vtime;
	char cpus[SCX_DUMP_MASK_LEN]; /* allowed CPUs, the kernel's hex mask */
};

/* sched_ext debug dump: one line of text as the kernel wrote it */
struct scx_ev_dump_line {
	uint32_t seq; /* line number within this dump, from 0 */
	uint32_t len; /* the line's length; > SCX_DUMP_LINE_LEN - 1: cut */
	char line[SCX_DUMP_LINE_LEN];
};

struct scx_ev_lost {
	uint64_t count; /* events lost on 'cpu' since the last report */
};

/*
 * Highest cpu id + 1 that the suite handles: Linux's NR_CPUS tops out below
 * it.  Every per-cpu table is sized by it; an input naming a cpu at or past it
 * is refused with an error or counted as dropped, never filed under another cpu.
 */
#define SCX_MAX_CPUS 16384

struct scx_event {
	uint64_t ts;	/* ns, CLOCK_BOOTTIME */
	int32_t cpu;	/* cpu the event happened on, -1 if unknown; < SCX_MAX_CPUS */
	uint16_t type;	/* enum scx_ev_type */
	uint16_t flags; /* reserved, 0 */
	union {
		struct scx_ev_switch sw;
		struct scx_ev_wakeup wake; /* WAKING, WAKEUP, WAKEUP_NEW */
		struct scx_ev_migrate mig;
		struct scx_ev_fork fork;
		struct scx_ev_exec exec;
		struct scx_ev_task task; /* EXIT, FREE */
		struct scx_ev_rename rename;
		struct scx_ev_softirq softirq;
		struct scx_ev_irq irq;
		struct scx_ev_ipi ipi; /* IPI_SEND, IPI_ENTRY, IPI_EXIT */
		struct scx_ev_freq freq;
		struct scx_ev_idle idle;
		struct scx_ev_cpuhp cpuhp;
		struct scx_ev_scx_ops ops;
		struct scx_ev_dsq_insert dsq;
		struct scx_ev_lost lost;
		struct scx_ev_flight flight;
		struct scx_ev_dump_cpu dump_cpu;
		struct scx_ev_dump_task dump_task;
		struct scx_ev_dump_line dump_line;
	};
};

/* ---- the name table ------------------------------------------------------ */

enum scx_field_kind {
	SCX_F_I32,
	SCX_F_U32,
	SCX_F_I64,
	SCX_F_U64,
	SCX_F_STR, /* NUL-padded char array of 'size' bytes */
};

struct scx_field {
	const char *name; /* wire name, e.g. "prev_pid" */
	uint16_t offset;  /* offsetof(struct scx_event, ...) */
	uint8_t kind;	  /* enum scx_field_kind */
	uint8_t size;	  /* bytes; for strings the array size */
};

struct scx_ev_desc {
	const char *name;		/* wire name, e.g. "sched_switch" */
	const struct scx_field *fields; /* ts, cpu and type are implicit */
	unsigned nr_fields;
	unsigned payload_size; /* bytes of the union this kind uses */
};

/* NULL for types outside 1..SCX_EV__COUNT-1 */
const struct scx_ev_desc *scx_ev_desc(unsigned type);
/* type for a wire name, or SCX_EV_NONE; 'len' bytes of 'name' (no NUL needed) */
unsigned scx_ev_type_by_name(const char *name, size_t len);
const char *scx_ev_name(unsigned type); /* "unknown" for bad types */
/* field of 'type' by wire name, or NULL */
const struct scx_field *scx_ev_field(unsigned type, const char *name, size_t len);

/* Field accessors through the table (integers widened to 64 bits). */
int64_t scx_field_get_int(const struct scx_event *e, const struct scx_field *f);
void scx_field_set_int(struct scx_event *e, const struct scx_field *f, int64_t v);

/* Zero an event and set its defaults (SCX_DSQ_NONE for a switch's dsq_id and an insert's
 * from_dsq_id). */
void scx_event_init(struct scx_event *e, unsigned type);

/*
 * A switch without sched_ext data (dsq_id == SCX_DSQ_NONE) is written
 * without its sched_ext fields: it stops before dsq_id, field
 * SCX_SW_SCX_FIRST of the switch table (t/unit/0003-stream checks), byte
 * SCX_SW_SCX_OFFSET of its payload.  The cgroup ids come after the sched_ext
 * fields (field SCX_SW_CGROUP_FIRST): NDJSON leaves out each one that is
 * unknown; binary records are positional, so a switch with a cgroup id but
 * no sched_ext data carries the sched_ext fields at their "none" values.
 * The one definition for every format.
 */
#define SCX_SW_SCX_FIRST 9
#define SCX_SW_CGROUP_FIRST 16
#define SCX_SW_SCX_OFFSET offsetof(struct scx_ev_switch, dsq_id)
static inline bool scx_event_has_scx(const struct scx_event *e)
{
	return e->type != SCX_EV_SWITCH || e->sw.dsq_id != SCX_DSQ_NONE;
}
static inline bool scx_event_is_wakeup(unsigned type)
{
	return type == SCX_EV_WAKING || type == SCX_EV_WAKEUP || type == SCX_EV_WAKEUP_NEW;
}
/* A cgroup id is known in e (switches and wakeups only). */
static inline bool scx_event_has_cgroup(const struct scx_event *e)
{
	if (e->type == SCX_EV_SWITCH)
		return e->sw.prev_cgroup != SCX_CGROUP_NONE || e->sw.next_cgroup != SCX_CGROUP_NONE;
	return scx_event_is_wakeup(e->type) && e->wake.cgroup != SCX_CGROUP_NONE;
}
/* Fields of e that a positional (binary) record carries (d = scx_ev_desc(e->type)). */
static inline unsigned scx_event_nr_fields(const struct scx_event *e, const struct scx_ev_desc *d)
{
	if (scx_event_has_cgroup(e))
		return d->nr_fields;
	if (e->type == SCX_EV_SWITCH)
		return scx_event_has_scx(e) ? SCX_SW_CGROUP_FIRST : SCX_SW_SCX_FIRST;
	if (e->type == SCX_EV_DSQ_INSERT) /* from_dsq_id, the last field, for moves only */
		return d->nr_fields - (e->dsq.from_dsq_id == SCX_DSQ_NONE);
	return scx_event_is_wakeup(e->type) ? d->nr_fields - 1 : d->nr_fields;
}
/* Field i of e's kind is written to NDJSON: sched_ext fields only with a
 * dsq_id, cgroup ids only when known (fields past scx_event_nr_fields never). */
bool scx_event_field_present(const struct scx_event *e, unsigned i);

/* "R", "S", "D", "R+", "D|K"... as ftrace prints prev_state; buf >= 16 bytes */
const char *scx_state_str(int64_t state, char *buf, size_t size);

#endif
