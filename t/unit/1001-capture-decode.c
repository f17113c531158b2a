// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space half of scx-events without BPF: records laid out as
 * bpf/events.bpf.c writes them (including the sched_ext ones this machine
 * cannot produce) decode into the right struct scx_event; malformed records
 * are refused; -e words parse; prev_state follows the kernel's
 * __trace_sched_switch_state.
 */
#include <errno.h>
#include <stdlib.h>

#include "../../bpf/events.h"
#include "capture/capture.h"
#include "stream/stream.h"
#include "stream/stream-int.h"
#include "tap.h"
#include "core/util.h"

static void hdr(struct ev_hdr *h, unsigned type, unsigned size, uint64_t ts, unsigned cpu,
		unsigned aux)
{
	h->ts = ts;
	h->type = type;
	h->size = size;
	h->cpu = cpu;
	h->aux = aux;
}

static void test_switch_scx(void)
{
	struct ev_switch_scx r = { 0 };
	struct scx_event e;
	struct scx_buf b = { 0 };
	char st[16];

	hdr(&r.sw.h, EVK_SWITCH_SCX, sizeof(r), 123456789, 3, EV_TASK_REPORT_MAX);
	r.sw.prev_pid = 10;
	r.sw.prev_tgid = 9;
	r.sw.prev_prio = 120;
	r.sw.next_pid = 20;
	r.sw.next_tgid = 20;
	r.sw.next_prio = 100;
	memcpy(r.sw.prev_comm, "prev-task", 10);
	/* a comm that fills all 16 bytes must still come out terminated */
	memcpy(r.sw.next_comm, "0123456789abcdef", 16);
	r.dsq_id = 0x8000000000000002ull;
	r.dsq_lat_ns = 4500;
	r.dsq_vtime = 77;
	r.slice_ns = 20000000;
	r.prev_slice_used_ns = 1234;
	r.dsq_depth = 5;

	is_int(scx_capture_decode(&r, sizeof(r), &e), sizeof(r), "switch_scx: size consumed");
	is_int(e.type, SCX_EV_SWITCH, "switch_scx decodes to sched_switch");
	is_int(e.ts, 123456789, "ts");
	is_int(e.cpu, 3, "cpu");
	is_int(e.sw.prev_pid, 10, "prev_pid");
	is_int(e.sw.prev_tgid, 9, "prev_tgid");
	is_int(e.sw.next_pid, 20, "next_pid");
	is_int(e.sw.next_prio, 100, "next_prio");
	is_int(e.sw.prev_state, SCX_STATE_PREEMPTED, "prev_state preempted");
	is_str(scx_state_str(e.sw.prev_state, st, sizeof(st)), "R+", "printed as R+");
	is_str(e.sw.prev_comm, "prev-task", "prev_comm");
	is_str(e.sw.next_comm, "0123456789abcde", "a 16-byte comm is cut to 15 and terminated");
	ok(e.sw.dsq_id == 0x8000000000000002ull, "dsq_id");
	is_int(e.sw.dsq_lat_ns, 4500, "dsq_lat_ns");
	is_int(e.sw.dsq_vtime, 77, "dsq_vtime");
	is_int(e.sw.slice_ns, 20000000, "slice_ns");
	is_int(e.sw.prev_slice_used_ns, 1234, "prev_slice_used_ns");
	is_int(e.sw.dsq_depth, 5, "dsq_depth");

	scx_event_to_json(&b, &e);
	scx_buf_add(&b, "", 1);
	ok(strstr(b.data, "\"dsq_id\":9223372036854775810") && strstr(b.data, "\"dsq_depth\":5"),
	   "DSQ fields reach the NDJSON line: %s", b.data);
	scx_buf_free(&b);
}

