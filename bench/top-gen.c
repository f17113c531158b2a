// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic scheduler event streams for scx-top's tests and benchmark: a
 * machine of CPUS cpus in NODES nodes (LLC_CPUS cpus per LLC), each cpu
 * running wakeup -> switch-in -> switch-out cycles of its own tasks, with
 * migrations (some across LLCs and nodes), softirqs, frequency changes and
 * sched_ext DSQ data.  Deterministic for a given seed.
 *
 *   top-gen [-c CPUS] [-N NODES] [-l LLC_CPUS] [-s SECONDS] [-r CYCLES_PER_CPU_PER_S]
 *           [-f ndjson|binary] [-L LOST] [-O] [-R] [-S SEED]
 *
 * -R paces the output in real time with boottime timestamps (for CPU-use
 * measurements of a live consumer), written every 50 ms like scx-events
 * does at such rates; otherwise time starts at 1 s and the
 * stream is written as fast as possible.  Events come cpu by cpu within each
 * 1 ms step (sorted per cpu only, as from a per-cpu buffer), or, with -O, in
 * time order, as scx-events delivers them.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream/stream.h"
#include "core/topo.h"
#include "core/util.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	return scx_xorshift64(&rng);
}

static void comm(char *d, int pid)
{
	static const char *const names[] = {
		"postgres",  "nginx", "java", "kworker/u16:2", "rcu_sched",
		"ksoftirqd", "cc1",   "make", "python3",       "redis-server",
	};

	snprintf(d, SCX_COMM_LEN, "%s", names[(pid / 4) % SCX_ARRAY_SIZE(names)]);
}

static struct scx_writer *w;
static bool ordered;
struct step_event {
	struct scx_event e;
	size_t seq; /* equal times keep the order they were made in */
};
static struct step_event *step_ev; /* -O: the events of the current step */
static size_t step_n, step_cap;

static void write_event(const struct scx_event *e)
{
	if (scx_writer__event(w, e) < 0) {
		scx_writer__close(w);
		exit(0); /* reader went away */
	}
}

static void put(struct scx_event *e)
{
	if (!ordered) {
		write_event(e);
		return;
	}
	if (step_n == step_cap) {
		step_cap = step_cap ? step_cap * 2 : 4096;
		step_ev = realloc(step_ev, step_cap * sizeof(*step_ev));
		if (!step_ev)
			abort();
	}
	step_ev[step_n].e = *e;
	step_ev[step_n].seq = step_n;
	step_n++;
}

