// SPDX-License-Identifier: GPL-2.0
/* Live capture: probe, load, attach and consume bpf/events.bpf.c (see capture.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "../../bpf/events.h"
#include "capture/bpf_missed.h"
#include "capture/capture.h"
#include "capture/scx_dump.h"
#include "core/libbpf_print.h"
#include "core/reorder.h"
#include "events.skel.h"
#include "json/json.h"
#include "core/util.h"

_Static_assert(EV_MAX_CPUS == SCX_MAX_CPUS, "the --cpus bitmap covers every cpu id");

/* capture.h's public selection bits are the BPF program's, bit for bit */
#define SAME_BIT(x) _Static_assert(SCX_CAP_##x == EVS_##x, "selection bit " #x " drifted")
SAME_BIT(SWITCH);
SAME_BIT(WAKING);
SAME_BIT(WAKEUP);
SAME_BIT(WAKEUP_NEW);
SAME_BIT(MIGRATE);
SAME_BIT(FORK);
SAME_BIT(EXEC);
SAME_BIT(EXIT);
SAME_BIT(FREE);
SAME_BIT(SOFTIRQ);
SAME_BIT(IPI);
SAME_BIT(FREQ);
SAME_BIT(IDLE);
SAME_BIT(CPUHP);
SAME_BIT(SCX);
#undef SAME_BIT
_Static_assert(SCX_CAP_ALL == (EVS_SCX << 1) - 1, "a selection bit without a SCX_CAP_ name");

#define DEFAULT_RING (64ull << 20)
#define DEFAULT_WAKEUP (256ull << 10)
#define DEFAULT_FLUSH_NS 50000000ull

/* Every program, the selection bit it serves and the tracepoint it needs. */
enum prog_kind { P_TP, P_TP_OPT, P_SCX_TP, P_SCX_KPROBE };

static const struct prog_desc {
	const char *prog;
	uint32_t bit;
	const char *target; /* tracepoint, or kernel function for kprobes */
	enum prog_kind kind;
	const char *unless; /* not loaded where the kernel has this function */
} progs[] = {
	{ "on_switch", EVS_SWITCH, "sched_switch", P_TP },
	{ "on_switch_scx", EVS_SWITCH, "sched_switch", P_SCX_TP },
	{ "on_waking", EVS_WAKING, "sched_waking", P_TP },
	{ "on_wakeup", EVS_WAKEUP, "sched_wakeup", P_TP },
	{ "on_wakeup_new", EVS_WAKEUP_NEW, "sched_wakeup_new", P_TP },
	{ "on_migrate", EVS_MIGRATE, "sched_migrate_task", P_TP },
	{ "on_fork", EVS_FORK, "sched_process_fork", P_TP },
	{ "on_exec", EVS_EXEC, "sched_process_exec", P_TP },
	{ "on_exit", EVS_EXIT, "sched_process_exit", P_TP },
	{ "on_free", EVS_FREE, "sched_process_free", P_TP },
	{ "on_softirq_entry", EVS_SOFTIRQ, "softirq_entry", P_TP },
	{ "on_softirq_exit", EVS_SOFTIRQ, "softirq_exit", P_TP },
	{ "on_ipi_send_cpu", EVS_IPI, "ipi_send_cpu", P_TP },
	{ "on_ipi_send_cpumask", EVS_IPI, "ipi_send_cpumask", P_TP },
	{ "on_ipi_entry", EVS_IPI, "ipi_entry", P_TP_OPT },
	{ "on_ipi_exit", EVS_IPI, "ipi_exit", P_TP_OPT },
	{ "on_cpu_frequency", EVS_FREQ, "cpu_frequency", P_TP },
	{ "on_cpu_idle", EVS_IDLE, "cpu_idle", P_TP },
	{ "on_cpuhp_enter", EVS_CPUHP, "cpuhp_enter", P_TP },
	{ "on_cpuhp_exit", EVS_CPUHP, "cpuhp_exit", P_TP },
	{ "scx_insert", EVS_SCX, "scx_bpf_dsq_insert", P_SCX_KPROBE },
	{ "scx_insert_v2", EVS_SCX, "scx_bpf_dsq_insert___v2", P_SCX_KPROBE },
	{ "scx_dispatch", EVS_SCX, "scx_bpf_dispatch", P_SCX_KPROBE },
	{ "scx_insert_vtime", EVS_SCX, "scx_bpf_dsq_insert_vtime", P_SCX_KPROBE },
	{ "scx_dispatch_vtime", EVS_SCX, "scx_bpf_dispatch_vtime", P_SCX_KPROBE },
	{ "scx_insert_vtime_args", EVS_SCX, "__scx_bpf_dsq_insert_vtime", P_SCX_KPROBE },
	{ "scx_reg", EVS_SCX, "bpf_scx_reg", P_SCX_KPROBE },
	/* the disable work says why the scheduler left; unreg only that it did */
	{ "scx_unreg", EVS_SCX, "bpf_scx_unreg", P_SCX_KPROBE, "scx_ops_disable_workfn" },
	{ "scx_disable_work", EVS_SCX, "scx_ops_disable_workfn", P_SCX_KPROBE },
	{ "on_scx_dump", EVS_SCX, "sched_ext_dump", P_SCX_TP },
	/* moves between DSQs; 6.13-6.16 keep the 6.12 names as wrappers of the new */
	{ "scx_move", EVS_SCX, "scx_bpf_dsq_move", P_SCX_KPROBE },
	{ "scx_move_ret", EVS_SCX, "scx_bpf_dsq_move", P_SCX_KPROBE },
	{ "scx_move_vtime", EVS_SCX, "scx_bpf_dsq_move_vtime", P_SCX_KPROBE },
	{ "scx_move_vtime_ret", EVS_SCX, "scx_bpf_dsq_move_vtime", P_SCX_KPROBE },
	{ "scx_from_dsq", EVS_SCX, "scx_bpf_dispatch_from_dsq", P_SCX_KPROBE, "scx_bpf_dsq_move" },
	{ "scx_from_dsq_ret", EVS_SCX, "scx_bpf_dispatch_from_dsq", P_SCX_KPROBE,
	  "scx_bpf_dsq_move" },
	{ "scx_vtime_from_dsq", EVS_SCX, "scx_bpf_dispatch_vtime_from_dsq", P_SCX_KPROBE,
	  "scx_bpf_dsq_move_vtime" },
	{ "scx_vtime_from_dsq_ret", EVS_SCX, "scx_bpf_dispatch_vtime_from_dsq", P_SCX_KPROBE,
	  "scx_bpf_dsq_move_vtime" },
};

