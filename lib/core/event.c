// SPDX-License-Identifier: GPL-2.0
/* The event name table: wire names and layout of every kind (see event.h). */
#include <stdio.h>
#include <string.h>

#include "core/event.h"

#define F(n, member, k) \
	{ #n, offsetof(struct scx_event, member), k, sizeof(((struct scx_event *)0)->member) }
#define I32(u, n) F(n, u.n, SCX_F_I32)
#define U32(u, n) F(n, u.n, SCX_F_U32)
#define I64(u, n) F(n, u.n, SCX_F_I64)
#define U64(u, n) F(n, u.n, SCX_F_U64)
#define STR(u, n) F(n, u.n, SCX_F_STR)

static const struct scx_field switch_fields[] = {
	I32(sw, prev_pid),    I32(sw, prev_tgid),   STR(sw, prev_comm),		 I32(sw, prev_prio),
	I64(sw, prev_state),  I32(sw, next_pid),    I32(sw, next_tgid),		 STR(sw, next_comm),
	I32(sw, next_prio),   U64(sw, dsq_id),	    U64(sw, dsq_lat_ns),	 U32(sw, dsq_depth),
	U64(sw, dsq_vtime),   U64(sw, slice_ns),    U64(sw, prev_slice_used_ns), I32(sw, layer_id),
	U64(sw, prev_cgroup), U64(sw, next_cgroup),
};

static const struct scx_field wakeup_fields[] = {
	I32(wake, pid),	       I32(wake, tgid),	     STR(wake, comm),	    I32(wake, prio),
	I32(wake, target_cpu), I32(wake, waker_pid), I32(wake, waker_tgid), U64(wake, cgroup),
};

static const struct scx_field migrate_fields[] = {
	I32(mig, pid),	I32(mig, tgid),	    STR(mig, comm),
	I32(mig, prio), I32(mig, orig_cpu), I32(mig, dest_cpu),
};

static const struct scx_field fork_fields[] = {
	I32(fork, parent_pid), I32(fork, parent_tgid), STR(fork, parent_comm),
	I32(fork, child_pid),  I32(fork, child_tgid),  STR(fork, child_comm),
};

static const struct scx_field exec_fields[] = {
	I32(exec, pid), I32(exec, tgid), I32(exec, old_pid), STR(exec, comm), STR(exec, filename),
};

static const struct scx_field task_fields[] = {
	I32(task, pid),
	I32(task, tgid),
	STR(task, comm),
	I32(task, prio),
};

static const struct scx_field rename_fields[] = {
	I32(rename, pid),
	I32(rename, tgid),
	STR(rename, oldcomm),
	STR(rename, newcomm),
};

static const struct scx_field softirq_fields[] = { U32(softirq, vec) };
static const struct scx_field irq_entry_fields[] = { I32(irq, irq) };
static const struct scx_field irq_exit_fields[] = { I32(irq, irq), I32(irq, ret) };
static const struct scx_field ipi_send_fields[] = { I32(ipi, target_cpu), U64(ipi, callsite) };
static const struct scx_field ipi_handler_fields[] = { U64(ipi, callsite) };
static const struct scx_field freq_fields[] = { U32(freq, cpu_id), U32(freq, khz) };
static const struct scx_field idle_fields[] = { U32(idle, cpu_id), U32(idle, state) };
static const struct scx_field cpuhp_enter_fields[] = {
	U32(cpuhp, cpu_id),
	I32(cpuhp, target),
	I32(cpuhp, idx),
};
static const struct scx_field cpuhp_exit_fields[] = {
	U32(cpuhp, cpu_id),
	I32(cpuhp, target),
	I32(cpuhp, idx),
	I32(cpuhp, ret),
};
static const struct scx_field ops_fields[] = { STR(ops, name) };
static const struct scx_field ops_exit_fields[] = {
	STR(ops, name), I32(ops, exit_kind), I64(ops, exit_code), STR(ops, reason), STR(ops, msg),
};
static const struct scx_field dsq_fields[] = {
	I32(dsq, pid),	 I32(dsq, tgid),  STR(dsq, comm),     U64(dsq, dsq_id),
	U32(dsq, depth), U64(dsq, vtime), U64(dsq, slice_ns), U64(dsq, from_dsq_id),
};
static const struct scx_field lost_fields[] = { U64(lost, count) };
static const struct scx_field flight_fields[] = {
	STR(flight, reason),	   U32(flight, seq),	I32(flight, pid),
	I32(flight, tgid),	   STR(flight, comm),	U64(flight, latency_ns),
	U64(flight, window_start), U64(flight, events), U64(flight, dropped),
};
static const struct scx_field dump_cpu_fields[] = {
	I32(dump_cpu, cpu_id),	  U32(dump_cpu, nr_run),     U32(dump_cpu, flags),
	I32(dump_cpu, cpu_rel),	  U64(dump_cpu, pnt_seq),    I32(dump_cpu, curr_pid),
	STR(dump_cpu, curr_comm), STR(dump_cpu, curr_class),
};
static const struct scx_field dump_task_fields[] = {
	I32(dump_task, cpu_id),	     I32(dump_task, pid),	STR(dump_task, comm),
	STR(dump_task, state),	     U32(dump_task, current),	I64(dump_task, runnable_ms),
	U32(dump_task, scx_state),   U32(dump_task, scx_flags), U32(dump_task, dsq_flags),
	U32(dump_task, ops_state),   U64(dump_task, ops_qseq),	I32(dump_task, sticky_cpu),
	I32(dump_task, holding_cpu), U64(dump_task, dsq_id),	U64(dump_task, dsq_vtime),
	STR(dump_task, cpus),
};
static const struct scx_field dump_line_fields[] = {
	U32(dump_line, seq),
	U32(dump_line, len),
	STR(dump_line, line),
};
/* 26 and 27 belong to the in-kernel aggregation branch; here only so the table has no hole */
static const struct scx_field reserved_fields[] = { U64(lost, count) };

#define KIND(t, n, f, u) \
	[t] = { n, f, sizeof(f) / sizeof(f[0]), sizeof(((struct scx_event *)0)->u) }

static const struct scx_ev_desc descs[SCX_EV__COUNT] = {
	KIND(SCX_EV_SWITCH, "sched_switch", switch_fields, sw),
	KIND(SCX_EV_WAKING, "sched_waking", wakeup_fields, wake),
	KIND(SCX_EV_WAKEUP, "sched_wakeup", wakeup_fields, wake),
	KIND(SCX_EV_WAKEUP_NEW, "sched_wakeup_new", wakeup_fields, wake),
	KIND(SCX_EV_MIGRATE, "sched_migrate_task", migrate_fields, mig),
	KIND(SCX_EV_FORK, "sched_process_fork", fork_fields, fork),
	KIND(SCX_EV_EXEC, "sched_process_exec", exec_fields, exec),
	KIND(SCX_EV_EXIT, "sched_process_exit", task_fields, task),
	KIND(SCX_EV_FREE, "sched_process_free", task_fields, task),
	KIND(SCX_EV_SOFTIRQ_ENTRY, "softirq_entry", softirq_fields, softirq),
	KIND(SCX_EV_SOFTIRQ_EXIT, "softirq_exit", softirq_fields, softirq),
	KIND(SCX_EV_IPI_SEND, "ipi_send", ipi_send_fields, ipi),
	KIND(SCX_EV_CPU_FREQUENCY, "cpu_frequency", freq_fields, freq),
	KIND(SCX_EV_CPU_IDLE, "cpu_idle", idle_fields, idle),
	KIND(SCX_EV_CPUHP_ENTER, "cpuhp_enter", cpuhp_enter_fields, cpuhp),
	KIND(SCX_EV_CPUHP_EXIT, "cpuhp_exit", cpuhp_exit_fields, cpuhp),
	KIND(SCX_EV_SCX_ENABLE, "scx_enable", ops_fields, ops),
	KIND(SCX_EV_SCX_DISABLE, "scx_disable", ops_exit_fields, ops),
	KIND(SCX_EV_IRQ_ENTRY, "irq_entry", irq_entry_fields, irq),
	KIND(SCX_EV_IRQ_EXIT, "irq_exit", irq_exit_fields, irq),
	KIND(SCX_EV_TASK_RENAME, "task_rename", rename_fields, rename),
	KIND(SCX_EV_LOST, "lost", lost_fields, lost),
	KIND(SCX_EV_IPI_ENTRY, "ipi_entry", ipi_handler_fields, ipi),
	KIND(SCX_EV_IPI_EXIT, "ipi_exit", ipi_handler_fields, ipi),
	KIND(SCX_EV_DSQ_INSERT, "scx_dsq_insert", dsq_fields, dsq),
	KIND(SCX_EV_RESERVED_26, "reserved_26", reserved_fields, lost),
	KIND(SCX_EV_RESERVED_27, "reserved_27", reserved_fields, lost),
	KIND(SCX_EV_FLIGHT, "flight_trigger", flight_fields, flight),
	KIND(SCX_EV_SCX_DUMP_CPU, "scx_dump_cpu", dump_cpu_fields, dump_cpu),
	KIND(SCX_EV_SCX_DUMP_TASK, "scx_dump_task", dump_task_fields, dump_task),
	KIND(SCX_EV_SCX_DUMP_LINE, "scx_dump_line", dump_line_fields, dump_line),
};

const struct scx_ev_desc *scx_ev_desc(unsigned type)
{
	if (type == SCX_EV_NONE || type >= SCX_EV__COUNT)
		return NULL;
	return &descs[type];
}

const char *scx_ev_name(unsigned type)
{
	const struct scx_ev_desc *d = scx_ev_desc(type);

	return d ? d->name : "unknown";
}

unsigned scx_ev_type_by_name(const char *name, size_t len)
{
	for (unsigned t = 1; t < SCX_EV__COUNT; t++)
		if (strlen(descs[t].name) == len && !memcmp(descs[t].name, name, len))
			return t;
	return SCX_EV_NONE;
}

const struct scx_field *scx_ev_field(unsigned type, const char *name, size_t len)
{
	const struct scx_ev_desc *d = scx_ev_desc(type);

	if (!d)
		return NULL;
	for (unsigned i = 0; i < d->nr_fields; i++)
		if (strlen(d->fields[i].name) == len && !memcmp(d->fields[i].name, name, len))
			return &d->fields[i];
	return NULL;
}

int64_t scx_field_get_int(const struct scx_event *e, const struct scx_field *f)
{
	const char *p = (const char *)e + f->offset;
	int32_t i32;
	uint32_t u32;
	int64_t i64;

	switch (f->kind) {
	case SCX_F_I32:
		memcpy(&i32, p, 4);
		return i32;
	case SCX_F_U32:
		memcpy(&u32, p, 4);
		return u32;
	case SCX_F_I64:
	case SCX_F_U64:
		memcpy(&i64, p, 8);
		return i64;
	default:
		return 0;
	}
}

void scx_field_set_int(struct scx_event *e, const struct scx_field *f, int64_t v)
{
	char *p = (char *)e + f->offset;
	int32_t i32 = (int32_t)v;

	switch (f->kind) {
	case SCX_F_I32:
	case SCX_F_U32:
		memcpy(p, &i32, 4);
		break;
	case SCX_F_I64:
	case SCX_F_U64:
		memcpy(p, &v, 8);
		break;
	default:
		break;
	}
}

void scx_event_init(struct scx_event *e, unsigned type)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->cpu = -1;
	if (type == SCX_EV_SWITCH) {
		e->sw.dsq_id = SCX_DSQ_NONE;
		e->sw.layer_id = -1;
	}
	if (type == SCX_EV_DSQ_INSERT)
		e->dsq.from_dsq_id = SCX_DSQ_NONE;
}

