// SPDX-License-Identifier: GPL-2.0
/*
 * The program runs the kernel skipped (capture/bpf_missed.h): the feed that
 * turns the kernel's running totals into "missed" records and the
 * trailer's total, the trailer's "missed" written only when not 0 and read
 * back, and, as root, a real miss: a program on task_rename calls
 * bpf_trace_printk, whose tracepoint runs the same program again while it
 * runs, which the kernel skips and counts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "capture/bpf_missed.h"
#include "core/util.h"
#include "stream/stream.h"
#include "tap.h"

/* The record in b, NUL-terminated (a buffer's data is not). */
static const char *rec(struct scx_buf *b)
{
	scx_buf_add(b, "", 1);
	return b->data;
}

static void feed(void)
{
	struct scx_missed_feed f;
	struct scx_buf b = { 0 };
	uint64_t reported = 0;

	scx_missed_feed__init(&f, 1000);
	ok(!scx_missed_feed__next(&f, 0, 2000, &b), "no record while nothing was missed");
	ok(scx_missed_feed__next(&f, 3, 3000, &b), "a record when the total rose");
	is_str(rec(&b), "{\"type\":\"missed\",\"start_ns\":2000,\"end_ns\":3000,\"count\":3}",
	       "it dates the runs between the two checks");
	reported += 3;
	ok(!scx_missed_feed__next(&f, 3, 4000, &b), "none when the total stayed");
	ok(scx_missed_feed__next(&f, 5, 5000, &b), "another when it rose again");
	is_str(rec(&b), "{\"type\":\"missed\",\"start_ns\":4000,\"end_ns\":5000,\"count\":2}",
	       "only the new runs, since the last check");
	reported += 2;
	is_int(f.total, 5, "the total for the trailer");
	is_int(reported, f.total, "the records add up to it");
	scx_buf_free(&b);
}

/* A trailer written in format fmt and read back: "missed" when not 0. */
static void trailer(uint64_t missed, enum scx_format fmt)
{
	struct scx_writer_opts wo = { .format = fmt };
	struct scx_trailer t = { 0 };
	const struct scx_trailer *back;
	FILE *f = tmpfile();
	struct scx_writer *w = f ? scx_writer__fdopen(dup(fileno(f)), &wo) : NULL;
	struct scx_reader *r = NULL;
	struct scx_event e;
	char buf[512] = "";
	size_t n = 0;

	t.missed = missed;
	t.end_ns = 9;
	ok(w && !scx_writer__trailer(w, &t) && !scx_writer__close(w), "a trailer written");
	if (f) {
		rewind(f);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		r = scx_reader__mem(buf, n, "t");
	}
	if (fmt == SCX_FMT_NDJSON)
		ok(!!strstr(buf, "\"missed\"") == (missed != 0), "\"missed\" %s: %.*s",
		   missed ? "written" : "left out", (int)strcspn(buf, "\n"), buf);
	ok(r && scx_reader__next(r, &e) == SCX_READ_END, "it reads");
	back = r ? scx_reader__trailer(r) : NULL;
	ok(back && back->missed == missed && back->end_ns == 9, "missed reads back as %llu (%s)",
	   (unsigned long long)missed, fmt == SCX_FMT_NDJSON ? "ndjson" : "binary");
	scx_reader__free(r);
	if (f)
		fclose(f);
}

/* r1 = "hi" on the stack; bpf_trace_printk(r1, 3); return 0 */
static const struct bpf_insn printk_prog[] = {
	{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = 10, .off = -4, .imm = 0x6968 },
	{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 1, .src_reg = 10 },
	{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = 1, .imm = -4 },
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 2, .imm = 3 },
	{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_trace_printk },
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static void real_miss(void)
{
	int prog, rename_tp, printk_tp, n = 5;
	uint64_t missed0;
	char name[16];

	if (geteuid() != 0) {
		ok(1, "# SKIP a real miss needs root");
		return;
	}
	prog = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "missed_t", "GPL", printk_prog,
			     SCX_ARRAY_SIZE(printk_prog), NULL);
	/*
	 * Before it is attached: once it is, any task on the machine that
	 * renames itself (every exec) runs it, so a busy machine's misses can
	 * come before ours (seen in a loaded make check).
	 */
	missed0 = prog >= 0 ? scx_bpf_prog_missed(prog) : 0;
	rename_tp = prog >= 0 ? bpf_raw_tracepoint_open("task_rename", prog) : -1;
	printk_tp = prog >= 0 ? bpf_raw_tracepoint_open("bpf_trace_printk", prog) : -1;
	if (prog < 0 || rename_tp < 0 || printk_tp < 0) {
		ok(1, "# SKIP cannot load or attach the test program: %s", strerror(errno));
	} else {
		is_int(missed0, 0, "nothing missed before it ran");
		prctl(PR_GET_NAME, name);
		for (int i = 0; i < n; i++)
			prctl(PR_SET_NAME, name);
		/* other renames and bpf_trace_printk callers on the machine can only add */
		ok(scx_bpf_prog_missed(prog) >= (uint64_t)n,
		   "each rename's nested run was skipped and counted (%llu for %d)",
		   (unsigned long long)scx_bpf_prog_missed(prog), n);
		is_int(scx_bpf_link_missed(rename_tp), 0,
		       "a link that is no kprobe has no kprobe misses");
	}
	if (rename_tp >= 0)
		close(rename_tp);
	if (printk_tp >= 0)
		close(printk_tp);
	if (prog >= 0)
		close(prog);
	is_int(scx_bpf_prog_missed(-1), 0, "no program, nothing missed");
}

int main(void)
{
	feed();
	trailer(0, SCX_FMT_NDJSON);
	trailer(7, SCX_FMT_NDJSON);
	trailer(7, SCX_FMT_BINARY);
	real_miss();
	return done_testing();
}