static const struct {
	const char *word;
	uint32_t bits;
} words[] = {
	{ "switch", EVS_SWITCH },
	{ "waking", EVS_WAKING },
	{ "wakeup", EVS_WAKEUP },
	{ "wakeup_new", EVS_WAKEUP_NEW },
	{ "migrate", EVS_MIGRATE },
	{ "fork", EVS_FORK },
	{ "exec", EVS_EXEC },
	{ "exit", EVS_EXIT },
	{ "free", EVS_FREE },
	{ "softirq", EVS_SOFTIRQ },
	{ "ipi", EVS_IPI },
	{ "frequency", EVS_FREQ },
	{ "idle", EVS_IDLE },
	{ "cpuhp", EVS_CPUHP },
	{ "scx", EVS_SCX },
	{ "sched", EVS_SWITCH | EVS_WAKING | EVS_WAKEUP | EVS_WAKEUP_NEW | EVS_MIGRATE },
	{ "process", EVS_FORK | EVS_EXEC | EVS_EXIT | EVS_FREE },
	{ "cpu", EVS_SOFTIRQ | EVS_IPI | EVS_FREQ | EVS_IDLE | EVS_CPUHP },
	{ "all", SCX_CAP_ALL },
};

struct scx_capture {
	struct events_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[SCX_ARRAY_SIZE(progs)];
	struct scx_capture_opts o;
	char comm[16];
	uint32_t attached;
	scx_capture_fn fn;
	void *ctx;
	int cb_err;
	unsigned nr_cpus;
	uint64_t *lost;	     /* reported so far, per cpu */
	uint64_t *ring_lost; /* of which the ring had no room for */
	uint64_t *stat_buf;  /* scratch for percpu lookups */
	uint64_t *arrived;   /* records decoded, per cpu that wrote them */
	uint64_t unarrived;  /* written and never read (see report_unarrived) */
	uint64_t delivered;
	uint64_t links_missed; /* kprobe misses of the links detached */
	struct scx_dump dump;  /* the sched_ext debug dump being parsed */
	/*
	 * Staging ships each CPU's records on its own schedule, so the ring
	 * holds them in order per CPU only.  Consumers follow tasks across
	 * CPUs (a wakeup on one, the switch-in on another) and need one
	 * order: records wait here until nothing older can still come.
	 */
	struct scx_reorder *order;
	uint64_t order_window;
	bool stopped;
};

int scx_capture_parse_events(const char *s, uint32_t *mask)
{
	const char *p = s;
	uint32_t m = 0;

	while (*p) {
		size_t n = strcspn(p, ",");
		size_t i;

		for (i = 0; i < SCX_ARRAY_SIZE(words); i++)
			if (strlen(words[i].word) == n && !strncmp(words[i].word, p, n))
				break;
		if (i == SCX_ARRAY_SIZE(words))
			return -EINVAL;
		m |= words[i].bits;
		p += n;
		if (*p == ',')
			p++;
	}
	if (!m)
		return -EINVAL;
	*mask = m;
	return 0;
}

void scx_capture_events_str(uint32_t mask, struct scx_buf *b)
{
	bool first = true;

	for (size_t i = 0; i < SCX_ARRAY_SIZE(words); i++) {
		/* single-bit words only: groups would repeat them */
		if (__builtin_popcount(words[i].bits) != 1 || !(mask & words[i].bits))
			continue;
		scx_buf_printf(b, "%s%s", first ? "" : ",", words[i].word);
		first = false;
	}
	if (first)
		scx_buf_addstr(b, "");
}

/* ---- decoding ------------------------------------------------------------- */

static void copy_str(char *dst, const char *src, size_t n)
{
	memcpy(dst, src, n);
	dst[n - 1] = '\0';
}

/*
 * The kernel's words for its enum scx_exit_kind (kernel/sched/ext.c,
 * scx_exit_reason()): the BPF side reads the kind, not the string, which the
 * kernel fills in only later.
 */
