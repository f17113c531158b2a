// SPDX-License-Identifier: GPL-2.0
/*
 * The sched_ext debug dump parser, on a dump scx_qmap -e wrote in the test VM
 * (6.12; t/data/scx-dump-qmap-6.12.txt), on a later kernel's extra fields,
 * and on lines that look known but are broken, which are counted, not fatal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/scx_dump.h"
#include "tap.h"

struct got {
	struct scx_event cpus[8], tasks[8];
	unsigned nr_cpus, nr_tasks, lines;
	char last_line[SCX_DUMP_LINE_LEN];
};

static void feed(struct scx_dump *d, struct got *g, const char *line)
{
	struct scx_event out[2];
	int n = scx_dump__line(d, line, strlen(line), 1000 + g->lines, 2, out);

	g->lines++;
	snprintf(g->last_line, sizeof(g->last_line), "%s", out[0].dump_line.line);
	if (n < 2)
		return;
	if (out[1].type == SCX_EV_SCX_DUMP_CPU && g->nr_cpus < 8)
		g->cpus[g->nr_cpus++] = out[1];
	if (out[1].type == SCX_EV_SCX_DUMP_TASK && g->nr_tasks < 8)
		g->tasks[g->nr_tasks++] = out[1];
}

static void fixture(void)
{
	const char *src = getenv("SCX_SRC");
	struct scx_dump d;
	struct got g = { 0 };
	char path[4200], line[1100];
	FILE *f;

	snprintf(path, sizeof(path), "%s/t/data/scx-dump-qmap-6.12.txt", src ? src : ".");
	f = fopen(path, "r");
	if (!ok(f, "open %s", path))
		return;
	scx_dump__init(&d);
	while (fgets(line, sizeof(line), f))
		feed(&d, &g, line);
	fclose(f);

	is_int(g.lines, 55, "every line of the dump became a line record");
	is_int(d.bad, 0, "no line was refused");
	is_int(g.nr_cpus, 2, "two CPUs described (2 and 3)");
	is_int(g.cpus[0].dump_cpu.cpu_id, 2, "first CPU");
	is_int(g.cpus[0].dump_cpu.nr_run, 1, "its nr_run");
	is_int(g.cpus[0].dump_cpu.flags, 1, "its flags (hex)");
	is_int(g.cpus[0].dump_cpu.pnt_seq, 365, "its pnt_seq");
	is_str(g.cpus[0].dump_cpu.curr_comm, "swapper/2", "its current task's comm");
	is_int(g.cpus[0].dump_cpu.curr_pid, 0, "and pid");
	is_str(g.cpus[0].dump_cpu.curr_class, "idle_sched_class", "and class");
	is_int(g.cpus[1].dump_cpu.cpu_id, 3, "second CPU");
	is_int(g.cpus[1].dump_cpu.pnt_seq, 257, "its pnt_seq");

	is_int(g.nr_tasks, 1, "one runnable task");
	is_int(g.tasks[0].dump_task.cpu_id, 2, "on CPU 2");
	is_str(g.tasks[0].dump_task.comm, "scx-events", "its comm");
	is_int(g.tasks[0].dump_task.pid, 358, "its pid");
	is_str(g.tasks[0].dump_task.state, "R", "its state");
	is_int(g.tasks[0].dump_task.current, 0, "runnable, not current");
	is_int(g.tasks[0].dump_task.runnable_ms, -12, "runnable for 12 ms (the kernel's sign)");
	is_int(g.tasks[0].dump_task.scx_state, 3, "scx_state");
	is_int(g.tasks[0].dump_task.scx_flags, 9, "scx flags");
	is_int(g.tasks[0].dump_task.sticky_cpu, -1, "sticky cpu");
	ok(g.tasks[0].dump_task.dsq_id == 0x8000000000000002ull, "dsq_id SCX_DSQ_LOCAL");
	is_int(g.tasks[0].dump_task.dsq_vtime, 0, "dsq_vtime");
	is_str(g.tasks[0].dump_task.cpus, "f", "allowed cpus");
	is_int(g.tasks[0].ts, 1000 + 41, "the record has the time of the line completing it");
}

/*
 * The same kind of dump as the sched_ext_dump tracepoint gave scx-events in
 * the VM (t/vm/0400-flight.t keeps it): four CPUs, a task current on CPU 1
 * and on no DSQ, qmap's own dump lines between.
 */
