// SPDX-License-Identifier: GPL-2.0
/* The sched_ext debug dump, parsed line by line (see scx_dump.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/scx_dump.h"

enum { P_NONE, P_CPU, P_TASK };

void scx_dump__init(struct scx_dump *d)
{
	memset(d, 0, sizeof(*d));
	d->cpu.type = SCX_EV_NONE;
}

/* The value after "key" where key starts the line or follows a space; NULL if absent. */
static const char *kv(const char *s, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = strstr(s, key); p; p = strstr(p + 1, key))
		if (p == s || p[-1] == ' ')
			return p + n;
	return NULL;
}

/* Numbers in the kernel's formats: %u %d %lu %llu, 0x%x; 0 and the end on success. */
static int num(const char *s, int base, int sign, uint64_t *v, const char **end)
{
	char *e;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	if (sign)
		*v = (uint64_t)strtoll(s, &e, base);
	else if (*s == '-')
		return -EINVAL;
	else
		*v = strtoull(s, &e, base);
	if (e == s || errno)
		return -EINVAL;
	if (end)
		*end = e;
	return 0;
}

static int field(const char *s, const char *key, int base, int sign, uint64_t *v)
{
	return num(kv(s, key), base, sign, v, NULL);
}

/* "name[pid]" ending right before 'stop' (or the string's end): comm may hold '[' */
static int comm_pid(const char *s, const char *stop, char *comm, size_t size, int32_t *pid)
{
	const char *open = NULL;
	uint64_t v;
	const char *e;

	if (!stop)
		stop = s + strlen(s);
	for (const char *p = s; p < stop; p++)
		if (*p == '[')
			open = p;
	if (!open || open == s || num(open + 1, 10, 1, &v, &e) || *e != ']' || e + 1 != stop)
		return -EINVAL;
	snprintf(comm, size, "%.*s",
		 (int)(open - s) < (int)size - 1 ? (int)(open - s) : (int)size - 1, s);
	*pid = (int32_t)v;
	return 0;
}

