// SPDX-License-Identifier: GPL-2.0
/*
 * The reorder buffer against a model that keeps every held event in one
 * list and releases the oldest by (time, queue, arrival): a CPU's own queue
 * keeps equal times in arrival order, lower CPUs win ties, and CPU ids
 * outside 0..8191 share one queue that loses ties to every CPU.  Random
 * runs mix per-CPU ordered batches (as scx-events delivers them), events
 * older than their queue's tail, equal times, stray CPU ids, late events,
 * advances and drains; every pop and counter must match the model's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/reorder.h"
#include "tap.h"
#include "core/util.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	return scx_xorshift64(&rng);
}

struct held {
	struct scx_event e;
	uint64_t seq;
};

struct model {
	struct held *h;
	size_t n, cap;
	uint64_t window, newest, released, late, seq;
};

static uint64_t qkey(int32_t cpu)
{
	return cpu >= 0 && cpu < 8192 ? (uint64_t)cpu : UINT64_MAX;
}

static void model_push(struct model *m, const struct scx_event *e)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 1024;
		m->h = realloc(m->h, m->cap * sizeof(*m->h));
	}
	if (e->ts < m->released)
		m->late++;
	if (e->ts > m->newest)
		m->newest = e->ts;
	m->h[m->n++] = (struct held){ *e, m->seq++ };
}

static bool model_pop(struct model *m, struct scx_event *e, bool drain)
{
	size_t best = 0;

	if (!m->n)
		return false;
	for (size_t i = 1; i < m->n; i++) {
		const struct held *a = &m->h[i], *b = &m->h[best];
		uint64_t qa = qkey(a->e.cpu), qb = qkey(b->e.cpu);

		if (a->e.ts < b->e.ts ||
		    (a->e.ts == b->e.ts && (qa < qb || (qa == qb && a->seq < b->seq))))
			best = i;
	}
	if (!drain && m->h[best].e.ts + m->window > m->newest)
		return false;
	*e = m->h[best].e;
	m->h[best] = m->h[--m->n];
	if (e->ts > m->released)
		m->released = e->ts;
	return true;
}

/* one random run; returns the number of mismatches and counts events */
static unsigned run(unsigned nr_cpus, uint64_t window, unsigned nr_ops, unsigned *events,
		    size_t *peak)
{
	struct scx_reorder *o = scx_reorder__new(window);
	struct model m = { .window = window };
	uint64_t *last = calloc(nr_cpus, sizeof(*last)), now = 1000000000;
	unsigned bad = 0;

	for (unsigned op = 0; op < nr_ops; op++) {
		unsigned what = rnd() % 100;

		if (what < 85) { /* a batch of one CPU, in its own order mostly */
			unsigned cpu = rnd() % nr_cpus, len = 1 + rnd() % 8;
			for (unsigned k = 0; k < len; k++) {
				struct scx_event e;
				scx_event_init(&e, SCX_EV_SWITCH);
				e.cpu = (int32_t)cpu;
				switch (rnd() % 16) {
				case 0: /* older than its queue's tail */
					e.ts = last[cpu] > 50 ? last[cpu] - rnd() % 50 : 0;
					break;
				case 1: /* the same time as the tail */
					e.ts = last[cpu];
					break;
				case 2: /* a stray cpu id: the shared queue */
					e.cpu = rnd() % 2 ? -1 : 8192 + (int32_t)(rnd() % 100);
					e.ts = now - rnd() % (window + 1);
					break;
				default:
					e.ts = last[cpu] > now ? last[cpu] + rnd() % 5 :
								 now - rnd() % (window / 2 + 1);
				}
				if (e.cpu == (int32_t)cpu && e.ts > last[cpu])
					last[cpu] = e.ts;
				e.sw.next_pid = (int32_t)(*events)++; /* tells events apart */
				scx_reorder__push(o, &e);
				model_push(&m, &e);
			}
			now += rnd() % 20;
		} else if (what < 90) {
			now += rnd() % (window / 2 + 1);
			scx_reorder__advance(o, now);
			if (now > m.newest)
				m.newest = now;
		}
		/* pop what may go, as the readers do after each push */
		for (;;) {
			struct scx_event a, b;
			bool ra = scx_reorder__pop(o, &a, false), rb = model_pop(&m, &b, false);
			if (ra != rb || (ra && memcmp(&a, &b, sizeof(a)))) {
				if (bad++ < 3)
					printf("# op %u: pop %d/%d ts %llu/%llu\n", op, ra, rb,
					       (unsigned long long)a.ts, (unsigned long long)b.ts);
				break;
			}
			if (!ra)
				break;
		}
		if (scx_reorder__held(o) != m.n || scx_reorder__late(o) != m.late)
			bad++;
		if (m.n > *peak)
			*peak = m.n;
	}
	for (;;) {
		struct scx_event a, b;
		bool ra = scx_reorder__pop(o, &a, true), rb = model_pop(&m, &b, true);
		if (ra != rb || (ra && memcmp(&a, &b, sizeof(a))))
			bad++;
		if (!ra || !rb)
			break;
	}
	if (scx_reorder__held(o) || m.n)
		bad++;
	scx_reorder__free(o);
	free(m.h);
	free(last);
	return bad;
}

