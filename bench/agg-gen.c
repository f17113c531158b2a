// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a synthetic, self-consistent scheduler event stream for the scx-agg
 * benchmark and tests: threads wake, wait, run, get preempted, sleep and
 * migrate on a synthetic topology.  Deterministic for a given seed.
 *   agg-gen [-f ndjson|binary] [-n EVENTS] [-t THREADS] [-c CPUS] [-s SEED] [-o FILE]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream/stream.h"
#include "core/util.h"

static uint64_t seed = 42;

static uint32_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (uint32_t)(seed >> 11);
}

enum { SLEEPING, RUNNABLE, RUNNING };

int main(int argc, char **argv)
{
	struct scx_writer_opts wo = { .format = SCX_FMT_NDJSON };
	uint64_t nev = 1000000, ts = 1000000000;
	unsigned nthr = 200, ncpu = 8;
	const char *out = "-";
	struct scx_header h = { 0 };
	struct scx_writer *w;
	struct scx_event e;
	int opt, *cur, *state, *qcpu;

	scx_set_prog("agg-gen");
	while ((opt = getopt(argc, argv, "f:n:t:c:s:o:")) != -1) {
		switch (opt) {
		case 'f':
			wo.format = !strcmp(optarg, "binary") ? SCX_FMT_BINARY : SCX_FMT_NDJSON;
			break;
		case 'n':
			nev = strtoull(optarg, NULL, 0);
			break;
		case 't':
			nthr = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			ncpu = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0) | 1;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!ncpu || nthr < 2)
		return 2;
	if (!(w = scx_writer__open(out, &wo)))
		scx_die(1, "cannot open '%s': %s", out, strerror(errno));
	h.version = SCX_WIRE_VERSION;
	snprintf(h.producer, sizeof(h.producer), "agg-gen");
	snprintf(h.clock, sizeof(h.clock), "boottime");
	h.nr_cpus = ncpu;
	h.topo = scx_topo__synthetic(ncpu, ncpu >= 4 ? ncpu / 2 : ncpu, 1);
	scx_writer__header(w, &h);
	cur = scx_xcalloc(ncpu, sizeof(*cur));
	state = scx_xcalloc(nthr + 1, sizeof(*state));
	qcpu = scx_xcalloc(nthr + 1, sizeof(*qcpu));
	for (uint64_t n = 0; n < nev; n++) {
		unsigned c = rnd() % ncpu, r = rnd() % 100;
		int t = 1 + rnd() % nthr;

		ts += 200 + rnd() % 2000;
		if (r < 40) {
			/* switch on c: the current task sleeps or is preempted; a runnable one queued here runs */
			int next = 0, prev = cur[c];
			bool preempt = rnd() % 4 == 0;

			for (int k = 0; k < 8; k++) {
				int x = 1 + rnd() % nthr;
				if (state[x] == RUNNABLE && qcpu[x] == (int)c) {
					next = x;
					break;
				}
			}
			if (!prev && !next)
				continue;
			scx_event_init(&e, SCX_EV_SWITCH);
			e.sw.prev_pid = prev;
			e.sw.prev_tgid = prev ? 1000 + prev % 50 : 0;
			e.sw.prev_state = !prev	  ? 0 :
					  preempt ? SCX_STATE_PREEMPTED :
						    (rnd() % 5 ? 1 : 2);
			snprintf(e.sw.prev_comm, SCX_COMM_LEN, prev ? "w%d" : "swapper/%d",
				 prev ? prev % 50 : (int)(c & 0xff));
			e.sw.next_pid = next;
			e.sw.next_tgid = next ? 1000 + next % 50 : 0;
			snprintf(e.sw.next_comm, SCX_COMM_LEN, next ? "w%d" : "swapper/%d",
				 next ? next % 50 : (int)(c & 0xff));
			e.sw.prev_prio = e.sw.next_prio = 120;
			if (prev) {
				state[prev] = preempt ? RUNNABLE : SLEEPING;
				qcpu[prev] = c;
			}
			if (next)
				state[next] = RUNNING;
			cur[c] = next;
		} else if (r < 75) {
			if (state[t] != SLEEPING)
				continue;
			scx_event_init(&e, SCX_EV_WAKING);
			e.wake.pid = t;
			e.wake.tgid = 1000 + t % 50;
			e.wake.prio = 120;
			e.wake.target_cpu = rnd() % ncpu;
			e.wake.waker_pid = cur[c];
			e.wake.waker_tgid = cur[c] ? 1000 + cur[c] % 50 : 0;
			snprintf(e.wake.comm, SCX_COMM_LEN, "w%d", t % 50);
			state[t] = RUNNABLE;
			qcpu[t] = e.wake.target_cpu;
		} else if (r < 85) {
			if (state[t] != RUNNABLE)
				continue;
			scx_event_init(&e, SCX_EV_MIGRATE);
			e.mig.pid = t;
			e.mig.tgid = 1000 + t % 50;
			e.mig.orig_cpu = qcpu[t];
			e.mig.dest_cpu = rnd() % ncpu;
			snprintf(e.mig.comm, SCX_COMM_LEN, "w%d", t % 50);
			qcpu[t] = e.mig.dest_cpu;
		} else if (r < 93) {
			scx_event_init(&e, r & 1 ? SCX_EV_SOFTIRQ_ENTRY : SCX_EV_SOFTIRQ_EXIT);
			e.softirq.vec = 1 + (rnd() & 1) * 2;
		} else if (r < 97) {
			scx_event_init(&e, SCX_EV_CPU_IDLE);
			e.idle.cpu_id = c;
			e.idle.state = rnd() % 3 ? SCX_IDLE_EXIT : rnd() % 3;
		} else {
			scx_event_init(&e, SCX_EV_IPI_SEND);
			e.ipi.target_cpu = rnd() % ncpu;
		}
		e.ts = ts;
		e.cpu = c;
		if (scx_writer__event(w, &e))
			break;
	}
	{
		struct scx_trailer tr = { 0 };

		tr.end_ns = ts;
		scx_writer__trailer(w, &tr);
	}
	if (scx_writer__close(w))
		scx_die(1, "cannot write '%s'", out);
	scx_topo__free(h.topo);
	free(cur);
	free(state);
	free(qcpu);
	return 0;
}