static const char *skip_spaces(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

/* "CPU 2   : nr_run=1 flags=0x1 cpu_rel=0 pnt_seq=365" */
static int cpu_line(struct scx_dump *d, const char *s, uint64_t ts, int cpu)
{
	uint64_t id, v;
	const char *e;

	if (num(skip_spaces(s + 4), 10, 0, &id, &e) || *skip_spaces(e) != ':')
		return -EINVAL;
	scx_event_init(&d->cpu, SCX_EV_SCX_DUMP_CPU);
	d->cpu.ts = ts;
	d->cpu.cpu = cpu;
	d->cpu.dump_cpu.cpu_id = (int32_t)id;
	if (field(s, "nr_run=", 10, 0, &v))
		return -EINVAL;
	d->cpu.dump_cpu.nr_run = v;
	if (field(s, "flags=", 16, 0, &v))
		return -EINVAL;
	d->cpu.dump_cpu.flags = v;
	if (!field(s, "cpu_rel=", 10, 1, &v))
		d->cpu.dump_cpu.cpu_rel = (int32_t)v;
	if (!field(s, "pnt_seq=", 10, 0, &v))
		d->cpu.dump_cpu.pnt_seq = v;
	d->cpu.dump_cpu.curr_pid = -1;
	d->phase = P_CPU;
	return 0;
}

/* "          curr=swapper/2[0] class=idle_sched_class": the CPU record is complete */
static int curr_line(struct scx_dump *d, const char *s, struct scx_event *out)
{
	const char *curr = kv(s, "curr="), *cls = strstr(s, " class=");

	if (!curr || !cls || cls < curr)
		return -EINVAL;
	if (comm_pid(curr, cls, d->cpu.dump_cpu.curr_comm, SCX_COMM_LEN, &d->cpu.dump_cpu.curr_pid))
		return -EINVAL;
	snprintf(d->cpu.dump_cpu.curr_class, SCX_DUMP_CLASS_LEN, "%.*s", (int)strcspn(cls + 7, " "),
		 cls + 7);
	*out = d->cpu;
	d->cpus++;
	d->phase = P_NONE;
	return 1;
}

/* " *R scx-events[358] -12ms" */
static int task_line(struct scx_dump *d, const char *s, uint64_t ts, int cpu)
{
	const char *ms = strrchr(s, ' ');
	uint64_t v;
	const char *e;

	if (!ms || ms < s + 4 || num(ms + 1, 10, 1, &v, &e) || strcmp(e, "ms"))
		return -EINVAL;
	scx_event_init(&d->task, SCX_EV_SCX_DUMP_TASK);
	d->task.ts = ts;
	d->task.cpu = cpu;
	d->task.dump_task.cpu_id = d->cpu.type == SCX_EV_SCX_DUMP_CPU ? d->cpu.dump_cpu.cpu_id : -1;
	d->task.dump_task.current = s[1] == '*';
	d->task.dump_task.state[0] = s[2];
	d->task.dump_task.runnable_ms = (int64_t)v;
	d->task.dump_task.sticky_cpu = d->task.dump_task.holding_cpu = -1;
	if (comm_pid(s + 4, ms, d->task.dump_task.comm, SCX_COMM_LEN, &d->task.dump_task.pid))
		return -EINVAL;
	d->phase = P_TASK;
	return 0;
}

/* the three indented lines that follow a task's first */
static int task_more(struct scx_dump *d, const char *s, struct scx_event *out)
{
	struct scx_ev_dump_task *t = &d->task.dump_task;
	const char *p;
	uint64_t a, b;

	if ((p = kv(s, "scx_state/flags="))) {
		if (num(p, 10, 0, &a, &p) || *p != '/' || num(p + 1, 0, 0, &b, NULL))
			return -EINVAL;
		t->scx_state = a;
		t->scx_flags = b;
		if (field(s, "dsq_flags=", 0, 0, &a))
			return -EINVAL;
		t->dsq_flags = a;
		if ((p = kv(s, "ops_state/qseq="))) {
			if (num(p, 10, 0, &a, &p) || *p != '/' || num(p + 1, 10, 0, &b, NULL))
				return -EINVAL;
			t->ops_state = a;
			t->ops_qseq = b;
		}
		return 0;
	}
	if ((p = kv(s, "sticky/holding_cpu="))) {
		if (num(p, 10, 1, &a, &p) || *p != '/' || num(p + 1, 10, 1, &b, NULL))
			return -EINVAL;
		t->sticky_cpu = (int32_t)a;
		t->holding_cpu = (int32_t)b;
		p = kv(s, "dsq_id=");
		if (!p)
			return -EINVAL;
		if (!strncmp(p, "(n/a)", 5))
			t->dsq_id = SCX_DSQ_NONE;
		else if (num(p, 0, 0, &t->dsq_id, NULL))
			return -EINVAL;
		if (field(s, "dsq_vtime=", 10, 0, &t->dsq_vtime))
			return -EINVAL;
		return 0;
	}
	if ((p = kv(s, "cpus="))) {
		snprintf(t->cpus, SCX_DUMP_MASK_LEN, "%.*s", (int)strcspn(p, " "), p);
		*out = d->task;
		d->tasks++;
		d->phase = P_NONE;
		return 1;
	}
	return 0; /* the scheduler's own dump_task lines, a backtrace: text only */
}

static bool starts_task(const char *s)
{
	return s[0] == ' ' && (s[1] == ' ' || s[1] == '*') && isalpha((unsigned char)s[2]) &&
	       s[3] == ' ' && s[4] && s[4] != ' ';
}

int scx_dump__line(struct scx_dump *d, const char *line, size_t len, uint64_t ts, int cpu,
		   struct scx_event out[2])
{
	char s[1024];
	int r = 0;

	if (len >= sizeof(s))
		len = sizeof(s) - 1;
	memcpy(s, line, len);
	s[len] = '\0';
	s[strcspn(s, "\n")] = '\0';
	len = strlen(s);

	/* the first line of every dump */
	if (strstr(s, "] triggered exit kind ") || !strncmp(s, "Debug dump triggered by ", 24)) {
		d->seq = 0;
		d->in_cpus = 0;
		d->phase = P_NONE;
		d->cpu.type = SCX_EV_NONE;
	}
	scx_event_init(&out[0], SCX_EV_SCX_DUMP_LINE);
	out[0].ts = ts;
	out[0].cpu = cpu;
	out[0].dump_line.seq = d->seq++;
	out[0].dump_line.len = len;
	snprintf(out[0].dump_line.line, SCX_DUMP_LINE_LEN, "%s", s);

	if (!strcmp(s, "CPU states")) {
		d->in_cpus = 1;
		return 1;
	}
	if (!d->in_cpus || !*s)
		return 1;
	if (!strncmp(s, "CPU ", 4) && isdigit((unsigned char)*skip_spaces(s + 4)))
		r = cpu_line(d, s, ts, cpu);
	else if (d->phase == P_CPU && kv(s, "curr="))
		r = curr_line(d, s, &out[1]);
	else if (starts_task(s))
		r = task_line(d, s, ts, cpu);
	else if (d->phase == P_TASK)
		r = task_more(d, s, &out[1]);
	if (r < 0) {
		d->bad++;
		d->phase = P_NONE;
		return 1;
	}
	return 1 + r;
}
