/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sched_ext debug dump (kernel/sched/ext.c, scx_dump_state()) parsed into
 * records, one line at a time as the sched_ext_dump tracepoint gives them:
 *
 *	CPU 2   : nr_run=1 flags=0x1 cpu_rel=0 pnt_seq=365
 *	          curr=swapper/2[0] class=idle_sched_class
 *	 *R scx-events[358] -12ms
 *	      scx_state/flags=3/0x9 dsq_flags=0x0 ops_state/qseq=0/0
 *	      sticky/holding_cpu=-1/-1 dsq_id=0x8000000000000002 dsq_vtime=0
 *	      cpus=f
 *
 * gives one scx_dump_cpu record after the "curr=" line and one scx_dump_task
 * after the "cpus=" line (the task is on the CPU of the last "CPU" line).
 * Every line also becomes an scx_dump_line record.  Lines that start like a
 * known line but do not parse are counted, never fatal: this is kernel text
 * that changes between versions (later kernels add fields, which are skipped).
 */
#ifndef SCX_DUMP_H
#define SCX_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "core/event.h"

struct scx_dump {
	uint32_t seq;	       /* lines seen in the current dump */
	int in_cpus;	       /* past the "CPU states" heading */
	int phase;	       /* what the next line should be (scx_dump.c) */
	struct scx_event cpu;  /* the CPU being described */
	struct scx_event task; /* the task being described */
	uint64_t bad;	       /* lines that looked known but did not parse */
	uint64_t cpus, tasks;  /* records made */
};

void scx_dump__init(struct scx_dump *d);

/*
 * Feed one line (len bytes, no newline needed, need not be NUL-terminated)
 * seen at ts on cpu.  out[0] is always the scx_dump_line record (text cut to
 * SCX_DUMP_LINE_LEN - 1 bytes); out[1], when the line completes one, a CPU or
 * task record.  Returns the number of records in out (1 or 2).
 */
int scx_dump__line(struct scx_dump *d, const char *line, size_t len, uint64_t ts, int cpu,
		   struct scx_event out[2]);

#endif