/* scx_disable carries why: kind, code, the kernel's reason, the message */
static void test_scx_exit(void)
{
	struct ev_scx_ops r = { 0 };
	struct scx_event e, back;
	struct scx_buf b = { 0 };

	hdr(&r.h, EVK_SCX_DISABLE, sizeof(r), 900, 1, 0);
	memcpy(r.name, "qmap", 5);
	r.exit_kind = 1025;
	r.exit_code = -3;
	/* a message that fills the field must still come out terminated */
	memset(r.msg, 'x', sizeof(r.msg));
	is_int(scx_capture_decode(&r, sizeof(r), &e), sizeof(r), "scx_disable: size consumed");
	is_int(e.type, SCX_EV_SCX_DISABLE, "scx_disable");
	is_str(e.ops.name, "qmap", "name");
	is_int(e.ops.exit_kind, 1025, "exit_kind");
	is_int(e.ops.exit_code, -3, "exit_code");
	is_str(e.ops.reason, "scx_bpf_error", "reason in the kernel's words");
	is_int(strlen(e.ops.msg), SCX_EXIT_MSG_LEN - 1, "a full message is cut and terminated");

	r.exit_kind = 64;
	memcpy(r.msg, "bye", 4);
	scx_capture_decode(&r, sizeof(r), &e);
	is_str(e.ops.reason, "unregistered from user space", "reason of a normal unload");
	scx_event_to_json(&b, &e);
	scx_buf_add(&b, "", 1);
	ok(strstr(b.data,
		  "\"type\":\"scx_disable\",\"name\":\"qmap\",\"exit_kind\":64,"
		  "\"exit_code\":-3,\"reason\":\"unregistered from user space\",\"msg\":\"bye\"}") !=
		   NULL,
	   "exit fields reach the NDJSON line: %s", b.data);
	{
		struct scx_buf in = { 0 };
		struct scx_reader *rd;

		scx_buf_printf(&in, "{\"type\":\"header\",\"version\":1}\n%s\n", b.data);
		rd = scx_reader__mem(in.data, in.len, "exit");
		ok(rd && scx_reader__next(rd, &back) == 1 && back.ops.exit_kind == 64 &&
			   back.ops.exit_code == -3 &&
			   !strcmp(back.ops.reason, "unregistered from user space") &&
			   !strcmp(back.ops.msg, "bye"),
		   "and read back");
		scx_reader__free(rd);
		scx_buf_free(&in);
	}
	scx_buf_free(&b);

	r.exit_kind = 4242;
	scx_capture_decode(&r, sizeof(r), &e);
	is_str(e.ops.reason, "<UNKNOWN>", "an unknown kind, as the kernel says it");
	hdr(&r.h, EVK_SCX_ENABLE, sizeof(r), 900, 1, 0);
	scx_capture_decode(&r, sizeof(r), &e);
	is_int(e.ops.exit_kind, 0, "scx_enable has no exit fields");
}