static const char *exit_reason(int32_t kind)
{
	switch (kind) {
	case 0:
		return "";
	case 64:
		return "unregistered from user space";
	case 65:
		return "unregistered from BPF";
	case 66:
		return "unregistered from the main kernel";
	case 67:
		return "disabled by sysrq-S";
	case 1024:
		return "runtime error";
	case 1025:
		return "scx_bpf_error";
	case 1026:
		return "runnable task stall";
	default:
		return "<UNKNOWN>";
	}
}

static const uint16_t rec_size[EVK__COUNT] = {
	[EVK_SWITCH] = sizeof(struct ev_switch),
	[EVK_SWITCH_SCX] = sizeof(struct ev_switch_scx),
	[EVK_WAKING] = sizeof(struct ev_wakeup),
	[EVK_WAKEUP] = sizeof(struct ev_wakeup),
	[EVK_WAKEUP_NEW] = sizeof(struct ev_wakeup),
	[EVK_MIGRATE] = sizeof(struct ev_migrate),
	[EVK_FORK] = sizeof(struct ev_fork),
	[EVK_EXEC] = sizeof(struct ev_exec),
	[EVK_EXIT] = sizeof(struct ev_task),
	[EVK_FREE] = sizeof(struct ev_task),
	[EVK_SOFTIRQ_ENTRY] = sizeof(struct ev_hdr),
	[EVK_SOFTIRQ_EXIT] = sizeof(struct ev_hdr),
	[EVK_IPI_SEND] = sizeof(struct ev_ipi),
	[EVK_IPI_ENTRY] = sizeof(struct ev_ipi),
	[EVK_IPI_EXIT] = sizeof(struct ev_ipi),
	[EVK_FREQ] = sizeof(struct ev_cpuval),
	[EVK_IDLE] = sizeof(struct ev_cpuval),
	[EVK_CPUHP_ENTER] = sizeof(struct ev_cpuhp),
	[EVK_CPUHP_EXIT] = sizeof(struct ev_cpuhp),
	[EVK_SCX_ENABLE] = sizeof(struct ev_scx_ops),
	[EVK_SCX_DISABLE] = sizeof(struct ev_scx_ops),
	[EVK_DSQ_INSERT] = sizeof(struct ev_dsq_insert),
	[EVK_SCX_DUMP] = sizeof(struct ev_scx_dump),
};

static const uint16_t wire_type[EVK__COUNT] = {
	[EVK_SWITCH] = SCX_EV_SWITCH,
	[EVK_SWITCH_SCX] = SCX_EV_SWITCH,
	[EVK_WAKING] = SCX_EV_WAKING,
	[EVK_WAKEUP] = SCX_EV_WAKEUP,
	[EVK_WAKEUP_NEW] = SCX_EV_WAKEUP_NEW,
	[EVK_MIGRATE] = SCX_EV_MIGRATE,
	[EVK_FORK] = SCX_EV_FORK,
	[EVK_EXEC] = SCX_EV_EXEC,
	[EVK_EXIT] = SCX_EV_EXIT,
	[EVK_FREE] = SCX_EV_FREE,
	[EVK_SOFTIRQ_ENTRY] = SCX_EV_SOFTIRQ_ENTRY,
	[EVK_SOFTIRQ_EXIT] = SCX_EV_SOFTIRQ_EXIT,
	[EVK_IPI_SEND] = SCX_EV_IPI_SEND,
	[EVK_IPI_ENTRY] = SCX_EV_IPI_ENTRY,
	[EVK_IPI_EXIT] = SCX_EV_IPI_EXIT,
	[EVK_FREQ] = SCX_EV_CPU_FREQUENCY,
	[EVK_IDLE] = SCX_EV_CPU_IDLE,
	[EVK_CPUHP_ENTER] = SCX_EV_CPUHP_ENTER,
	[EVK_CPUHP_EXIT] = SCX_EV_CPUHP_EXIT,
	[EVK_SCX_ENABLE] = SCX_EV_SCX_ENABLE,
	[EVK_SCX_DISABLE] = SCX_EV_SCX_DISABLE,
	[EVK_DSQ_INSERT] = SCX_EV_DSQ_INSERT,
	[EVK_SCX_DUMP] = SCX_EV_SCX_DUMP_LINE,
};