bool scx_event_field_present(const struct scx_event *e, unsigned i)
{
	const struct scx_ev_desc *d = scx_ev_desc(e->type);
	const struct scx_field *f;

	if (!d || i >= scx_event_nr_fields(e, d))
		return false;
	f = &d->fields[i];
	if (e->type == SCX_EV_SWITCH && i >= SCX_SW_SCX_FIRST && i < SCX_SW_CGROUP_FIRST)
		return scx_event_has_scx(e);
	if ((e->type == SCX_EV_SWITCH && i >= SCX_SW_CGROUP_FIRST) ||
	    (scx_event_is_wakeup(e->type) && f->offset == offsetof(struct scx_event, wake.cgroup)))
		return scx_field_get_int(e, f) != SCX_CGROUP_NONE;
	return true;
}

const char *scx_state_str(int64_t state, char *buf, size_t size)
{
	static const char bits[] = "SDTtXZPI";
	size_t n = 0;

	if (size < 16)
		return "?";
	if (state & SCX_STATE_PREEMPTED) {
		snprintf(buf, size, "R+");
		return buf;
	}
	if (!(state & 0xff)) {
		snprintf(buf, size, "R");
		return buf;
	}
	for (int i = 0; i < 8 && n + 2 < size; i++) {
		if (!(state & (1 << i)))
			continue;
		if (n)
			buf[n++] = '|';
		buf[n++] = bits[i];
	}
	buf[n] = 0;
	return buf;
}