/* A move between DSQs: scx_dsq_insert with the DSQ the task left */
static void test_dsq_move(void)
{
	struct ev_dsq_insert r = { 0 };
	struct scx_event e, back;
	struct scx_buf b = { 0 }, in = { 0 };
	struct scx_reader *rd;
	char rec[512], m[128];
	size_t n;

	hdr(&r.h, EVK_DSQ_INSERT, sizeof(r), 4242, 2, 0);
	r.pid = 31;
	r.tgid = 30;
	memcpy(r.comm, "boosted", 8);
	r.dsq_id = 1;
	r.from_dsq_id = 0;
	r.vtime = 17;
	r.slice_ns = 40000000;
	r.depth = 3;
	is_int(scx_capture_decode(&r, sizeof(r), &e), sizeof(r), "dsq move: size consumed");
	is_int(e.type, SCX_EV_DSQ_INSERT, "decodes to scx_dsq_insert");
	ok(e.dsq.pid == 31 && e.dsq.tgid == 30 && !strcmp(e.dsq.comm, "boosted"), "the task");
	ok(e.dsq.dsq_id == 1 && e.dsq.from_dsq_id == 0, "from DSQ 0 to DSQ 1");
	ok(e.dsq.vtime == 17 && e.dsq.slice_ns == 40000000 && e.dsq.depth == 3,
	   "vtime, slice, depth");

	scx_event_to_json(&b, &e);
	scx_buf_add(&b, "", 1);
	ok(strstr(b.data, "\"depth\":3,\"vtime\":17,\"slice_ns\":40000000,\"from_dsq_id\":0}") !=
		   NULL,
	   "from_dsq_id is the NDJSON line's last field: %s", b.data);
	scx_buf_printf(&in, "{\"type\":\"header\",\"version\":1}\n%s\n", b.data);
	scx_buf_free(&b);
	rd = scx_reader__mem(in.data, in.len, "move");
	ok(rd && scx_reader__next(rd, &back) == 1 && back.dsq.from_dsq_id == 0 &&
		   back.dsq.dsq_id == 1,
	   "and reads back");
	scx_reader__free(rd);
	scx_buf_free(&in);

	n = scx_bin_format_event(rec, &e);
	ok(!scx_bin_parse_event(rec + SCX_BIN_REC_HDR, n - SCX_BIN_REC_HDR, SCX_EV_DSQ_INSERT,
				&back, m, sizeof(m)) &&
		   back.dsq.from_dsq_id == 0 && back.dsq.vtime == 17,
	   "binary round trip keeps from_dsq_id");

	/* an insert that is not a move: no from_dsq_id on the wire, NONE when read */
	scx_event_init(&e, SCX_EV_DSQ_INSERT);
	ok(e.dsq.from_dsq_id == SCX_DSQ_NONE, "an insert's from_dsq_id starts as none");
	e.dsq.pid = 5;
	e.dsq.dsq_id = 7;
	scx_event_to_json(&b, &e);
	scx_buf_add(&b, "", 1);
	ok(!strstr(b.data, "from_dsq_id"), "left out of NDJSON: %s", b.data);
	scx_buf_printf(&in, "{\"type\":\"header\",\"version\":1}\n%s\n", b.data);
	scx_buf_free(&b);
	rd = scx_reader__mem(in.data, in.len, "insert");
	ok(rd && scx_reader__next(rd, &back) == 1 && back.dsq.from_dsq_id == SCX_DSQ_NONE &&
		   back.dsq.dsq_id == 7,
	   "read back as none");
	scx_reader__free(rd);
	scx_buf_free(&in);
	n = scx_bin_format_event(rec, &e);
	back.dsq.from_dsq_id = 0;
	ok(!scx_bin_parse_event(rec + SCX_BIN_REC_HDR, n - SCX_BIN_REC_HDR, SCX_EV_DSQ_INSERT,
				&back, m, sizeof(m)) &&
		   back.dsq.from_dsq_id == SCX_DSQ_NONE && back.dsq.dsq_id == 7,
	   "binary: left out, read back as none");
}

static void test_plain_switch(void)
{
	struct ev_switch r = { 0 };
	struct scx_event e;

	hdr(&r.h, EVK_SWITCH, sizeof(r), 5, 1, 1);
	r.prev_pid = 7;
	is_int(scx_capture_decode(&r, sizeof(r), &e), sizeof(r), "plain switch decodes");
	ok(e.sw.dsq_id == SCX_DSQ_NONE, "no sched_ext: dsq_id is SCX_DSQ_NONE");
	is_int(e.sw.prev_state, SCX_STATE_INTERRUPTIBLE, "prev_state S");
}