int scx_capture_decode(const void *buf, size_t len, struct scx_event *e)
{
	/* the largest record, aligned, so every payload read below is in bounds */
	union {
		struct ev_hdr h;
		struct ev_switch_scx sws;
		struct ev_wakeup wk;
		struct ev_migrate mg;
		struct ev_fork fk;
		struct ev_exec ex;
		struct ev_task tk;
		struct ev_ipi ipi;
		struct ev_cpuval cv;
		struct ev_cpuhp hp;
		struct ev_scx_ops ops;
		struct ev_dsq_insert dq;
		struct ev_scx_dump dump;
	} r;
	unsigned size, kind;

	if (len < sizeof(struct ev_hdr))
		return -EINVAL;
	memcpy(&r.h, buf, sizeof(r.h));
	size = r.h.size;
	kind = r.h.type;
	if (size < sizeof(struct ev_hdr) || size % 8 || size > len)
		return -EINVAL;
	if (kind == 0 || kind >= EVK__COUNT) {
		scx_event_init(e, SCX_EV_NONE);
		return size; /* a newer producer: skip it */
	}
	if (size < rec_size[kind] || size > sizeof(r))
		return -EINVAL;
	memcpy(&r, buf, size);

	scx_event_init(e, wire_type[kind]);
	e->ts = r.h.ts;
	e->cpu = r.h.cpu;
	switch (kind) {
	case EVK_SWITCH_SCX:
		e->sw.dsq_id = r.sws.dsq_id;
		e->sw.dsq_lat_ns = r.sws.dsq_lat_ns;
		e->sw.dsq_vtime = r.sws.dsq_vtime;
		e->sw.slice_ns = r.sws.slice_ns;
		e->sw.prev_slice_used_ns = r.sws.prev_slice_used_ns;
		e->sw.dsq_depth = r.sws.dsq_depth;
		/* fall through */
	case EVK_SWITCH:
		e->sw.prev_pid = r.sws.sw.prev_pid;
		e->sw.prev_tgid = r.sws.sw.prev_tgid;
		e->sw.prev_prio = r.sws.sw.prev_prio;
		e->sw.next_pid = r.sws.sw.next_pid;
		e->sw.next_tgid = r.sws.sw.next_tgid;
		e->sw.next_prio = r.sws.sw.next_prio;
		e->sw.prev_state = r.h.aux;
		copy_str(e->sw.prev_comm, r.sws.sw.prev_comm, SCX_COMM_LEN);
		copy_str(e->sw.next_comm, r.sws.sw.next_comm, SCX_COMM_LEN);
		e->sw.prev_cgroup = r.sws.sw.prev_cgroup;
		e->sw.next_cgroup = r.sws.sw.next_cgroup;
		break;
	case EVK_WAKING:
	case EVK_WAKEUP:
	case EVK_WAKEUP_NEW:
		e->wake.pid = r.wk.pid;
		e->wake.tgid = r.wk.tgid;
		e->wake.prio = r.wk.prio;
		e->wake.target_cpu = r.wk.target_cpu;
		e->wake.waker_pid = r.wk.waker_pid;
		e->wake.waker_tgid = r.wk.waker_tgid;
		copy_str(e->wake.comm, r.wk.comm, SCX_COMM_LEN);
		e->wake.cgroup = r.wk.cgroup;
		break;
	case EVK_MIGRATE:
		e->mig.pid = r.mg.pid;
		e->mig.tgid = r.mg.tgid;
		e->mig.prio = r.mg.prio;
		e->mig.orig_cpu = r.mg.orig_cpu;
		e->mig.dest_cpu = r.mg.dest_cpu;
		copy_str(e->mig.comm, r.mg.comm, SCX_COMM_LEN);
		break;
	case EVK_FORK:
		e->fork.parent_pid = r.fk.parent_pid;
		e->fork.parent_tgid = r.fk.parent_tgid;
		e->fork.child_pid = r.fk.child_pid;
		e->fork.child_tgid = r.fk.child_tgid;
		copy_str(e->fork.parent_comm, r.fk.parent_comm, SCX_COMM_LEN);
		copy_str(e->fork.child_comm, r.fk.child_comm, SCX_COMM_LEN);
		break;
	case EVK_EXEC:
		e->exec.pid = r.ex.pid;
		e->exec.tgid = r.ex.tgid;
		e->exec.old_pid = r.ex.old_pid;
		copy_str(e->exec.comm, r.ex.comm, SCX_COMM_LEN);
		copy_str(e->exec.filename, r.ex.filename, SCX_PATH_LEN);
		break;
	case EVK_EXIT:
	case EVK_FREE:
		e->task.pid = r.tk.pid;
		e->task.tgid = r.tk.tgid;
		e->task.prio = r.tk.prio;
		copy_str(e->task.comm, r.tk.comm, SCX_COMM_LEN);
		break;
	case EVK_SOFTIRQ_ENTRY:
	case EVK_SOFTIRQ_EXIT:
		e->softirq.vec = r.h.aux;
		break;
	case EVK_IPI_SEND:
		e->ipi.target_cpu = r.ipi.target_cpu;
		e->ipi.callsite = r.ipi.callsite;
		break;
	case EVK_IPI_ENTRY:
	case EVK_IPI_EXIT:
		e->ipi.target_cpu = r.h.cpu;
		e->ipi.callsite = r.ipi.callsite;
		break;
	case EVK_FREQ:
		e->freq.cpu_id = r.cv.cpu_id;
		e->freq.khz = r.cv.val;
		break;
	case EVK_IDLE:
		e->idle.cpu_id = r.cv.cpu_id;
		e->idle.state = r.cv.val;
		break;
	case EVK_CPUHP_ENTER:
	case EVK_CPUHP_EXIT:
		e->cpuhp.cpu_id = r.hp.cpu_id;
		e->cpuhp.target = r.hp.target;
		e->cpuhp.idx = r.hp.idx;
		e->cpuhp.ret = kind == EVK_CPUHP_EXIT ? r.hp.ret : 0;
		break;
	case EVK_SCX_ENABLE:
	case EVK_SCX_DISABLE:
		copy_str(e->ops.name, r.ops.name, SCX_NAME_LEN);
		if (kind == EVK_SCX_ENABLE)
			break;
		e->ops.exit_kind = r.ops.exit_kind;
		e->ops.exit_code = r.ops.exit_code;
		snprintf(e->ops.reason, sizeof(e->ops.reason), "%s", exit_reason(r.ops.exit_kind));
		copy_str(e->ops.msg, r.ops.msg, SCX_EXIT_MSG_LEN);
		break;
	case EVK_DSQ_INSERT:
		e->dsq.pid = r.dq.pid;
		e->dsq.tgid = r.dq.tgid;
		e->dsq.dsq_id = r.dq.dsq_id;
		e->dsq.vtime = r.dq.vtime;
		e->dsq.slice_ns = r.dq.slice_ns;
		e->dsq.depth = r.dq.depth;
		copy_str(e->dsq.comm, r.dq.comm, SCX_COMM_LEN);
		e->dsq.from_dsq_id = r.dq.from_dsq_id;
		break;
	case EVK_SCX_DUMP:
		/* deliver_records() numbers the lines and parses them whole */
		e->dump_line.len = strnlen(r.dump.line, EV_DUMP_LINE_LEN);
		copy_str(e->dump_line.line, r.dump.line, SCX_DUMP_LINE_LEN);
		break;
	}
	return size;
}