static void tracepoint_fixture(void)
{
	const char *src = getenv("SCX_SRC");
	struct scx_dump d;
	struct got g = { 0 };
	char path[4200], line[1100];
	FILE *f;

	snprintf(path, sizeof(path), "%s/t/data/scx-dump-qmap-6.12-tp.txt", src ? src : ".");
	f = fopen(path, "r");
	if (!ok(f, "open %s", path))
		return;
	scx_dump__init(&d);
	while (fgets(line, sizeof(line), f))
		feed(&d, &g, line);
	fclose(f);
	is_int(d.bad, 0, "tracepoint dump: no line refused");
	is_int(g.nr_cpus, 4, "four CPUs");
	is_int(g.cpus[3].dump_cpu.cpu_id, 3, "the last is CPU 3");
	is_str(g.cpus[1].dump_cpu.curr_class, "ext_sched_class", "CPU 1 runs a sched_ext task");
	is_int(g.nr_tasks, 2, "two tasks");
	is_str(g.tasks[0].dump_task.comm, "rcu_sched", "a runnable kthread");
	is_int(g.tasks[0].dump_task.cpu_id, 0, "on CPU 0");
	is_int(g.tasks[0].dump_task.runnable_ms, 0, "+0ms");
	is_str(g.tasks[1].dump_task.comm, "ls", "the current task of CPU 1");
	is_int(g.tasks[1].dump_task.cpu_id, 1, "on CPU 1");
	is_int(g.tasks[1].dump_task.current, 1, "marked current");
	ok(g.tasks[1].dump_task.dsq_id == SCX_DSQ_NONE, "on no DSQ: (n/a)");
	is_int(g.tasks[1].dump_task.scx_flags, 0xd, "its scx flags");
}

/* a later kernel: ops_qseq on the CPU line, slice on the task's, a current task */
static void later_kernel(void)
{
	static const char *lines[] = {
		"Debug dump triggered by SysRq-D",
		"CPU states",
		"----------",
		"",
		"CPU 0   : nr_run=3 flags=0x0 cpu_rel=0 ops_qseq=12 pnt_seq=99",
		"          curr=stress [x][77] class=ext_sched_class",
		"",
		" *R stress [x][77] +0ms",
		"      scx_state/flags=3/0x1 dsq_flags=0x1 ops_state/qseq=0/17",
		"      sticky/holding_cpu=-1/-1 dsq_id=(n/a) dsq_vtime=123456 slice=20000000",
		"      cpus=0003",
		"",
		" *R broken[x] 5ms",
		"      cpus=1",
	};
	struct scx_dump d;
	struct got g = { 0 };

	scx_dump__init(&d);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		feed(&d, &g, lines[i]);
	is_int(g.nr_cpus, 1, "later kernel: the CPU line with an extra field");
	is_int(g.cpus[0].dump_cpu.pnt_seq, 99, "pnt_seq found past ops_qseq");
	is_str(g.cpus[0].dump_cpu.curr_comm, "stress [x]", "a comm holding brackets");
	is_int(g.cpus[0].dump_cpu.curr_pid, 77, "its pid");
	is_int(g.nr_tasks, 1, "the current task; the broken one is not a record");
	is_int(g.tasks[0].dump_task.current, 1, "marked current");
	ok(g.tasks[0].dump_task.dsq_id == SCX_DSQ_NONE, "dsq_id (n/a)");
	is_int(g.tasks[0].dump_task.dsq_vtime, 123456, "vtime before an unknown field");
	is_int(g.tasks[0].dump_task.ops_qseq, 17, "ops qseq");
	is_int(d.bad, 1, "the broken task line is counted");
}

static void long_line(void)
{
	struct scx_dump d;
	struct scx_event out[2];
	char line[600];

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	scx_dump__init(&d);
	scx_dump__line(&d, line, strlen(line), 1, 0, out);
	is_int(out[0].dump_line.len, 599, "a long line keeps its length");
	is_int(strlen(out[0].dump_line.line), SCX_DUMP_LINE_LEN - 1, "and its text is cut");
}

int main(void)
{
	fixture();
	tracepoint_fixture();
	later_kernel();
	long_line();
	return done_testing();
}