static int cmp_ts(const void *x, const void *y)
{
	const struct step_event *a = x, *b = y;

	if (a->e.ts != b->e.ts)
		return a->e.ts < b->e.ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* -O: a step's events never overlap the next step's, so sorting each is enough */
static void end_step(void)
{
	qsort(step_ev, step_n, sizeof(*step_ev), cmp_ts);
	for (size_t i = 0; i < step_n; i++)
		write_event(&step_ev[i].e);
	step_n = 0;
}

int main(int argc, char **argv)
{
	unsigned cpus = 512, nodes = 8, llc_cpus = 8, rate = 100, secs = 5, lost = 0;
	bool realtime = false;
	struct scx_writer_opts wo = { .format = SCX_FMT_NDJSON };
	struct scx_header h = { 0 };
	struct scx_event e;
	int c;

	while ((c = getopt(argc, argv, "c:N:l:s:r:f:L:ORS:")) != -1) {
		switch (c) {
		case 'c':
			cpus = atoi(optarg);
			break;
		case 'N':
			nodes = atoi(optarg);
			break;
		case 'l':
			llc_cpus = atoi(optarg);
			break;
		case 's':
			secs = atoi(optarg);
			break;
		case 'r':
			rate = atoi(optarg);
			break;
		case 'f':
			scx_format_parse(optarg, &wo.format);
			break;
		case 'L':
			lost = atoi(optarg);
			break;
		case 'O':
			ordered = true;
			break;
		case 'R':
			realtime = true;
			break;
		case 'S':
			rng = strtoull(optarg, NULL, 0) | 1;
			break;
		default:
			fprintf(stderr,
				"usage: top-gen [-c CPUS] [-N NODES] [-l LLC_CPUS] [-s SECONDS] "
				"[-r RATE] [-f FORMAT] [-L LOST] [-O] [-R] [-S SEED]\n");
			return 2;
		}
	}
	if (!cpus || !nodes || !llc_cpus || cpus % (nodes * llc_cpus)) {
		fprintf(stderr, "top-gen: cpus must be a multiple of nodes x llc cpus\n");
		return 2;
	}
	w = scx_writer__fdopen(1, &wo);
	h.version = SCX_WIRE_VERSION;
	strcpy(h.producer, "top-gen");
	strcpy(h.clock, "boottime");
	strcpy(h.hostname, "synthetic");
	strcpy(h.scheduler, "scx_synth");
	h.nr_cpus = cpus;
	h.topo = scx_topo__synthetic(cpus, llc_cpus, cpus / nodes / llc_cpus);
	if (scx_writer__header(w, &h) < 0)
		return 1;

	/* 1 ms steps; each cpu starts a cycle with probability rate/1000 */
	uint64_t t0 = realtime ? scx_now_boot_ns() : 1000000000ull;
	uint64_t steps = (uint64_t)secs * 1000;

	for (uint64_t s = 0; s < steps; s++) {
		uint64_t base = t0 + s * 1000000;

		/* paced: 50 ms of events at a time, as scx-events ships them */
		if (realtime && s % 50 == 0) {
			uint64_t now = scx_now_boot_ns();

			scx_writer__flush(w);
			if (now < base) {
				struct timespec ts = { 0, (long)(base - now) };

				nanosleep(&ts, NULL);
			}
		}
		for (unsigned cpu = 0; cpu < cpus; cpu++) {
			uint64_t r = rnd();
			int pid = 1000 + cpu * 4 + (int)(r % 4), tgid = 1000 + cpu * 4;
			/* cpus of higher nodes are busier, so views differ visibly */
			unsigned busy = 100 + 800 * (cpu / (cpus / nodes)) / nodes;
			/* and their load swings over ~20 s, so histories have a shape */
			double phase = (double)s / 3000.0 + cpu * 0.7;

			busy = (unsigned)(busy * (0.55 + 0.45 * sin(phase)));
			uint64_t lat = 2000 + (r >> 8) % 50000,
				 run = busy * (900 + (r >> 20) % 200);

			if ((r >> 32) % 1000 >= rate)
				continue;
			scx_event_init(&e, SCX_EV_WAKING);
			e.ts = base;
			e.cpu = (int)((cpu + 1) % cpus);
			e.wake.pid = pid;
			e.wake.tgid = tgid;
			e.wake.target_cpu = (int)cpu;
			comm(e.wake.comm, pid);
			put(&e);
			if ((r >> 40) % 8 == 0) {
				/* a migration in; every other one from another node */
				scx_event_init(&e, SCX_EV_MIGRATE);
				e.ts = base + 500;
				e.cpu = (int)cpu;
				e.mig.pid = pid;
				e.mig.tgid = tgid;
				e.mig.orig_cpu =
					(int)((cpu + ((r >> 44) % 2 ? cpus / nodes : 1)) % cpus);
				e.mig.dest_cpu = (int)cpu;
				comm(e.mig.comm, pid);
				put(&e);
			}
			scx_event_init(&e, SCX_EV_SWITCH);
			e.ts = base + lat;
			e.cpu = (int)cpu;
			e.sw.prev_pid = 0;
			e.sw.next_pid = pid;
			e.sw.next_tgid = tgid;
			strcpy(e.sw.prev_comm, "swapper");
			comm(e.sw.next_comm, pid);
			e.sw.next_prio = 120;
			e.sw.dsq_id =
				(r >> 50) % 4 ? (uint64_t)(cpu / llc_cpus) : 0x8000000000000002ull;
			e.sw.dsq_lat_ns = lat / 2;
			e.sw.dsq_depth = (unsigned)((r >> 52) % 6);
			e.sw.dsq_vtime = base / 1000;
			e.sw.slice_ns = 20000000;
			put(&e);
			if ((r >> 56) % 4 == 0) {
				scx_event_init(&e, SCX_EV_SOFTIRQ_ENTRY);
				e.ts = base + lat + 1000;
				e.cpu = (int)cpu;
				e.softirq.vec = 1;
				put(&e);
				e.type = SCX_EV_SOFTIRQ_EXIT;
				e.ts += 20000 + (r >> 58) * 1000;
				put(&e);
			}
			scx_event_init(&e, SCX_EV_SWITCH);
			e.ts = base + lat + SCX_MIN(run, 1000000 - lat - 1);
			e.cpu = (int)cpu;
			e.sw.prev_pid = pid;
			e.sw.prev_tgid = tgid;
			e.sw.prev_state = SCX_STATE_INTERRUPTIBLE;
			comm(e.sw.prev_comm, pid);
			strcpy(e.sw.next_comm, "swapper");
			e.sw.prev_slice_used_ns = e.ts - (base + lat);
			/* sched_ext data rides on switches with a DSQ: the local one */
			e.sw.dsq_id = 0x8000000000000002ull;
			e.sw.dsq_lat_ns = 0;
			put(&e);
		}
		if (s % 1000 == 0) {
			for (unsigned cpu = 0; cpu < cpus; cpu++) {
				scx_event_init(&e, SCX_EV_CPU_FREQUENCY);
				e.ts = base;
				e.cpu = (int)cpu;
				e.freq.cpu_id = cpu;
				e.freq.khz = 2000000 + 100000 * (cpu % 8);
				put(&e);
			}
		}
		if (lost && s == steps / 2) {
			scx_event_init(&e, SCX_EV_LOST);
			e.ts = base;
			e.cpu = 3;
			e.lost.count = lost;
			put(&e);
		}
		if (ordered)
			end_step();
	}
	struct scx_trailer tr = { .lost_total = lost };

	scx_writer__trailer(w, &tr);
	scx_writer__close(w);
	scx_topo__free(h.topo);
	return 0;
}