/* ---- consuming ------------------------------------------------------------- */

static int deliver_records(struct scx_capture *c, const void *data, size_t len)
{
	const char *p = data;
	struct scx_event e;
	int n;

	while (len > 0) {
		n = scx_capture_decode(p, len, &e);
		if (n < 0) {
			/* our own BPF wrote it: this is a bug, not input (what
			 * is skipped is counted lost at the stop) */
			scx_warn("corrupt BPF record (%zu bytes left): skipped", len);
			return 0;
		}
		if (e.cpu >= 0 && (unsigned)e.cpu < c->nr_cpus)
			c->arrived[e.cpu]++;
		if (e.type == SCX_EV_SCX_DUMP_LINE) {
			const char *line = p + offsetof(struct ev_scx_dump, line);
			struct scx_event rec[2];
			int nr = scx_dump__line(&c->dump, line, e.dump_line.len, e.ts, e.cpu, rec);

			for (int i = 0; i < nr; i++)
				scx_reorder__push(c->order, &rec[i]);
		} else if (e.type != SCX_EV_NONE) {
			scx_reorder__push(c->order, &e);
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Hand over, oldest first, the events nothing older can precede any more. */
static int release(struct scx_capture *c, bool drain)
{
	struct scx_event e;

	if (!drain && c->order_window) {
		uint64_t now = scx_now_boot_ns();

		/* a window longer than the uptime holds everything, never wraps */
		scx_reorder__advance(c->order, now > c->order_window ? now - c->order_window : 0);
	}
	while (!c->cb_err && scx_reorder__pop(c->order, &e, drain)) {
		int err = c->fn(c->ctx, &e);

		c->delivered++;
		if (err)
			return c->cb_err = err;
	}
	return c->cb_err;
}

static int on_sample(void *ctx, void *data, size_t len)
{
	struct scx_capture *c = ctx;

	return deliver_records(c, data, len);
}

/* count records of cpu lost: an SCX_EV_LOST event now, and in the totals */
static void push_lost(struct scx_capture *c, unsigned cpu, uint64_t count)
{
	struct scx_event e;

	scx_event_init(&e, SCX_EV_LOST);
	e.ts = scx_now_boot_ns();
	e.cpu = cpu;
	e.lost.count = count;
	c->lost[cpu] += count;
	scx_reorder__push(c->order, &e);
}

/* Turn new ring-buffer reservation failures into SCX_EV_LOST events. */
static int report_lost(struct scx_capture *c)
{
	uint32_t key = EV_STAT_LOST;

	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.stats), &key, c->stat_buf))
		return -errno;
	for (unsigned i = 0; i < c->nr_cpus; i++) {
		if (c->stat_buf[i] <= c->ring_lost[i])
			continue;
		push_lost(c, i, c->stat_buf[i] - c->ring_lost[i]);
		c->ring_lost[i] = c->stat_buf[i];
	}
	return 0;
}

int scx_capture__poll(struct scx_capture *c, int timeout_ms)
{
	uint64_t before = c->delivered;
	int err;

	if (c->stopped)
		return 0;
	err = ring_buffer__poll(c->rb, timeout_ms);
	/* the consumer is woken rarely on purpose: take whatever is there */
	if (err >= 0)
		err = ring_buffer__consume(c->rb);
	if (err == -EINTR)
		err = 0;
	if (c->cb_err)
		return c->cb_err;
	if (err < 0)
		return err;
	err = report_lost(c);
	if (!err)
		err = release(c, false);
	if (err)
		return err;
	return c->delivered - before;
}

/*
 * The stage of every CPU into vals, once no program is appending to one: a
 * program that was running when its link went may still be (a vCPU the
 * host did not run for a while), and its half-built record would be read
 * without being counted.  Bounded: after 100 ms what is there is taken.
 */
static int read_stage(struct scx_capture *c, char *vals, size_t vsz)
{
	uint32_t zero = 0;

	for (int tries = 0;; tries++) {
		bool busy = false;

		if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.stage), &zero, vals))
			return -errno;
		for (unsigned i = 0; i < c->nr_cpus; i++)
			busy |= ((struct ev_stage *)(vals + i * vsz))->busy != 0;
		if (!busy || tries == 50)
			return 0;
		usleep(2000);
	}
}

/*
 * Records the programs handed over (to the ring, or still staged) that
 * never arrived are lost like those the ring had no room for: counted on
 * their CPU and said, never silent.  None should be; this is the check
 * that the path between the programs and this process loses nothing.
 */