/* A window near the clock's range: ts + window must not wrap and release early. */
static void huge_window(void)
{
	struct scx_reorder *o = scx_reorder__new(1ull << 63);
	struct scx_event e = { .ts = (1ull << 63) + 5, .cpu = 0, .type = SCX_EV_SWITCH };
	struct scx_event out;

	scx_reorder__push(o, &e);
	ok(!scx_reorder__pop(o, &out, false), "a window of 2^63 ns holds an event of 2^63+5 ns");
	ok(scx_reorder__pop(o, &out, true) && out.ts == e.ts, "draining releases it");
	scx_reorder__free(o);
}

static struct scx_event at_ts(uint64_t ts, int32_t cpu)
{
	struct scx_event e;

	scx_event_init(&e, SCX_EV_WAKING);
	e.ts = ts;
	e.cpu = cpu;
	return e;
}

/* scx_sorter: the buffer only once the stream needs it, with the plan's two policies. */
static void sorter(void)
{
	struct scx_sorter s;
	struct scx_event e, out;
	uint64_t got[8];
	unsigned n = 0;

	/* in order: straight through, nothing held */
	scx_sorter__init(&s, 100, false);
	e = at_ts(10, 0);
	ok(scx_sorter__push(&s, &e) && !scx_sorter__sorting(&s), "in order: used at once");
	e = at_ts(200, 1);
	ok(scx_sorter__push(&s, &e), "in order: still no buffer");
	/* a late event engages the buffer, which knows 200 was seen */
	e = at_ts(150, 0);
	ok(!scx_sorter__push(&s, &e) && scx_sorter__sorting(&s), "late: held, sorting begins");
	e = at_ts(240, 1);
	ok(!scx_sorter__push(&s, &e), "sorting: every event goes through the buffer");
	while (n < 8 && scx_sorter__pop(&s, &out, false))
		got[n++] = out.ts;
	ok(n == 0, "nothing leaves before the newest is a window later (%u left)", n);
	e = at_ts(260, 0);
	scx_sorter__push(&s, &e);
	while (n < 8 && scx_sorter__pop(&s, &out, false))
		got[n++] = out.ts;
	ok(n == 1 && got[0] == 150, "150 leaves once 260 is seen (%u, first %llu)", n,
	   n ? (unsigned long long)got[0] : 0ull);
	while (n < 8 && scx_sorter__pop(&s, &out, true))
		got[n++] = out.ts;
	ok(n == 3 && got[1] == 240 && got[2] == 260, "draining gives the rest in order");
	scx_sorter__fini(&s);

	/* what passed straight through counts as seen: a late event already a
	 * window older than it leaves at once */
	scx_sorter__init(&s, 100, false);
	e = at_ts(300, 0);
	scx_sorter__push(&s, &e);
	e = at_ts(150, 1);
	scx_sorter__push(&s, &e);
	ok(scx_sorter__pop(&s, &out, false) && out.ts == 150,
	   "a late event more than a window behind the newest seen is not held");
	scx_sorter__fini(&s);

	/* a stream sorted per cpu only: the buffer from the first event */
	scx_sorter__init(&s, 100, true);
	e = at_ts(10, 0);
	ok(!scx_sorter__push(&s, &e) && scx_sorter__sorting(&s), "from the start: held at once");
	scx_sorter__fini(&s);

	/* window 0 (--reorder 0): late events pass as they come */
	scx_sorter__init(&s, 0, true);
	e = at_ts(200, 0);
	scx_sorter__push(&s, &e);
	e = at_ts(100, 0);
	ok(scx_sorter__push(&s, &e) && !scx_sorter__sorting(&s), "window 0: never sorts");
	scx_sorter__fini(&s);
}

int main(void)
{
	static const struct {
		unsigned cpus;
		uint64_t window;
		unsigned ops;
	} runs[] = {
		{ 1, 100, 20000 },   { 2, 100, 20000 },	   { 7, 1000, 20000 },
		{ 64, 1000, 20000 }, { 512, 5000, 20000 }, { 700, 200, 20000 },
	};

	for (unsigned i = 0; i < SCX_ARRAY_SIZE(runs); i++) {
		size_t peak = 0;
		unsigned events = 0,
			 bad = run(runs[i].cpus, runs[i].window, runs[i].ops, &events, &peak);
		is_int(bad, 0,
		       "%u cpus, window %llu: %u events as the model releases them (%zu held at most)",
		       runs[i].cpus, (unsigned long long)runs[i].window, events, peak);
	}
	huge_window();
	sorter();
	return done_testing();
}