/* Several records back to back, as a staged chunk arrives. */
static void test_chunk(void)
{
	unsigned char buf[1024];
	size_t off = 0, n = 0;
	struct ev_wakeup w = { 0 };
	struct ev_fork f = { 0 };
	struct ev_exec x = { 0 };
	struct ev_hdr s;
	struct ev_ipi ipi = { 0 };
	struct ev_cpuval cv = { 0 };
	struct ev_cpuhp hp = { 0 };
	struct ev_scx_ops ops = { 0 };
	struct scx_event ev[16];
	int k;

	hdr(&w.h, EVK_WAKEUP, sizeof(w), 100, 0, 0);
	w.pid = 42, w.tgid = 40, w.prio = 120, w.target_cpu = 1, w.waker_pid = 5, w.waker_tgid = 4;
	memcpy(w.comm, "wl", 3);
	memcpy(buf + off, &w, sizeof(w)), off += sizeof(w);
	hdr(&f.h, EVK_FORK, sizeof(f), 200, 1, 0);
	f.parent_pid = 40, f.parent_tgid = 40, f.child_pid = 43, f.child_tgid = 43;
	memcpy(f.parent_comm, "wl", 3), memcpy(f.child_comm, "wl", 3);
	memcpy(buf + off, &f, sizeof(f)), off += sizeof(f);
	hdr(&x.h, EVK_EXEC, sizeof(x), 300, 1, 0);
	x.pid = 43, x.tgid = 43, x.old_pid = 43;
	memcpy(x.comm, "true", 5), memcpy(x.filename, "/bin/true", 10);
	memcpy(buf + off, &x, sizeof(x)), off += sizeof(x);
	hdr(&s, EVK_SOFTIRQ_ENTRY, sizeof(s), 400, 0, 9);
	memcpy(buf + off, &s, sizeof(s)), off += sizeof(s);
	hdr(&ipi.h, EVK_IPI_SEND, sizeof(ipi), 500, 0, 0);
	ipi.target_cpu = 1, ipi.callsite = 0xffffffff81000000ull;
	memcpy(buf + off, &ipi, sizeof(ipi)), off += sizeof(ipi);
	hdr(&cv.h, EVK_IDLE, sizeof(cv), 600, 1, 0);
	cv.cpu_id = 1, cv.val = 0xffffffffu;
	memcpy(buf + off, &cv, sizeof(cv)), off += sizeof(cv);
	hdr(&hp.h, EVK_CPUHP_EXIT, sizeof(hp), 700, 1, 0);
	hp.cpu_id = 1, hp.target = 88, hp.idx = 3, hp.ret = -16;
	memcpy(buf + off, &hp, sizeof(hp)), off += sizeof(hp);
	hdr(&ops.h, EVK_SCX_ENABLE, sizeof(ops), 800, 0, 0);
	memcpy(ops.name, "rusty", 6);
	memcpy(buf + off, &ops, sizeof(ops)), off += sizeof(ops);
	/* a record kind from a newer producer: skipped, not fatal */
	hdr(&s, 999, 24, 900, 0, 0);
	memcpy(buf + off, &s, sizeof(s)), memset(buf + off + 16, 0, 8), off += 24;

	for (size_t p = 0; p < off; p += k) {
		k = scx_capture_decode(buf + p, off - p, &ev[n]);
		if (!ok(k > 0, "record at offset %zu decodes", p))
			return;
		if (ev[n].type != SCX_EV_NONE)
			n++;
	}
	is_int(n, 8, "eight known records in the chunk, the unknown one skipped");
	is_int(ev[0].type, SCX_EV_WAKEUP, "wakeup");
	ok(ev[0].wake.pid == 42 && ev[0].wake.tgid == 40 && ev[0].wake.target_cpu == 1 &&
		   ev[0].wake.waker_pid == 5 && ev[0].wake.waker_tgid == 4 &&
		   !strcmp(ev[0].wake.comm, "wl"),
	   "wakeup fields");
	ok(ev[1].type == SCX_EV_FORK && ev[1].fork.child_pid == 43 && ev[1].cpu == 1, "fork");
	ok(ev[2].type == SCX_EV_EXEC && !strcmp(ev[2].exec.filename, "/bin/true") &&
		   !strcmp(ev[2].exec.comm, "true") && ev[2].exec.old_pid == 43,
	   "exec");
	ok(ev[3].type == SCX_EV_SOFTIRQ_ENTRY && ev[3].softirq.vec == 9, "softirq vec from aux");
	ok(ev[4].type == SCX_EV_IPI_SEND && ev[4].ipi.target_cpu == 1 &&
		   ev[4].ipi.callsite == 0xffffffff81000000ull,
	   "ipi_send");
	ok(ev[5].type == SCX_EV_CPU_IDLE && ev[5].idle.state == SCX_IDLE_EXIT, "cpu_idle exit");
	ok(ev[6].type == SCX_EV_CPUHP_EXIT && ev[6].cpuhp.target == 88 && ev[6].cpuhp.ret == -16,
	   "cpuhp_exit");
	ok(ev[7].type == SCX_EV_SCX_ENABLE && !strcmp(ev[7].ops.name, "rusty"), "scx_enable name");
}