static void report_unarrived(struct scx_capture *c, const uint64_t *emitted)
{
	for (unsigned i = 0; i < c->nr_cpus; i++) {
		if (emitted[i] <= c->arrived[i])
			continue;
		push_lost(c, i, emitted[i] - c->arrived[i]);
		c->unarrived += emitted[i] - c->arrived[i];
	}
	if (c->unarrived)
		scx_warn("%llu records the BPF programs wrote never arrived: counted as lost",
			 (unsigned long long)c->unarrived);
}

int scx_capture__stop(struct scx_capture *c)
{
	size_t vsz = sizeof(struct ev_stage);
	uint32_t emitted_key = EV_STAT_EMITTED;
	uint64_t *emitted = c->stat_buf; /* until report_lost() reuses it */
	char *vals = NULL;
	int err = 0;

	if (c->stopped)
		return 0;
	c->stopped = true;
	if (c->dump.bad)
		scx_warn("%llu lines of the sched_ext debug dump did not parse: kept as text only "
			 "(scx_dump_line records)",
			 (unsigned long long)c->dump.bad);
	for (size_t i = 0; i < SCX_ARRAY_SIZE(progs); i++) {
		if (c->links[i]) /* a link's count goes with it */
			c->links_missed += scx_bpf_link_missed(bpf_link__fd(c->links[i]));
		bpf_link__destroy(c->links[i]);
		c->links[i] = NULL;
	}
	/* let programs that were running on other CPUs finish their append */
	usleep(2000);
	if (c->cb_err)
		return c->cb_err;
	err = ring_buffer__consume(c->rb);
	if (err < 0)
		return c->cb_err ? c->cb_err : err;
	err = 0;
	/*
	 * What the programs handed to the ring, read before the stage: a
	 * flush in between moves records out of both, where reading in the
	 * other order would count them twice and call them lost.
	 */
	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.stats), &emitted_key, emitted))
		err = -errno;
	/* records still staged per CPU are the newest of each CPU: after the ring */
	vsz = (vsz + 7) & ~7ul;
	vals = scx_xcalloc(c->nr_cpus, vsz);
	if (!err && !(err = read_stage(c, vals, vsz))) {
		for (unsigned i = 0; i < c->nr_cpus && !err; i++) {
			struct ev_stage *st = (void *)(vals + i * vsz);

			if (st->len <= EV_STAGE_SIZE) {
				err = deliver_records(c, st->buf, st->len);
				emitted[i] += st->nr;
			}
		}
	}
	free(vals);
	if (!err)
		report_unarrived(c, emitted);
	if (!err)
		err = report_lost(c);
	if (!err)
		err = release(c, true);
	if (scx_reorder__late(c->order))
		scx_warn("%llu events came later than the %llu ms reorder window: "
			 "stream order is not exact (raise --flush's margin or use --no-stage)",
			 (unsigned long long)scx_reorder__late(c->order),
			 (unsigned long long)(c->order_window / 1000000));
	return err;
}

/* ---- set-up ------------------------------------------------------------------ */

static bool btf_has(const struct btf *btf, const char *prefix, const char *name, int kind)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s%s", prefix, name);
	return btf && btf__find_by_name_kind(btf, buf, kind) > 0;
}

/* Does btf_trace_sched_switch take prev_state (5.18+)? */
bool scx_capture_switch_has_state_arg(const struct btf *btf)
{
	const struct btf_type *t;
	int id = btf__find_by_name_kind(btf, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);

	if (id <= 0)
		return false;
	t = btf__type_by_id(btf, id);
	while (t && (btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) && btf_vlen(t) >= 5;
}

/*
 * A kprobe goes on its kernel function where the kernel has that name (a
 * kfunc's other name may be there instead) and not the newer function it
 * would duplicate (d->unless).
 */
bool scx_capture_kfunc_wanted(const struct btf *btf, const char *kfunc, const char *unless)
{
	return btf_has(btf, "", kfunc, BTF_KIND_FUNC) &&
	       !(unless && btf_has(btf, "", unless, BTF_KIND_FUNC));
}

static bool kprobe_wanted(const struct btf *btf, const struct prog_desc *d)
{
	return scx_capture_kfunc_wanted(btf, d->target, d->unless);
}

size_t scx_capture_scx_kprobes(const struct btf *btf, const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < SCX_ARRAY_SIZE(progs); i++) {
		const struct prog_desc *d = &progs[i];

		if (d->kind != P_SCX_KPROBE || !kprobe_wanted(btf, d))
			continue;
		/* entry and return probes share their function */
		if (n > 0 && !strcmp(names[n - 1], d->target))
			continue;
		if (n == max)
			break;
		names[n++] = d->target;
	}
	return n;
}

static void fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

void scx_capture_load_error(int e, char *err, size_t errsz)
{
	if (e == EPERM || e == EACCES)
		fail(err, errsz,
		     "cannot load BPF programs: %s; run scx-events as root "
		     "(it needs CAP_BPF and CAP_PERFMON)",
		     strerror(e));
	else
		fail(err, errsz, "cannot load BPF programs: %s (run with -v for the verifier log)",
		     strerror(e));
}

bool scx_capture_have_sched_ext(const struct btf *btf)
{
	return access("/sys/kernel/sched_ext", F_OK) == 0 &&
	       btf_has(btf, "", "sched_ext_ops", BTF_KIND_STRUCT);
}

/* Which programs load: the selected events that this kernel has, and the
 * sched_ext ones only with sched_ext. */
static void select_programs(struct scx_capture *c, const struct btf *btf, uint32_t want, bool scx)
{
	for (size_t i = 0; i < SCX_ARRAY_SIZE(progs); i++) {
		const struct prog_desc *d = &progs[i];
		struct bpf_program *p = bpf_object__find_program_by_name(c->skel->obj, d->prog);
		bool on = want & d->bit;

		if (d->kind == P_SCX_TP || d->kind == P_SCX_KPROBE)
			on = on && scx;
		if (d->kind == P_SCX_TP)
			on = scx && (want & d->bit);
		if (!strcmp(d->prog, "on_switch") && scx)
			on = false; /* on_switch_scx replaces it */
		if (on && (d->kind == P_TP || d->kind == P_TP_OPT || d->kind == P_SCX_TP) &&
		    !btf_has(btf, "btf_trace_", d->target, BTF_KIND_TYPEDEF)) {
			/* ipi_entry/exit exist on some architectures only: no noise */
			if (d->kind == P_TP)
				scx_warn("note: tracepoint %s is not in this kernel: its events "
					 "are skipped",
					 d->target);
			else
				scx_debug(1,
					  "note: tracepoint %s is not in this kernel: its "
					  "events are skipped",
					  d->target);
			on = false;
		}
		if (on && d->kind == P_SCX_KPROBE && !kprobe_wanted(btf, d))
			on = false;
		bpf_program__set_autoload(p, on);
	}
}

/* The options the BPF programs read as constants, and the maps' sizes. */
static void configure_bpf(struct scx_capture *c, const struct scx_capture_opts *o,
			  const struct btf *btf, bool scx)
{
	c->skel->rodata->stage_on = !o->no_stage;
	c->skel->rodata->flush_ns = o->flush_ns ? o->flush_ns : DEFAULT_FLUSH_NS;
	c->skel->rodata->wakeup_bytes = o->wakeup_bytes ? o->wakeup_bytes : DEFAULT_WAKEUP;
	c->skel->rodata->sample_n = o->sample;
	c->skel->rodata->filter_pid = o->pid;
	c->skel->rodata->filter_tgid = o->tgid;
	if (o->comm) {
		char comm[16] = { 0 };

		strncpy(comm, o->comm, sizeof(comm) - 1);
		memcpy(c->comm, comm, sizeof(comm));
		c->skel->rodata->filter_comm_on = 1;
		memcpy((void *)c->skel->rodata->filter_comm, comm, sizeof(comm));
	}
	if (o->cpus) {
		c->skel->rodata->filter_cpus_on = 1;
		for (unsigned cpu = 0; cpu < o->nr_cpu_bits && cpu < EV_MAX_CPUS; cpu++)
			if (o->cpus[cpu / 8] & (1u << (cpu % 8)))
				c->skel->rodata->filter_cpus[cpu / 64] |= 1ull << (cpu % 64);
	}
	c->skel->rodata->sw_state_arg = scx_capture_switch_has_state_arg(btf);
	c->skel->rodata->cgroup_on = o->cgroups;
	bpf_map__set_max_entries(c->skel->maps.rb, o->ring_size ? o->ring_size : DEFAULT_RING);
	if (!scx) {
		bpf_map__set_max_entries(c->skel->maps.scx_tasks, 1);
		bpf_map__set_max_entries(c->skel->maps.scx_moves, 1);
	}
}

/* Attach what loaded.  A tracepoint that fails is an error; kprobes that fail
 * (kernels without kprobes) make one note and the capture goes on. */
static int attach_programs(struct scx_capture *c, char *err, size_t errsz)
{
	struct scx_buf no_kprobe = { 0 };
	const char *last_failed = NULL;
	int e;

	for (size_t i = 0; i < SCX_ARRAY_SIZE(progs); i++) {
		struct bpf_program *p =
			bpf_object__find_program_by_name(c->skel->obj, progs[i].prog);

		if (!bpf_program__autoload(p))
			continue;
		c->links[i] = bpf_program__attach(p);
		if (c->links[i]) {
			c->attached |= progs[i].bit;
			continue;
		}
		e = errno;
		if (progs[i].kind == P_SCX_KPROBE) {
			/* one note for them all: a kernel without kprobes fails each;
			 * an entry and a return probe of one function are neighbours */
			if (!last_failed || strcmp(last_failed, progs[i].target))
				scx_buf_printf(&no_kprobe, "%s%s (%s)", no_kprobe.len ? ", " : "",
					       progs[i].target, strerror(e));
			last_failed = progs[i].target;
			continue;
		}
		fail(err, errsz, "cannot attach to tracepoint %s: %s", progs[i].target,
		     strerror(e));
		scx_buf_free(&no_kprobe);
		return e ? -e : -EINVAL;
	}
	if (no_kprobe.len)
		scx_warn("note: cannot attach kprobes to %s: sched_ext DSQ data and moves are "
			 "incomplete",
			 no_kprobe.data);
	scx_buf_free(&no_kprobe);
	if (!c->attached) {
		fail(err, errsz, "none of the selected events exist in this kernel");
		return -ENOENT;
	}
	return 0;
}