static void test_malformed(void)
{
	struct ev_switch r = { 0 };
	struct scx_event e;

	hdr(&r.h, EVK_SWITCH, sizeof(r), 1, 0, 0);
	is_int(scx_capture_decode(&r, 8, &e), -EINVAL, "shorter than a header");
	is_int(scx_capture_decode(&r, sizeof(r) - 8, &e), -EINVAL, "size beyond the buffer");
	r.h.size = 20;
	is_int(scx_capture_decode(&r, sizeof(r), &e), -EINVAL, "size not a multiple of 8");
	r.h.size = 16;
	is_int(scx_capture_decode(&r, sizeof(r), &e), -EINVAL, "size too small for a switch");
	r.h.size = 0;
	is_int(scx_capture_decode(&r, sizeof(r), &e), -EINVAL, "size 0 (would loop forever)");
}

static void test_event_words(void)
{
	struct scx_buf b = { 0 };
	uint32_t m = 0;

	is_int(scx_capture_parse_events("switch,wakeup", &m), 0, "switch,wakeup parses");
	is_int(m, SCX_CAP_SWITCH | SCX_CAP_WAKEUP, "to two bits");
	is_int(scx_capture_parse_events("sched", &m), 0, "a group");
	is_int(m,
	       SCX_CAP_SWITCH | SCX_CAP_WAKING | SCX_CAP_WAKEUP | SCX_CAP_WAKEUP_NEW |
		       SCX_CAP_MIGRATE,
	       "sched = the five sched events");
	is_int(scx_capture_parse_events("switch,bogus", &m), -EINVAL, "unknown word refused");
	is_int(scx_capture_parse_events("", &m), -EINVAL, "empty list refused");
	scx_capture_parse_events("process,idle", &m);
	scx_capture_events_str(m, &b);
	scx_buf_add(&b, "", 1);
	is_str(b.data, "fork,exec,exit,free,idle", "bits print back as words");
	scx_buf_free(&b);
}

/* Inputs and outputs of the kernel's __trace_sched_switch_state (6.x). */
static void test_report_state(void)
{
	is_int(ev_report_state(1, 0x1, 0), 0x100, "preempted: R+ whatever the state");
	is_int(ev_report_state(0, 0x0, 0), 0, "running: R");
	is_int(ev_report_state(0, 0x1, 0), 0x1, "TASK_INTERRUPTIBLE: S");
	is_int(ev_report_state(0, 0x2, 0), 0x2, "TASK_UNINTERRUPTIBLE: D");
	is_int(ev_report_state(0, 0x102, 0), 0x2, "TASK_KILLABLE: D (WAKEKILL not reported)");
	is_int(ev_report_state(0, 0x402, 0), 0x80, "TASK_IDLE: I");
	is_int(ev_report_state(0, 0x4, 0), 0x4, "__TASK_STOPPED: T");
	is_int(ev_report_state(0, 0x8, 0), 0x8, "__TASK_TRACED: t");
	is_int(ev_report_state(0, 0x40, 0), 0x40, "TASK_PARKED: P");
	is_int(ev_report_state(0, 0x80, 0x20), 0x20, "TASK_DEAD + EXIT_ZOMBIE: Z");
	is_int(ev_report_state(0, 0x80, 0x10), 0x10, "TASK_DEAD + EXIT_DEAD: X");
	is_int(ev_report_state(0, 0x1000, 0), 0x2, "TASK_RTLOCK_WAIT: D");
	is_int(ev_report_state(0, 0x2001, 0), 0x1, "TASK_FREEZABLE|INTERRUPTIBLE: S");
}

int main(void)
{
	test_switch_scx();
	test_scx_exit();
	test_dsq_move();
	test_plain_switch();
	test_chunk();
	test_malformed();
	test_event_words();
	test_report_state();
	return done_testing();
}