struct scx_capture *scx_capture__open(const struct scx_capture_opts *o, scx_capture_fn fn,
				      void *ctx, char *err, size_t errsz)
{
	struct scx_capture *c = scx_xcalloc(1, sizeof(*c));
	struct btf *btf = NULL;
	bool scx = false;
	uint32_t want;
	int e = 0, ncpu;

	c->o = *o;
	c->fn = fn;
	c->ctx = ctx;
	/* a staged record waits at most flush_ns; twice that covers the ring's
	 * own delay.  Unstaged records are in reservation order, off by the few
	 * ns between a timestamp and its reservation. */
	c->order_window =
		o->no_stage ? 10000000ull : 2 * (o->flush_ns ? o->flush_ns : DEFAULT_FLUSH_NS);
	c->order = scx_reorder__new(c->order_window);
	scx_dump__init(&c->dump);
	want = o->events ? o->events : SCX_CAP_ALL;
	libbpf_set_print(scx_libbpf_print);

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		e = errno;
		fail(err, errsz,
		     "kernel BTF (/sys/kernel/btf/vmlinux) is missing: %s; "
		     "scx-events needs a kernel built with CONFIG_DEBUG_INFO_BTF=y",
		     strerror(e));
		goto fail;
	}
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		e = errno;
		fail(err, errsz, "cannot read kernel BTF: %s", strerror(e));
		goto fail;
	}
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		e = -ncpu;
		fail(err, errsz, "cannot count the possible CPUs: %s", strerror(e));
		goto fail;
	}
	c->nr_cpus = ncpu;
	c->lost = scx_xcalloc(ncpu, sizeof(uint64_t));
	c->arrived = scx_xcalloc(ncpu, sizeof(uint64_t));
	c->ring_lost = scx_xcalloc(ncpu, sizeof(uint64_t));
	c->stat_buf = scx_xcalloc(ncpu, sizeof(uint64_t));

	c->skel = events_bpf__open();
	if (!c->skel) {
		e = errno;
		fail(err, errsz, "cannot open the BPF object: %s", strerror(e));
		goto fail;
	}

	scx = (want & EVS_SCX) && scx_capture_have_sched_ext(btf);
	if ((want & EVS_SCX) && !scx)
		scx_warn("note: no sched_ext in this kernel: DSQ fields and scx_enable/scx_disable "
			 "events skipped");
	select_programs(c, btf, want, scx);
	configure_bpf(c, o, btf, scx);

	e = -events_bpf__load(c->skel);
	if (e) {
		scx_capture_load_error(e, err, errsz);
		goto fail;
	}
	e = -attach_programs(c, err, errsz);
	if (e)
		goto fail;

	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.rb), on_sample, c, NULL);
	if (!c->rb) {
		e = errno;
		fail(err, errsz, "cannot set up the ring buffer: %s", strerror(e));
		goto fail;
	}
	btf__free(btf);
	return c;
fail:
	btf__free(btf);
	scx_capture__free(c);
	errno = e ? e : EINVAL;
	return NULL;
}

void scx_capture__free(struct scx_capture *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < SCX_ARRAY_SIZE(progs); i++)
		bpf_link__destroy(c->links[i]);
	ring_buffer__free(c->rb);
	events_bpf__destroy(c->skel);
	free(c->lost);
	free(c->arrived);
	free(c->ring_lost);
	free(c->stat_buf);
	scx_reorder__free(c->order);
	free(c);
}

uint32_t scx_capture__events(const struct scx_capture *c)
{
	return c->attached;
}

unsigned scx_capture__nr_cpus(const struct scx_capture *c)
{
	return c->nr_cpus;
}

const uint64_t *scx_capture__lost(const struct scx_capture *c)
{
	return c->lost;
}

uint64_t scx_capture__lost_total(const struct scx_capture *c)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < c->nr_cpus; i++)
		n += c->lost[i];
	return n;
}

uint64_t scx_capture__unarrived(const struct scx_capture *c)
{
	return c->unarrived;
}

uint64_t scx_capture__missed(const struct scx_capture *c)
{
	return scx_bpf_missed(c->skel->obj, c->links, SCX_ARRAY_SIZE(progs)) + c->links_missed;
}

void scx_capture__options_json(const struct scx_capture *c, struct scx_buf *b)
{
	const struct scx_capture_opts *o = &c->o;
	struct scx_buf ev = { 0 };
	struct scx_jw w;

	scx_capture_events_str(c->attached, &ev);
	scx_jw_init(&w, b);
	scx_jw_obj_begin(&w);
	scx_jw_key(&w, "events");
	scx_jw_strn(&w, ev.data ? ev.data : "", ev.len);
	if (o->pid)
		scx_jw_kint(&w, "pid", o->pid);
	if (o->tgid)
		scx_jw_kint(&w, "tgid", o->tgid);
	if (o->comm)
		scx_jw_kstr(&w, "comm", c->comm);
	if (o->cpus) {
		struct scx_buf l = { 0 };

		for (unsigned cpu = 0; cpu < o->nr_cpu_bits; cpu++)
			if (o->cpus[cpu / 8] & (1u << (cpu % 8)))
				scx_buf_printf(&l, "%s%u", l.len ? "," : "", cpu);
		scx_jw_key(&w, "cpus");
		scx_jw_strn(&w, l.data ? l.data : "", l.len);
		scx_buf_free(&l);
	}
	scx_jw_kuint(&w, "sample", o->sample > 1 ? o->sample : 1);
	scx_jw_kuint(&w, "ring_size", o->ring_size ? o->ring_size : DEFAULT_RING);
	scx_jw_kbool(&w, "staged", !o->no_stage);
	scx_jw_kbool(&w, "cgroups", o->cgroups);
	scx_jw_obj_end(&w);
	scx_buf_free(&ev);
}
