// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation engine (agg.h): per-CPU and per-thread state machines fed
 * one event at a time, cut into intervals of event time.  Events only touch
 * per-CPU and per-thread stats; LLC, node, process and comm figures are
 * merged from those when an interval closes, so the per-event cost does not
 * grow with the number of views asked for.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_int.h"
#include "core/reorder.h"
#include "core/util.h"

#define MAX_CPU_ID (SCX_MAX_CPUS - 1) /* beyond: the event's cpu is treated as unknown */
#define MAX_GAP_INTERVALS 64	      /* a longer gap becomes one snapshot, not millions */

const char *const scx_agg_by_names[SCX_AGG_BY__COUNT] = {
	"cpu", "llc", "node", "pid", "tgid", "comm", "dsq", "cgroup",
};

const char *const scx_softirq_names[SCX_NR_SOFTIRQS] = {
	"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
};

/* ---- stats ----------------------------------------------------------------- */

/* The histograms of struct scx_agg_stats, in SCX_AGG_HIST_* bit order. */
static const size_t hist_off[] = {
	offsetof(struct scx_agg_stats, wake_lat),  offsetof(struct scx_agg_stats, rq_delay),
	offsetof(struct scx_agg_stats, slice),	   offsetof(struct scx_agg_stats, dsq_lat),
	offsetof(struct scx_agg_stats, dsq_depth), offsetof(struct scx_agg_stats, slice_used),
	offsetof(struct scx_agg_stats, rq_depth),
};
_Static_assert(SCX_AGG_HIST_RQ_DEPTH == 1u << 6, "hist_off[] follows the SCX_AGG_HIST_* bits");

#define HIST_AT(s, i) ((struct scx_hist *)((char *)(s) + hist_off[i]))

/* Every histogram h of stats s but those of the SCX_AGG_HIST_* bits in skip. */
#define FOR_HISTS_BUT(s, h, skip) \
	for (unsigned h##_i = 0; h##_i < SCX_ARRAY_SIZE(hist_off); h##_i++) \
		for (struct scx_hist *h = HIST_AT(s, h##_i); h && !((skip) >> h##_i & 1); h = NULL)

#define FOR_HISTS(s, h) FOR_HISTS_BUT(s, h, 0u)

/* Histograms always empty in a CPU's (and its rollups') stats, and in others'. */
static inline unsigned cpu_skip(const struct scx_agg *a)
{
	return a->o.skip_hists | a->o.skip_cpu_hists;
}

static inline unsigned grp_skip(const struct scx_agg *a)
{
	return a->o.skip_hists;
}

static void stats_init(struct scx_agg_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->vtime_min = UINT64_MAX;
	FOR_HISTS(s, h)
	scx_hist_init(h);
}

_Static_assert(offsetof(struct scx_agg_stats, wake_lat) + 7 * sizeof(struct scx_hist) ==
		       sizeof(struct scx_agg_stats),
	       "the seven histograms end struct scx_agg_stats (stats_reset, FOR_HISTS)");

/* skip: histograms known to be empty (SCX_AGG_HIST_*), not even looked at */
static void stats_reset(struct scx_agg_stats *s, unsigned skip)
{
	/* the histograms come last and keep their memory */
	FOR_HISTS_BUT(s, h, skip)
	scx_hist_reset(h);
	memset(s, 0, offsetof(struct scx_agg_stats, wake_lat));
	s->vtime_min = UINT64_MAX;
}

static void stats_free(struct scx_agg_stats *s)
{
	FOR_HISTS(s, h)
	scx_hist_free(h);
}

static size_t stats_bytes(const struct scx_agg_stats *cs)
{
	struct scx_agg_stats *s = (struct scx_agg_stats *)cs;
	size_t n = 0;

	FOR_HISTS(s, h)
	n += scx_hist_bytes(h);
	return n;
}

_Static_assert(offsetof(struct scx_agg_stats, running_ns) ==
			       offsetof(struct scx_agg_stats, rq_depth_max) +
				       3 * sizeof(uint64_t) &&
		       offsetof(struct scx_agg_stats, freq_ns) + sizeof(uint64_t) ==
			       offsetof(struct scx_agg_stats, wake_lat),
	       "stats_merge: the sums, the three that are not, the frequency, the histograms");

/* d += s; skip: histograms empty in both (SCX_AGG_HIST_*), not even looked at */
static void stats_merge(struct scx_agg_stats *d, const struct scx_agg_stats *s, unsigned skip)
{
	/* two runs of uint64 sums, around the three that are not sums (agg.h) */
	static const size_t sums[2][2] = {
		{ 0, offsetof(struct scx_agg_stats, rq_depth_max) },
		{ offsetof(struct scx_agg_stats, running_ns),
		  offsetof(struct scx_agg_stats, freq_khz_ns) },
	};
	uint64_t *du = (uint64_t *)d;
	const uint64_t *su = (const uint64_t *)s;

	for (int r = 0; r < 2; r++)
		for (size_t i = sums[r][0] / 8; i < sums[r][1] / 8; i++)
			du[i] += su[i];
	d->rq_depth_max = SCX_MAX(d->rq_depth_max, s->rq_depth_max);
	d->vtime_min = SCX_MIN(d->vtime_min, s->vtime_min);
	d->vtime_max = SCX_MAX(d->vtime_max, s->vtime_max);
	d->freq_khz_ns += s->freq_khz_ns;
	d->freq_ns += s->freq_ns;
	FOR_HISTS_BUT(d, h, skip)
	scx_hist_merge(h, HIST_AT(s, h_i));
}

bool agg_stats_active(const struct scx_agg_stats *s)
{
	return s->busy_ns || s->slices || s->switches || s->wakeups || s->wakeups_new ||
	       s->runnable_ns || s->preempted_ns || s->forks || s->execs || s->exits ||
	       s->migrations || s->dsq_inserts;
}

/* ---- tables ------------------------------------------------------------------ */

static uint64_t hash_comm(const char *c)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (int i = 0; i < SCX_COMM_LEN && c[i]; i++)
		h = (h ^ (uint8_t)c[i]) * 0x100000001b3ull;
	return h;
}

/*
 * At most GROUPS_MAX processes, comms or DSQs per interval: past that, new
 * ones are merged into one group with key -1 and comm "(other)", so memory
 * stays bounded however many processes come and go in an interval.
 */
#define GROUPS_MAX (1u << 14)

/* Group by key, or by comm when comm is not NULL. */
static struct grp *gtab_get(struct gtab *t, int64_t key, const char *comm)
{
	uint64_t k = (uint64_t)key;
	struct grp **slot, *g;

	if (comm) {
		/* keyed by the hash of comm, the next key on a collision (core/hashmap.h) */
		for (k = hash_comm(comm); (slot = scx_map_get(&t->map, k)); k++)
			if (!strncmp((*slot)->comm, comm, SCX_COMM_LEN))
				return *slot;
	} else if ((slot = scx_map_get(&t->map, k))) {
		return *slot;
	}
	if (t->map.n >= GROUPS_MAX) {
		if (!t->other) {
			t->other = scx_xcalloc(1, sizeof(*t->other));
			stats_init(&t->other->s);
			t->other->key = -1;
			strcpy(t->other->comm, "(other)");
		}
		return t->other;
	}
	if ((g = t->spare)) {
		t->spare = g->next_spare;
		memset(g->comm, 0, sizeof(g->comm));
		g->nr = 0;
	} else {
		g = scx_xcalloc(1, sizeof(*g));
		stats_init(&g->s);
	}
	g->key = key;
	if (comm) {
		strncpy(g->comm, comm, SCX_COMM_LEN - 1);
		if (!g->comm[0]) /* "" would read as "keyed by number" */
			g->comm[0] = '?';
	}
	*(struct grp **)scx_map_put(&t->map, k, NULL) = g;
	return g;
}

/* Empty the table for the next interval; its groups become spares (skip: see stats_reset). */
static void gtab_clear(struct gtab *t, unsigned skip)
{
	struct grp *g;
	size_t pos = 0;

	while ((g = agg_gtab_next(t, &pos))) {
		stats_reset(&g->s, skip);
		g->next_spare = t->spare;
		t->spare = g;
	}
	scx_map_clear(&t->map);
	t->other = NULL;
}

static void gtab_free(struct gtab *t)
{
	gtab_clear(t, 0);
	while (t->spare) {
		struct grp *g = t->spare;

		t->spare = g->next_spare;
		stats_free(&g->s);
		free(g);
	}
	scx_map_free(&t->map);
}

/*
 * Pairs of an interval, at most PAIRS_MAX: past that, new pairs land in a
 * scratch entry and are counted in t->dropped, so memory stays bounded.
 */
#define PAIRS_MAX (1u << 16)

static struct pair *ptab_get(struct ptab *t, int32_t a, int32_t b)
{
	uint64_t key = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) + 1;
	struct pair *p = scx_map_get(&t->map, key);

	if (p)
		return p;
	if (t->map.n >= PAIRS_MAX) {
		t->dropped++;
		memset(&t->scratch, 0, sizeof(t->scratch));
		return &t->scratch;
	}
	p = scx_map_put(&t->map, key, NULL);
	p->key = key;
	return p;
}

static void ptab_clear(struct ptab *t)
{
	scx_map_clear(&t->map);
	t->dropped = 0;
}

/* ---- threads ----------------------------------------------------------------- */

/*
 * Without per-thread figures (a->tstats) a thread is its state machine only:
 * the allocation stops where s begins, a seventh of the whole.
 */
static struct thread *thread_alloc(bool with_stats)
{
	struct thread *t;

	t = scx_xcalloc_aligned(_Alignof(struct thread),
				with_stats ? sizeof(*t) : offsetof(struct thread, s));
	t->has_stats = with_stats;
	if (with_stats)
		stats_init(&t->s);
	return t;
}

static void evict_tasks(struct scx_agg *a);

static struct thread *thread_new(struct scx_agg *a, int32_t pid, int32_t tgid, const char *comm)
{
	struct thread *t;

	if (a->threads.n >= a->max_tasks)
		evict_tasks(a);
	t = thread_alloc(a->tstats);
	t->pid = pid;
	t->tgid = tgid > 0 ? tgid : pid;
	if (comm)
		memcpy(t->comm, comm, SCX_COMM_LEN - 1);
	t->qcpu = -1;
	t->cpu = -1;
	t->dsq = SCX_DSQ_NONE;
	*(struct thread **)scx_map_put(&a->threads, (uint32_t)pid, NULL) = t;
	return t;
}

static inline struct thread *thread_get(struct scx_agg *a, int32_t pid, int32_t tgid,
					const char *comm)
{
	struct thread *t = agg_thread_find(a, pid);

	if (!t)
		return thread_new(a, pid, tgid, comm);
	if (tgid > 0)
		t->tgid = tgid;
	return t;
}

static void thread_free(struct thread *t)
{
	if (t->has_stats)
		stats_free(&t->s);
	free(t);
}

/* Per-thread figures are asked for from now on: give every thread its own. */
static void threads_add_stats(struct scx_agg *a)
{
	struct thread **slot;
	size_t pos = 0;

	while ((slot = scx_map_next(&a->threads, &pos, NULL))) {
		struct thread *t;

		if ((*slot)->has_stats)
			continue;
		t = thread_alloc(true);
		memcpy(t, *slot, offsetof(struct thread, s));
		t->has_stats = true;
		free(*slot);
		*slot = t;
	}
}

static void fold_thread(struct scx_agg *a, struct thread *t)
{
	struct grp *g;

	if (t->folded || !t->has_stats || !agg_stats_active(&t->s) || (!a->fold && !a->cg.on))
		return;
	t->folded = true;
	if (a->cg.on) {
		g = gtab_get(&a->cgroup, agg_cgroup_key(a, t->cgroup), NULL);
		stats_merge(&g->s, &t->s, grp_skip(a));
		g->nr++;
	}
	if (!a->fold)
		return;
	g = gtab_get(&a->tgid, t->tgid, NULL);
	stats_merge(&g->s, &t->s, grp_skip(a));
	g->nr++;
	if (t->pid == t->tgid || !g->comm[0])
		memcpy(g->comm, t->comm, SCX_COMM_LEN);
	if (a->o.by & (1u << SCX_AGG_COMM)) { /* only --by comm reads the comm table */
		g = gtab_get(&a->comm, 0, t->comm);
		stats_merge(&g->s, &t->s, grp_skip(a));
		g->nr++;
	}
	t->folded = true;
}

static void account_state(struct thread *t, uint64_t ts)
{
	uint64_t d = ts > t->state_ts ? ts - t->state_ts : 0;

	t->state_ts = SCX_MAX(ts, t->state_ts);
	switch (t->state) {
	case TS_RUNNING:
		t->s.running_ns += d;
		t->s.busy_ns += d;
		break;
	case TS_RUNNABLE:
		t->s.runnable_ns += d;
		break;
	case TS_PREEMPTED:
		t->s.preempted_ns += d;
		break;
	case TS_SLEEPING:
		t->s.sleeping_ns += d;
		break;
	case TS_BLOCKED:
		t->s.blocked_ns += d;
		break;
	case TS_OTHER:
		t->s.other_ns += d;
		break;
	}
}

static void set_state(struct scx_agg *a, struct thread *t, uint64_t ts, uint8_t st)
{
	if (a->tstats)
		account_state(t, ts);
	if (a->place)
		agg_place_state(a, t->state, st, ts);
	t->state = st;
	t->state_ts = ts;
}

/* ---- cpus ---------------------------------------------------------------------- */

static struct cpu *cpu_get_slow(struct scx_agg *a, int32_t id)
{
	if (id < 0 || id > MAX_CPU_ID)
		return NULL;
	if ((unsigned)id >= a->nr_cpus) {
		unsigned n = SCX_MAX((unsigned)id + 1, a->nr_cpus * 2);
		struct cpu *nc = scx_xcalloc_aligned(_Alignof(struct cpu), n * sizeof(*nc));

		if (a->nr_cpus)
			memcpy(nc, a->cpus, a->nr_cpus * sizeof(*nc));
		free(a->cpus);
		a->cpus = nc;
		for (unsigned i = a->nr_cpus; i < n; i++) {
			struct cpu *c = &a->cpus[i];
			const struct scx_cpu_topo *ct = a->topo ? scx_topo__cpu(a->topo, i) : NULL;

			memset(c, 0, sizeof(*c));
			c->id = i;
			c->llc = ct ? ct->llc : -1;
			c->node = ct ? ct->node : -1;
			c->cstate = -1;
			c->softirq = -1;
			stats_init(&c->s);
		}
		a->nr_cpus = n;
	}
	a->cpus[id].seen = true;
	return &a->cpus[id];
}

static inline struct cpu *cpu_get(struct scx_agg *a, int32_t id)
{
	if ((uint32_t)id < a->nr_cpus) {
		a->cpus[id].seen = true;
		return &a->cpus[id];
	}
	return cpu_get_slow(a, id);
}

static void cpu_account(struct cpu *c, uint64_t ts)
{
	uint64_t d;

	if (c->known && ts > c->acct_ts) {
		d = ts - c->acct_ts;
		if (c->curr)
			c->s.busy_ns += d;
		else
			c->s.idle_ns += d;
	}
	c->acct_ts = SCX_MAX(c->acct_ts, ts);
}

/* An idle CPU with nothing queued for it could take a waiting task (an offline one cannot). */
static bool wc_idle(const struct cpu *c)
{
	return c->known && !c->curr && !c->nr_queued && !c->offline;
}

/*
 * Before c's running task or queue changes at ts: advance the clock of
 * time with a task waiting on a busy CPU, and take c's part out.
 */
static void wc_leave(struct scx_agg *a, struct cpu *c, uint64_t ts)
{
	if (ts > a->wc_ts) {
		if (a->wc_waiting)
			a->wc_clock += ts - a->wc_ts;
		a->wc_ts = ts;
	}
	if (wc_idle(c))
		c->s.wc_loss_ns += a->wc_clock - c->wc_mark;
	else if (c->known && c->curr)
		a->wc_waiting -= c->nr_queued;
}

/* ... and after: put c's new part in. */
static void wc_enter(struct scx_agg *a, struct cpu *c)
{
	if (wc_idle(c))
		c->wc_mark = a->wc_clock;
	else if (c->known && c->curr)
		a->wc_waiting += c->nr_queued;
}

static void depth_account(struct cpu *c, uint64_t ts)
{
	if (ts > c->depth_ts && c->depth_ts)
		c->s.rq_depth_ns += (ts - c->depth_ts) * c->nr_queued;
	c->depth_ts = SCX_MAX(c->depth_ts, ts);
}

/* Count v in a histogram of a CPU's stats, or of a task's or DSQ's, unless skipped. */
static inline void cpu_hist(const struct scx_agg *a, struct scx_hist *h, unsigned bit, uint64_t v)
{
	if (!((a->o.skip_hists | a->o.skip_cpu_hists) & bit))
		scx_hist_add(h, v);
}

static inline void grp_hist(const struct scx_agg *a, struct scx_hist *h, unsigned bit, uint64_t v)
{
	if (!(a->o.skip_hists & bit))
		scx_hist_add(h, v);
}

static void enqueue(struct scx_agg *a, struct thread *t, int32_t cpu, uint64_t ts)
{
	struct cpu *c = cpu_get(a, cpu);

	if (!c)
		return;
	depth_account(c, ts);
	wc_leave(a, c, ts);
	c->nr_queued++;
	wc_enter(a, c);
	t->qcpu = cpu;
	if (a->place)
		agg_place_queue(a, c, t, 1, ts);
	cpu_hist(a, &c->s.rq_depth, SCX_AGG_HIST_RQ_DEPTH, c->nr_queued);
	c->s.rq_depth_max = SCX_MAX(c->s.rq_depth_max, c->nr_queued);
}

static void dequeue(struct scx_agg *a, struct thread *t, uint64_t ts)
{
	struct cpu *c = cpu_get(a, t->qcpu);

	t->qcpu = -1;
	if (!c || !c->nr_queued)
		return;
	depth_account(c, ts);
	wc_leave(a, c, ts);
	c->nr_queued--;
	wc_enter(a, c);
	if (a->place)
		agg_place_queue(a, c, t, -1, ts);
}

/* ---- the bound on threads ------------------------------------------------------- */

/* On a CPU now: its slice is still to be counted, never forgotten. */
static bool thread_on_cpu(const struct scx_agg *a, const struct thread *t)
{
	const struct cpu *c;

	if (t->state != TS_RUNNING || t->cpu < 0 || (unsigned)t->cpu >= a->nr_cpus)
		return false;
	c = &a->cpus[t->cpu];
	return c->known && c->curr == t->pid;
}

/* Ended: freed and kept for its --by pid row, or switched out for good. */
static bool thread_ended(const struct thread *t)
{
	return t->dead || t->state == TS_OTHER;
}

/* Forget t as sched_process_free would; its figures go to its process first. */
static void thread_evict(struct scx_agg *a, struct thread *t, size_t *pos)
{
	uint64_t ts = a->last_ts;

	if (!t->dead) {
		if (a->tstats)
			account_state(t, ts);
		if (t->qcpu >= 0)
			dequeue(a, t, ts);
		if (a->place)
			agg_place_state(a, t->state, TS_UNKNOWN, ts);
	} else {
		a->ndead--;
	}
	fold_thread(a, t);
	scx_map_del_at(&a->threads, pos);
	thread_free(t);
	a->snap.tasks_dropped++;
}

static int cmp_ts(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * The table is full: forget a sixteenth of it, so that the cost of choosing
 * (a pass over the threads and a sort of their last-seen times) is paid
 * once per max_tasks/16 new threads.  Threads that ended go first, then the
 * ones seen least recently (state_ts: their last switch or wakeup); the
 * ones on a CPU stay.
 */
static void evict_tasks(struct scx_agg *a)
{
	size_t want = a->threads.n - a->max_tasks + 1 + a->max_tasks / 16, n = 0, pos;
	uint64_t cut = UINT64_MAX;
	struct thread **slot;

	pos = 0;
	while (want && (slot = scx_map_next(&a->threads, &pos, NULL))) {
		if (thread_ended(*slot) && !thread_on_cpu(a, *slot)) {
			thread_evict(a, *slot, &pos);
			want--;
		}
	}
	if (!want)
		return;
	if (!a->evict_ts)
		a->evict_ts = scx_xmalloc(a->max_tasks * sizeof(*a->evict_ts));
	pos = 0;
	while (n < a->max_tasks && (slot = scx_map_next(&a->threads, &pos, NULL)))
		if (!thread_on_cpu(a, *slot))
			a->evict_ts[n++] = (*slot)->state_ts;
	if (!n)
		return;
	qsort(a->evict_ts, n, sizeof(*a->evict_ts), cmp_ts);
	cut = a->evict_ts[SCX_MIN(want, n) - 1];
	pos = 0;
	while (want && (slot = scx_map_next(&a->threads, &pos, NULL))) {
		if ((*slot)->state_ts <= cut && !thread_on_cpu(a, *slot)) {
			thread_evict(a, *slot, &pos);
			want--;
		}
	}
}

/* ---- event handlers ---------------------------------------------------------- */

static uint8_t state_of(int64_t prev_state)
{
	if (prev_state & SCX_STATE_PREEMPTED)
		return TS_PREEMPTED;
	if (!(prev_state & 0xff))
		return TS_RUNNABLE;
	if (prev_state & SCX_STATE_UNINTERRUPTIBLE)
		return TS_BLOCKED;
	if (prev_state & (SCX_STATE_INTERRUPTIBLE | SCX_STATE_IDLE))
		return TS_SLEEPING;
	return TS_OTHER;
}

static void dsq_seen(struct scx_agg *a, struct thread *t, uint64_t dsq, uint64_t vtime,
		     uint32_t depth, struct scx_agg_stats **gs)
{
	struct grp *g = gtab_get(&a->dsq, (int64_t)dsq, NULL);

	grp_hist(a, &g->s.dsq_depth, SCX_AGG_HIST_DSQ_DEPTH, depth);
	if (vtime) {
		g->s.vtime_min = SCX_MIN(g->s.vtime_min, vtime);
		g->s.vtime_max = SCX_MAX(g->s.vtime_max, vtime);
	}
	if (t)
		t->dsq = dsq;
	*gs = &g->s;
}

/*
 * Task p was preempted (switched out runnable) for next: count the pair of
 * their cgroups, and remember the preemptor's so the wait p has until it
 * runs again is charged to the pair (cgroup-preemptions report).
 */
static void cgroup_preempted(struct scx_agg *a, struct thread *p, const struct scx_ev_switch *sw)
{
	struct thread *n = agg_thread_find(a, sw->next_pid);
	uint64_t ncg = sw->next_cgroup != SCX_CGROUP_NONE ? sw->next_cgroup : n ? n->cgroup : 0;
	uint32_t pk = agg_cgroup_key(a, p->cgroup), nk = agg_cgroup_key(a, ncg);

	ptab_get(&a->cg.preempts, pk, nk)->count++;
	p->preempt_cg = nk + 1;
}

/*
 * A figure of one set of stats (a thread's, a CPU's or a DSQ's), written once
 * for all three; skip: cpu_skip() for a CPU's stats, grp_skip() for the others.
 */
static inline void count_switch(struct scx_agg_stats *s, bool invol)
{
	s->switches++;
	if (invol)
		s->involuntary++;
	else
		s->voluntary++;
}

static inline void count_slice_used(struct scx_agg_stats *s, unsigned skip, uint64_t ns)
{
	if (!(skip & SCX_AGG_HIST_SLICE_USED))
		scx_hist_add(&s->slice_used, ns);
	s->slice_used_n++;
	s->slice_used_ns += ns;
}

static inline void count_dispatch(struct scx_agg_stats *s, unsigned skip, uint64_t lat_ns)
{
	if (!(skip & SCX_AGG_HIST_DSQ_LAT))
		scx_hist_add(&s->dsq_lat, lat_ns);
	s->dsq_dispatches++;
}

/* One more wait of d ns charged to a (waker, wakee) or (preempted, preemptor) pair. */
static inline void pair_wait(struct pair *pr, uint64_t d)
{
	pr->runs++;
	pr->sum_ns += d;
	pr->max_ns = SCX_MAX(pr->max_ns, d);
}

/* A switch on c at ts: the slice of the task that ran there ends. */
static void cpu_slice_end(struct scx_agg *a, struct cpu *c, uint64_t ts)
{
	cpu_account(c, ts);
	if (c->known && c->curr && ts >= c->run_start)
		cpu_hist(a, &c->s.slice, SCX_AGG_HIST_SLICE, ts - c->run_start);
}

/* p leaves e's CPU still runnable: it waits in that CPU's queue from now. */
static void switched_out_runnable(struct scx_agg *a, struct thread *p, const struct scx_event *e)
{
	const struct scx_ev_switch *sw = &e->sw;

	p->runnable_ts = e->ts;
	p->waking_ts = p->wakeup_ts = 0;
	p->chain_len = 0;
	if (a->place)
		agg_place_preempted(a, p, e->ts);
	enqueue(a, p, e->cpu, e->ts);
	if (sw->next_pid && a->pairs)
		ptab_get(&a->preempts, sw->next_pid, sw->prev_pid)->count++;
	if (sw->next_pid && a->cg.pairs)
		cgroup_preempted(a, p, sw);
}

/* The slice p used, as sched_ext counts it: p's, c's and p's DSQ's figures. */
static void slice_used(struct scx_agg *a, struct thread *p, struct cpu *c, uint64_t ns)
{
	if (a->tstats)
		count_slice_used(&p->s, grp_skip(a), ns);
	if (c)
		count_slice_used(&c->s, cpu_skip(a), ns);
	if (p->dsq != SCX_DSQ_NONE)
		count_slice_used(&gtab_get(&a->dsq, (int64_t)p->dsq, NULL)->s, grp_skip(a), ns);
}

/* The previous task of e's switch leaves CPU c (NULL: a CPU past the cap). */
static void switch_out(struct scx_agg *a, struct cpu *c, const struct scx_event *e)
{
	const struct scx_ev_switch *sw = &e->sw;
	uint8_t st = state_of(sw->prev_state);
	bool invol = st == TS_RUNNABLE || st == TS_PREEMPTED;
	struct thread *p = thread_get(a, sw->prev_pid, sw->prev_tgid, sw->prev_comm);
	uint64_t ts = e->ts;

	p->cpu = e->cpu; /* the CPU it ran on last, for wakeup placement */
	if (sw->prev_cgroup != SCX_CGROUP_NONE)
		p->cgroup = sw->prev_cgroup;
	if (a->tstats) {
		if (p->state == TS_RUNNING && c && c->known && c->curr == p->pid &&
		    ts >= c->run_start)
			grp_hist(a, &p->s.slice, SCX_AGG_HIST_SLICE, ts - c->run_start);
		count_switch(&p->s, invol);
	}
	set_state(a, p, ts, st);
	if (c)
		count_switch(&c->s, invol);
	if (invol)
		switched_out_runnable(a, p, e);
	if (sw->dsq_id != SCX_DSQ_NONE)
		slice_used(a, p, c, sw->prev_slice_used_ns);
}

/* Keep n's wakeup chain if it is among the NR_CHAINS of most latency. */
static void keep_chain(struct scx_agg *a, const struct thread *n)
{
	struct chain *ch = NULL;

	if (a->nr_chains < NR_CHAINS) {
		ch = &a->chains[a->nr_chains++];
	} else {
		struct chain *lo = &a->chains[0];

		for (unsigned i = 1; i < NR_CHAINS; i++)
			if (a->chains[i].lat < lo->lat)
				lo = &a->chains[i];
		if (lo->lat < n->chain_lat)
			ch = lo;
	}
	if (ch) {
		memcpy(ch->p, n->chain, n->chain_len * sizeof(int32_t));
		ch->p[n->chain_len] = n->pid;
		ch->len = n->chain_len + 1;
		ch->lat = n->chain_lat;
	}
}

/* n, woken at n->waking_ts, runs at ts on c: its wakeup latency. */
static void woken_runs(struct scx_agg *a, struct thread *n, struct cpu *c, uint64_t ts)
{
	uint64_t w = ts >= n->waking_ts ? ts - n->waking_ts : 0;

	if (a->tstats)
		grp_hist(a, &n->s.wake_lat, SCX_AGG_HIST_WAKE_LAT, w);
	if (n->wakeup_ts && n->wakeup_ts >= n->waking_ts && ts >= n->wakeup_ts) {
		scx_hist_add(&a->lb_wake, n->wakeup_ts - n->waking_ts);
		scx_hist_add(&a->lb_run, ts - n->wakeup_ts);
	}
	if (c)
		cpu_hist(a, &c->s.wake_lat, SCX_AGG_HIST_WAKE_LAT, w);
	if (!a->pairs)
		return;
	pair_wait(ptab_get(&a->wakes, n->waker, n->pid), w);
	n->chain_lat += w;
	if (n->chain_len >= 2)
		keep_chain(a, n);
}

/* n, runnable since n->runnable_ts, runs on e's CPU c: its run-queue delay. */
static void runnable_runs(struct scx_agg *a, struct thread *n, struct cpu *c,
			  const struct scx_event *e)
{
	uint64_t ts = e->ts, d = ts >= n->runnable_ts ? ts - n->runnable_ts : 0;

	if (n->preempt_cg && !n->waking_ts && a->cg.pairs)
		pair_wait(
			ptab_get(&a->cg.preempts, agg_cgroup_key(a, n->cgroup), n->preempt_cg - 1),
			d);
	if (a->place)
		agg_place_run(a, n, e->cpu, ts);
	if (a->tstats)
		grp_hist(a, &n->s.rq_delay, SCX_AGG_HIST_RQ_DELAY, d);
	if (c)
		cpu_hist(a, &c->s.rq_delay, SCX_AGG_HIST_RQ_DELAY, d);
	if (!n->waking_ts)
		scx_hist_add(&a->lb_preempt, d);
	else
		woken_runs(a, n, c, ts);
}

/* n was dispatched from a DSQ: the DSQ's, n's and c's dispatch figures. */
static void dispatched(struct scx_agg *a, struct thread *n, struct cpu *c,
		       const struct scx_ev_switch *sw)
{
	struct scx_agg_stats *gs;

	dsq_seen(a, n, sw->dsq_id, sw->dsq_vtime, sw->dsq_depth, &gs);
	count_dispatch(gs, grp_skip(a), sw->dsq_lat_ns);
	if (a->tstats)
		count_dispatch(&n->s, grp_skip(a), sw->dsq_lat_ns);
	if (c) {
		count_dispatch(&c->s, cpu_skip(a), sw->dsq_lat_ns);
		cpu_hist(a, &c->s.dsq_depth, SCX_AGG_HIST_DSQ_DEPTH, sw->dsq_depth);
	}
}

/* The next task of e's switch starts running on CPU c (NULL: a CPU past the cap). */
static void switch_in(struct scx_agg *a, struct cpu *c, const struct scx_event *e)
{
	const struct scx_ev_switch *sw = &e->sw;
	struct thread *n = thread_get(a, sw->next_pid, sw->next_tgid, sw->next_comm);
	uint64_t ts = e->ts;

	if (sw->next_cgroup != SCX_CGROUP_NONE)
		n->cgroup = sw->next_cgroup;
	if (n->state == TS_RUNNABLE || n->state == TS_PREEMPTED)
		runnable_runs(a, n, c, e);
	else
		n->chain_len = 0;
	n->preempt_cg = 0;
	if (n->qcpu >= 0)
		dequeue(a, n, ts);
	set_state(a, n, ts, TS_RUNNING);
	n->runnable_ts = n->waking_ts = n->wakeup_ts = 0;
	n->cpu = e->cpu;
	if (a->tstats)
		n->s.slices++;
	if (c)
		c->s.slices++;
	if (sw->dsq_id != SCX_DSQ_NONE)
		dispatched(a, n, c, sw);
}

/* c runs pid from ts on (0: idle). */
static void cpu_runs(struct scx_agg *a, struct cpu *c, int32_t pid, uint64_t ts)
{
	wc_leave(a, c, ts);
	c->known = true;
	c->curr = pid;
	c->run_start = ts;
	wc_enter(a, c);
	if (a->place)
		agg_place_cpu(a, c, ts);
}

/*
 * sched_switch: the CPU's slice ends, the previous task leaves (it slept,
 * blocked or was preempted), the next one runs, and the CPU runs it.
 */
static void on_switch(struct scx_agg *a, const struct scx_event *e)
{
	struct cpu *c = cpu_get(a, e->cpu);

	if (c)
		cpu_slice_end(a, c, e->ts);
	if (e->sw.prev_pid)
		switch_out(a, c, e);
	if (e->sw.next_pid)
		switch_in(a, c, e);
	if (c)
		cpu_runs(a, c, e->sw.next_pid, e->ts);
}

static void on_wake(struct scx_agg *a, const struct scx_event *e)
{
	const struct scx_ev_wakeup *w = &e->wake;
	struct thread *t, *wk;
	struct cpu *c;

	if (!w->pid)
		return;
	t = thread_get(a, w->pid, w->tgid, w->comm);
	if (w->cgroup != SCX_CGROUP_NONE)
		t->cgroup = w->cgroup;
	if (e->type == SCX_EV_WAKEUP && t->state == TS_RUNNABLE && t->waking_ts) {
		if (!t->wakeup_ts)
			t->wakeup_ts = e->ts;
		if (a->place)
			agg_place_wakeup_done(a, t, e);
		return;
	}
	if (t->state == TS_RUNNING || t->state == TS_RUNNABLE || t->state == TS_PREEMPTED)
		return; /* spurious: it never slept */
	set_state(a, t, e->ts, TS_RUNNABLE);
	t->runnable_ts = t->waking_ts = e->ts;
	t->wakeup_ts = e->type == SCX_EV_WAKEUP ? e->ts : 0;
	t->waker = w->waker_pid;
	c = cpu_get(a, w->target_cpu >= 0 ? w->target_cpu : e->cpu);
	if (e->type == SCX_EV_WAKEUP_NEW) {
		if (a->tstats)
			t->s.wakeups_new++;
		if (c)
			c->s.wakeups_new++;
	} else {
		if (a->tstats)
			t->s.wakeups++;
		if (c)
			c->s.wakeups++;
	}
	if (a->place)
		agg_place_wake(a, t, e);
	if (c)
		enqueue(a, t, c->id, e->ts);
	if (!a->pairs)
		return;
	ptab_get(&a->wakes, w->waker_pid, w->pid)->count++;
	/* a waker that runs because it was woken extends its own chain */
	t->chain_len = 0;
	t->chain_lat = 0;
	wk = w->waker_pid ? agg_thread_find(a, w->waker_pid) : NULL;
	if (wk && wk->state == TS_RUNNING) {
		unsigned n = SCX_MIN(wk->chain_len, CHAIN_MAX - 1);

		memcpy(t->chain, wk->chain + (wk->chain_len - n), n * sizeof(int32_t));
		t->chain[n] = wk->pid;
		t->chain_len = n + 1;
		t->chain_lat = wk->chain_lat;
	}
}

/*
 * CPU hotplug.  Every step's cpuhp_enter carries the target of the whole
 * hotplug operation: CPUHP_OFFLINE (0) when the CPU goes down, CPUHP_ONLINE
 * when it comes up.  The CPU is offline from the first teardown step (a
 * target below the step; the first steps take it out of the scheduler's
 * active CPUs) to the last bring-up step, the one just below CPUHP_ONLINE
 * (CPUHP_AP_ACTIVE, or a step after it in newer kernels: the CPU then counts
 * as offline one step longer).  Offline, it is not idle for work
 * conservation: no task can be placed there.
 */
static void on_cpuhp(struct scx_agg *a, const struct scx_event *e)
{
	const struct scx_ev_cpuhp *h = &e->cpuhp;
	struct cpu *c;
	bool off;

	if (a->place)
		a->place->seen_cpuhp = true;
	if (e->type != SCX_EV_CPUHP_ENTER || h->cpu_id > MAX_CPU_ID)
		return;
	if (h->target < h->idx)
		off = true;
	else if (h->target > h->idx && h->idx == h->target - 1)
		off = false;
	else
		return;
	c = cpu_get(a, (int32_t)h->cpu_id);
	if (!c || c->offline == off)
		return;
	wc_leave(a, c, e->ts);
	c->offline = off;
	wc_enter(a, c);
	if (a->place)
		agg_place_cpu(a, c, e->ts);
}

static void on_migrate(struct scx_agg *a, const struct scx_event *e)
{
	const struct scx_ev_migrate *m = &e->mig;
	struct cpu *o = cpu_get(a, m->orig_cpu), *d = cpu_get(a, m->dest_cpu);
	struct thread *t;
	bool xllc, xnode;

	if (!m->pid)
		return;
	t = thread_get(a, m->pid, m->tgid, m->comm);
	if (a->place)
		agg_place_migrate(a, t, e);
	xllc = o && d && o->llc != d->llc;
	xnode = o && d && o->node != d->node;
	if (a->tstats) {
		t->s.migrations++;
		t->s.migr_cross_llc += xllc;
		t->s.migr_cross_node += xnode;
	}
	if (d) {
		d->s.migrations++;
		d->s.migr_cross_llc += xllc;
		d->s.migr_cross_node += xnode;
	}
	if (t->qcpu >= 0 && d && t->qcpu != d->id) {
		dequeue(a, t, e->ts);
		enqueue(a, t, d->id, e->ts);
	}
	if (t->state != TS_RUNNING)
		t->cpu = m->dest_cpu;
}

static void cidle_account(struct cpu *c, uint64_t ts)
{
	if (c->cidle_seen && ts > c->cidle_ts)
		c->s.cstate_obs_ns += ts - c->cidle_ts;
	c->cidle_ts = SCX_MAX(c->cidle_ts, ts);
}

static void on_idle(struct scx_agg *a, struct cpu *c, uint32_t state, uint64_t ts)
{
	cidle_account(c, ts);
	c->cidle_seen = true;
	if (c->cstate >= 0 && ts > c->cstate_ts)
		c->s.cstate_ns[c->cstate] += ts - c->cstate_ts;
	c->cstate_ts = SCX_MAX(ts, c->cstate_ts);
	if (state == SCX_IDLE_EXIT) {
		c->cstate = -1;
		return;
	}
	c->cstate = SCX_MIN(state, SCX_AGG_IDLE_STATES - 1);
	c->s.cstates[c->cstate]++;
}

static void freq_account(struct cpu *c, uint64_t ts)
{
	if (c->freq_khz && ts > c->freq_ts) {
		c->s.freq_khz_ns += (double)c->freq_khz * (double)(ts - c->freq_ts);
		c->s.freq_ns += ts - c->freq_ts;
	}
	c->freq_ts = SCX_MAX(ts, c->freq_ts);
}

static void handle(struct scx_agg *a, const struct scx_event *e)
{
	struct cpu *c;
	struct thread *t;
	uint64_t ts = e->ts;

	switch (e->type) {
	case SCX_EV_SWITCH:
		on_switch(a, e);
		break;
	case SCX_EV_WAKING:
	case SCX_EV_WAKEUP:
	case SCX_EV_WAKEUP_NEW:
		on_wake(a, e);
		break;
	case SCX_EV_MIGRATE:
		on_migrate(a, e);
		break;
	case SCX_EV_FORK:
		if (e->fork.parent_pid) {
			t = thread_get(a, e->fork.parent_pid, e->fork.parent_tgid,
				       e->fork.parent_comm);
			if (a->tstats)
				t->s.forks++;
		}
		if ((c = cpu_get(a, e->cpu)))
			c->s.forks++;
		if (e->fork.child_pid) {
			t = thread_get(a, e->fork.child_pid, e->fork.child_tgid,
				       e->fork.child_comm);
			memcpy(t->comm, e->fork.child_comm, SCX_COMM_LEN - 1);
		}
		break;
	case SCX_EV_EXEC:
		if (!e->exec.pid)
			break;
		t = thread_get(a, e->exec.pid, e->exec.tgid, e->exec.comm);
		memcpy(t->comm, e->exec.comm, SCX_COMM_LEN - 1);
		if (a->tstats)
			t->s.execs++;
		if ((c = cpu_get(a, e->cpu)))
			c->s.execs++;
		break;
	case SCX_EV_EXIT:
		if (!e->task.pid)
			break;
		t = thread_get(a, e->task.pid, e->task.tgid, e->task.comm);
		if (a->tstats)
			t->s.exits++;
		if ((c = cpu_get(a, e->cpu)))
			c->s.exits++;
		break;
	case SCX_EV_FREE:
		if (!e->task.pid || !(t = agg_thread_find(a, e->task.pid)))
			break;
		if (a->tstats)
			account_state(t, ts);
		if (t->qcpu >= 0)
			dequeue(a, t, ts);
		if ((a->o.by & (1u << SCX_AGG_PID)) && a->ndead < GROUPS_MAX) {
			a->ndead++;
			t->dead = true; /* its row is still due at the end of the interval */
			t->state = TS_UNKNOWN;
		} else {
			fold_thread(a, t);
			scx_map_del(&a->threads, (uint32_t)t->pid);
			thread_free(t);
		}
		break;
	case SCX_EV_TASK_RENAME:
		if (e->rename.pid && (t = agg_thread_find(a, e->rename.pid)))
			memcpy(t->comm, e->rename.newcomm, SCX_COMM_LEN - 1);
		break;
	case SCX_EV_SOFTIRQ_ENTRY:
		if (!(c = cpu_get(a, e->cpu)) || e->softirq.vec >= SCX_NR_SOFTIRQS)
			break;
		c->softirq = e->softirq.vec;
		c->softirq_ts = ts;
		c->s.softirqs[e->softirq.vec]++;
		break;
	case SCX_EV_SOFTIRQ_EXIT:
		if (!(c = cpu_get(a, e->cpu)) || c->softirq < 0 ||
		    (uint32_t)c->softirq != e->softirq.vec)
			break;
		if (ts > c->softirq_ts)
			c->s.softirq_ns[c->softirq] += ts - c->softirq_ts;
		c->softirq = -1;
		break;
	case SCX_EV_IRQ_ENTRY:
		if ((c = cpu_get(a, e->cpu))) {
			c->irq_ts = ts ? ts : 1;
			c->s.irqs++;
		}
		break;
	case SCX_EV_IRQ_EXIT:
		if ((c = cpu_get(a, e->cpu)) && c->irq_ts) {
			if (ts > c->irq_ts)
				c->s.irq_ns += ts - c->irq_ts;
			c->irq_ts = 0;
		}
		break;
	case SCX_EV_IPI_SEND:
		if ((c = cpu_get(a, e->cpu)))
			c->s.ipi_sent++;
		if ((c = cpu_get(a, e->ipi.target_cpu)))
			c->s.ipi_received++;
		break;
	case SCX_EV_IPI_ENTRY:
		if ((c = cpu_get(a, e->cpu)))
			c->ipi_ts = ts ? ts : 1;
		break;
	case SCX_EV_IPI_EXIT:
		if ((c = cpu_get(a, e->cpu)) && c->ipi_ts) {
			if (ts > c->ipi_ts)
				c->s.ipi_ns += ts - c->ipi_ts;
			c->ipi_ts = 0;
		}
		break;
	case SCX_EV_CPU_FREQUENCY:
		if ((c = cpu_get(a, (int32_t)e->freq.cpu_id))) {
			freq_account(c, ts);
			c->freq_khz = e->freq.khz;
			c->freq_ts = ts;
		}
		break;
	case SCX_EV_CPU_IDLE:
		if ((c = cpu_get(a, (int32_t)e->idle.cpu_id))) {
			on_idle(a, c, e->idle.state, ts);
			if (a->place)
				agg_place_cpu(a, c, ts);
		}
		break;
	case SCX_EV_LOST:
		scx_agg__note_lost(a, e->cpu, e->lost.count);
		break;
	case SCX_EV_DSQ_INSERT: {
		struct scx_agg_stats *gs;

		t = e->dsq.pid ? thread_get(a, e->dsq.pid, e->dsq.tgid, e->dsq.comm) : NULL;
		dsq_seen(a, t, e->dsq.dsq_id, e->dsq.vtime, e->dsq.depth, &gs);
		gs->dsq_inserts++;
		if (t && a->tstats)
			t->s.dsq_inserts++;
		if ((c = cpu_get(a, e->cpu)))
			c->s.dsq_inserts++;
		break;
	}
	case SCX_EV_CPUHP_ENTER:
	case SCX_EV_CPUHP_EXIT:
		on_cpuhp(a, e);
		break;
	case SCX_EV_SCX_ENABLE:
	case SCX_EV_SCX_DISABLE:
		break;
	default:
		a->snap.unknown++;
		break;
	}
}

/* ---- intervals ------------------------------------------------------------------ */

/* What to keep, from the options' need and the groups asked for. */
static void apply_need(struct scx_agg *a)
{
	a->need = a->o.need ? a->o.need : SCX_AGG_NEED_ALL;
	if (a->o.by & (1u << SCX_AGG_PID))
		a->need |= SCX_AGG_NEED_THREADS;
	if (a->o.by & (1u << SCX_AGG_TGID | 1u << SCX_AGG_COMM))
		a->need |= SCX_AGG_NEED_THREADS | SCX_AGG_NEED_PROCESSES;
	if (a->o.by & (1u << SCX_AGG_CGROUP))
		a->need |= SCX_AGG_NEED_CGROUPS;
	if (a->need & SCX_AGG_NEED_CGROUP_PAIRS)
		a->need |= SCX_AGG_NEED_CGROUPS;
	if (a->need & SCX_AGG_NEED_CGROUPS)
		a->need |= SCX_AGG_NEED_THREADS;
	if (a->need & (SCX_AGG_NEED_PROCESSES | SCX_AGG_NEED_PAIRS))
		a->need |= SCX_AGG_NEED_THREADS;
	a->fold = a->need & SCX_AGG_NEED_PROCESSES;
	a->tstats = a->need & SCX_AGG_NEED_THREADS;
	a->pairs = a->need & SCX_AGG_NEED_PAIRS;
	a->cg.on = a->need & SCX_AGG_NEED_CGROUPS;
	a->cg.pairs = a->need & SCX_AGG_NEED_CGROUP_PAIRS;
}

/* The groups of the next interval (scx_agg__set_by()) take effect here. */
static void apply_by(struct scx_agg *a)
{
	bool had = a->tstats;

	a->o.by = a->next_by;
	apply_need(a);
	if (a->tstats && !had) {
		/*
		 * Start clean, and count state time from here, not from the
		 * last state change.
		 */
		struct thread *t;
		size_t pos = 0;

		threads_add_stats(a);
		while ((t = agg_thread_next(a, &pos))) {
			stats_reset(&t->s, grp_skip(a));
			t->state_ts = SCX_MAX(t->state_ts, a->iv_start);
		}
	}
}

static void reset_interval(struct scx_agg *a)
{
	for (unsigned i = 0; i < a->nr_cpus; i++)
		stats_reset(&a->cpus[i].s, cpu_skip(a));
	/* without task stats or dead threads there is nothing to do per thread,
	 * and thousands of cache misses not to take */
	struct thread *t;
	size_t pos = 0;

	while ((a->tstats || a->ndead) && (t = agg_thread_next(a, &pos))) {
		if (t->dead) {
			a->ndead--;
			scx_map_del_at(&a->threads, &pos);
			thread_free(t);
			continue;
		}
		if (a->tstats) /* else they hold nothing */
			stats_reset(&t->s, grp_skip(a));
		t->folded = false;
	}
	if (a->next_by != a->o.by)
		apply_by(a);
	gtab_clear(&a->tgid, grp_skip(a));
	gtab_clear(&a->comm, grp_skip(a));
	gtab_clear(&a->dsq, grp_skip(a));
	gtab_clear(&a->cgroup, grp_skip(a));
	ptab_clear(&a->cg.preempts);
	ptab_clear(&a->wakes);
	ptab_clear(&a->preempts);
	a->nr_chains = 0;
	scx_hist_reset(&a->lb_wake);
	scx_hist_reset(&a->lb_run);
	scx_hist_reset(&a->lb_preempt);
	memset(&a->snap, 0, offsetof(struct scx_agg_snap, total));
	a->closed = false;
	if (a->place)
		agg_place_reset(a);
}

static int cmp_group(const void *x, const void *y)
{
	const struct scx_agg_group *g = x, *h = y;

	if (g->by == SCX_AGG_COMM)
		return strncmp(g->comm, h->comm, SCX_COMM_LEN);
	if (g->by == SCX_AGG_DSQ)
		return (uint64_t)g->key<(uint64_t)h->key ? -1 : (uint64_t)g->key>(uint64_t) h->key;
	return g->key < h->key ? -1 : g->key > h->key;
}

static struct scx_agg_group *add_group(struct scx_agg *a, enum scx_agg_by by)
{
	unsigned n = a->snap.nr[by];

	if (n == a->gcap[by]) {
		a->gcap[by] = a->gcap[by] ? a->gcap[by] * 2 : 64;
		a->garr[by] = scx_xrealloc(a->garr[by], a->gcap[by] * sizeof(*a->garr[by]));
	}
	a->snap.nr[by]++;
	memset(&a->garr[by][n], 0, sizeof(a->garr[by][n]));
	a->garr[by][n].by = by;
	return &a->garr[by][n];
}

static void gtab_groups(struct scx_agg *a, struct gtab *t, enum scx_agg_by by)
{
	struct grp *gr;
	size_t pos = 0;

	while ((gr = agg_gtab_next(t, &pos))) {
		struct scx_agg_group *g = add_group(a, by);

		g->key = by == SCX_AGG_COMM ? 0 : gr->key;
		g->nr = gr->nr;
		memcpy(g->comm, gr->comm, SCX_COMM_LEN);
		g->s = &gr->s;
	}
}

/* The figure cgroup groups are ranked by (opts.cgroup_sort). */
static double cgroup_rank(const struct scx_agg *a, const struct scx_agg_stats *s)
{
	switch (a->o.cgroup_sort) {
	case SCX_AGG_CGSORT_RQ_DELAY:
		return (double)s->rq_delay.sum;
	case SCX_AGG_CGSORT_RQ_P99:
		return (double)scx_hist_quantile(&s->rq_delay, 0.99);
	case SCX_AGG_CGSORT_WAKEUPS:
		return (double)s->wakeups;
	case SCX_AGG_CGSORT_SWITCHES:
		return (double)s->switches;
	default:
		return (double)s->busy_ns;
	}
}

struct ranked {
	double v;
	const char *name; /* ties by name, or by key where NULL */
	struct grp *g;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *p = x, *q = y;

	if (p->v != q->v)
		return p->v > q->v ? -1 : 1;
	if (p->name && q->name)
		return strcmp(p->name, q->name);
	return (uint64_t)p->g->key < (uint64_t)q->g->key ? -1 : 1;
}

/* The figure group g of table t is ranked by (its name in *name, or NULL). */
static double group_rank(const struct scx_agg *a, const struct gtab *t, const struct grp *g,
			 const char **name)
{
	if (t == &a->cgroup) {
		*name = agg_cgroup_key_name(a, (uint32_t)g->key);
		return cgroup_rank(a, &g->s);
	}
	*name = NULL;
	return (double)g->s.dsq_dispatches; /* DSQs: by tasks run from them */
}

/*
 * The groups by of table t in the snapshot: the top first by group_rank(),
 * then one "(other)" row, rest, with the rest, the table's own overflow
 * and the group of key other (the collector's overflow), so the rows stay
 * bounded whatever the number of cgroups or DSQs.
 */
static void ranked_groups(struct scx_agg *a, struct gtab *t, enum scx_agg_by by, unsigned top,
			  struct grp *rest, int64_t other)
{
	struct grp *gr;
	struct ranked *r;
	unsigned n = 0, rest_nr = 0;
	size_t pos = 0;
	bool any_rest = false;

	r = scx_xcalloc(t->map.n + 1, sizeof(*r));
	stats_reset(&rest->s, grp_skip(a));
	while ((gr = agg_gtab_next(t, &pos))) {
		if (gr == t->other || gr->key == other) {
			stats_merge(&rest->s, &gr->s, grp_skip(a));
			rest_nr += gr->nr;
			any_rest = true;
			continue;
		}
		r[n].g = gr;
		r[n].v = group_rank(a, t, gr, &r[n].name);
		n++;
	}
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (unsigned i = 0; i < n; i++) {
		struct scx_agg_group *g;

		if (i >= top) {
			stats_merge(&rest->s, &r[i].g->s, grp_skip(a));
			rest_nr += r[i].g->nr;
			any_rest = true;
			continue;
		}
		g = add_group(a, by);
		g->key = r[i].g->key;
		g->nr = r[i].g->nr;
		g->name = r[i].name;
		g->s = &r[i].g->s;
	}
	if (any_rest) {
		struct scx_agg_group *g = add_group(a, by);

		g->key = other;
		g->nr = rest_nr;
		g->name = "(other)";
		g->s = &rest->s;
	}
	free(r);
}

/* Cpus utilisation is divided by: the topology's and any seen outside it. */
static unsigned topo_cpus(const struct scx_agg *a)
{
	unsigned n = 0;

	for (unsigned i = 0; i < a->nr_cpus; i++)
		n += a->cpus[i].seen && !(a->topo && scx_topo__cpu(a->topo, (int)i));
	if (a->topo)
		return a->topo->nr_cpus + n;
	return SCX_MAX(n, a->o.nr_cpus);
}

static int close_interval(struct scx_agg *a, uint64_t end, bool final)
{
	struct scx_agg_snap *s = &a->snap;
	unsigned by = a->o.by;

	if (a->place)
		agg_place_close(a, end);
	for (unsigned i = 0; i < a->nr_cpus; i++) {
		struct cpu *c = &a->cpus[i];

		cpu_account(c, end);
		freq_account(c, end);
		depth_account(c, end);
		/* split the loss at the boundary, as the other times */
		wc_leave(a, c, end);
		wc_enter(a, c);
		cidle_account(c, end);
		if (c->cstate >= 0 && end > c->cstate_ts) {
			c->s.cstate_ns[c->cstate] += end - c->cstate_ts;
			c->cstate_ts = end;
		}
		if (c->softirq >= 0 && end > c->softirq_ts) {
			c->s.softirq_ns[c->softirq] += end - c->softirq_ts;
			c->softirq_ts = end;
		}
	}

	s->start_ns = a->iv_start;
	s->end_ns = end;
	s->final = final;
	s->nr_threads = a->threads.n;
	s->nr_cpus = topo_cpus(a);
	memset(s->nr, 0, sizeof(s->nr));

	/* rollups: total, LLC and node, merged from the CPUs */
	stats_reset(&s->total, cpu_skip(a));
	for (unsigned i = 0; i < a->nr_llc_slots; i++)
		stats_reset(&a->llc[i], cpu_skip(a));
	for (unsigned i = 0; i < a->nr_node_slots; i++)
		stats_reset(&a->node[i], cpu_skip(a));
	/*
	 * When every LLC lies in one node (as on real machines), nodes are
	 * merged from their LLCs rather than from every cpu again: a tenth
	 * of the merges at 8 cpus an LLC, and the same sums.
	 */
	bool nest = true;

	for (unsigned i = 0; i < a->nr_llc_slots; i++)
		a->llc_node[i] = -2; /* no cpu yet */
	for (unsigned i = 0; i < a->nr_cpus && nest; i++) {
		struct cpu *c = &a->cpus[i];
		int l = c->llc + 1, n = c->node + 1 < (int)a->nr_node_slots ? c->node + 1 : -1;

		if (!agg_cpu_present(a, i))
			continue;
		if (l >= (int)a->nr_llc_slots)
			continue;
		if (a->llc_node[l] == -2)
			a->llc_node[l] = n;
		else if (a->llc_node[l] != n)
			nest = false;
	}
	for (unsigned i = 0; i < a->nr_cpus; i++) {
		struct cpu *c = &a->cpus[i];
		bool in_llc = c->llc + 1 < (int)a->nr_llc_slots;

		if (!agg_cpu_present(a, i))
			continue;
		if (in_llc)
			stats_merge(&a->llc[c->llc + 1], &c->s, cpu_skip(a));
		/* the nodes partition the cpus: the total is merged from them
		 * below, a few merges instead of one more per cpu */
		if (nest && in_llc)
			; /* in its node through its LLC, below */
		else if (c->node + 1 < (int)a->nr_node_slots)
			stats_merge(&a->node[c->node + 1], &c->s, cpu_skip(a));
		else
			stats_merge(&s->total, &c->s, cpu_skip(a));
		if (by & (1u << SCX_AGG_CPU)) {
			struct scx_agg_group *g = add_group(a, SCX_AGG_CPU);

			g->key = c->id;
			g->nr = 1;
			g->s = &c->s;
		}
	}
	for (unsigned i = 0; i < a->nr_llc_slots && nest; i++) {
		if (a->llc_node[i] >= 0)
			stats_merge(&a->node[a->llc_node[i]], &a->llc[i], cpu_skip(a));
		else if (a->llc_node[i] == -1)
			stats_merge(&s->total, &a->llc[i], cpu_skip(a)); /* cpus of no node */
	}
	for (unsigned i = 0; i < a->nr_node_slots; i++)
		stats_merge(&s->total, &a->node[i], cpu_skip(a));
	for (int k = SCX_AGG_LLC; k <= SCX_AGG_NODE; k++) {
		unsigned nslots = k == SCX_AGG_LLC ? a->nr_llc_slots : a->nr_node_slots;
		unsigned *ncpu = k == SCX_AGG_LLC ? a->llc_cpus : a->node_cpus;
		struct scx_agg_stats *st = k == SCX_AGG_LLC ? a->llc : a->node;

		if (!(by & (1u << k)))
			continue;
		for (unsigned i = 0; i < nslots; i++) {
			struct scx_agg_group *g;

			if (!ncpu[i])
				continue;
			g = add_group(a, k);
			g->key = (int64_t)i - 1;
			g->nr = ncpu[i];
			g->s = &st[i];
		}
	}
	size_t pos = 0;
	struct thread *t;

	while (a->tstats && (t = agg_thread_next(a, &pos))) {
		struct scx_agg_group *g;

		/* state time up to the end, in the one pass over the threads */
		if (!t->dead)
			account_state(t, end);
		if (!agg_stats_active(&t->s))
			continue;
		fold_thread(a, t);
		if (!(by & (1u << SCX_AGG_PID)))
			continue;
		g = add_group(a, SCX_AGG_PID);
		g->key = t->pid;
		g->tgid = t->tgid;
		g->nr = 1;
		memcpy(g->comm, t->comm, SCX_COMM_LEN);
		g->s = &t->s;
	}
	if (by & (1u << SCX_AGG_TGID))
		gtab_groups(a, &a->tgid, SCX_AGG_TGID);
	if (by & (1u << SCX_AGG_COMM))
		gtab_groups(a, &a->comm, SCX_AGG_COMM);
	if ((by & (1u << SCX_AGG_DSQ)) && a->o.dsq_top)
		ranked_groups(a, &a->dsq, SCX_AGG_DSQ, a->o.dsq_top, a->dsq_rest, -1);
	else if (by & (1u << SCX_AGG_DSQ))
		gtab_groups(a, &a->dsq, SCX_AGG_DSQ);
	if (by & (1u << SCX_AGG_CGROUP))
		ranked_groups(a, &a->cgroup, SCX_AGG_CGROUP,
			      a->o.cgroup_top ? a->o.cgroup_top : SCX_AGG_CGROUP_TOP, a->cg.rest,
			      CG_KEY_OTHER);
	for (int k = 0; k < SCX_AGG_BY__COUNT; k++) {
		s->groups[k] = a->garr[k];
		if (s->nr[k] > 1 && k != SCX_AGG_CPU && k != SCX_AGG_LLC && k != SCX_AGG_NODE &&
		    k != SCX_AGG_CGROUP)
			qsort(a->garr[k], s->nr[k], sizeof(*a->garr[k]), cmp_group);
	}
	a->closed = true;
	return a->o.emit ? a->o.emit(a, s, a->o.ctx) : 0;
}

/* Close intervals up to ts; then the engine is open for an event at ts. */
static int roll(struct scx_agg *a, uint64_t ts)
{
	int err;

	if (a->closed) {
		uint64_t seq = a->snap.seq;

		reset_interval(a);
		a->snap.seq = seq + 1;
	}
	if (!a->o.interval_ns)
		return 0;
	while (ts >= a->iv_end && a->iv_end != UINT64_MAX) {
		uint64_t gap = (ts - a->iv_end) / a->o.interval_ns;

		err = close_interval(a, a->iv_end, false);
		a->iv_start = a->iv_end;
		/* the end of time is one long last interval, never a wrap */
		if (a->iv_end > UINT64_MAX - a->o.interval_ns)
			a->iv_end = UINT64_MAX;
		else
			a->iv_end += a->o.interval_ns;
		if (gap > MAX_GAP_INTERVALS) {
			/* one snapshot spans the quiet stretch */
			a->iv_end = a->iv_start + gap * a->o.interval_ns;
		}
		if (err)
			return err;
		uint64_t seq = a->snap.seq;

		reset_interval(a);
		a->snap.seq = seq + 1;
	}
	return 0;
}

static void start(struct scx_agg *a, uint64_t ts)
{
	a->started = true;
	a->iv_start = ts;
	a->iv_end = a->o.interval_ns ? ts + a->o.interval_ns : UINT64_MAX;
	a->last_ts = ts;
}

static int add_now(struct scx_agg *a, const struct scx_event *e)
{
	struct scx_event copy;
	int err;

	if (!a->started)
		start(a, e->ts);
	/* before roll: the intervals this event closes know its kind is in the stream */
	a->snap.seen |= SCX_AGG_SEEN(e->type < SCX_EV__COUNT ? e->type : SCX_EV_NONE);
	if ((err = roll(a, e->ts)))
		return err;
	a->snap.events++;
	a->snap.by_type[e->type < SCX_EV__COUNT ? e->type : SCX_EV_NONE]++;
	if (e->ts < a->last_ts) {
		/* late event: count it at the current time, never run time backwards */
		a->snap.out_of_order++;
		if (e->ts < a->iv_start) {
			copy = *e;
			copy.ts = a->iv_start;
			e = &copy;
		}
	} else {
		a->last_ts = e->ts;
	}
	handle(a, e);
	return 0;
}

/* ---- reorder window ------------------------------------------------------------ */

/* Pass on held events nothing older can precede any more (all when draining). */
static int drain(struct scx_agg *a, bool all)
{
	struct scx_event e;
	int err;

	while (scx_sorter__pop(&a->order, &e, all))
		if ((err = add_now(a, &e)))
			return err;
	return 0;
}

int scx_agg__add(struct scx_agg *a, const struct scx_event *e)
{
	if (scx_sorter__push(&a->order, e))
		return add_now(a, e);
	return drain(a, false);
}

int scx_agg__advance(struct scx_agg *a, uint64_t ts)
{
	int err;

	if (scx_sorter__sorting(&a->order)) {
		scx_sorter__advance(&a->order, ts);
		if ((err = drain(a, false)))
			return err;
		ts = ts > a->o.reorder_ns ? ts - a->o.reorder_ns : 0;
	}
	if (!a->started || ts < a->iv_end)
		return 0;
	a->last_ts = SCX_MAX(a->last_ts, ts);
	return roll(a, ts);
}

int scx_agg__flush(struct scx_agg *a)
{
	int err;

	if ((err = drain(a, true)))
		return err;
	if (!a->started)
		start(a, 0);
	if (a->closed) {
		uint64_t seq = a->snap.seq;

		reset_interval(a);
		a->snap.seq = seq + 1;
	}
	err = close_interval(a, SCX_MAX(a->last_ts, a->iv_start), true);
	return err;
}

/* ---- kernel snapshots (agg_ksnap.c) ---------------------------------------- */

int agg_ksnap_begin(struct scx_agg *a, uint64_t t0, bool own_interval)
{
	if (!a->started)
		start(a, t0);
	if (own_interval) {
		if (a->closed) {
			uint64_t seq = a->snap.seq;

			reset_interval(a);
			a->snap.seq = seq + 1;
		}
		a->iv_start = t0;
		return 0;
	}
	return roll(a, t0);
}

struct scx_agg_stats *agg_ksnap_cpu(struct scx_agg *a, int32_t cpu)
{
	struct cpu *c = cpu_get(a, cpu);

	return c ? &c->s : NULL;
}

struct scx_agg_stats *agg_ksnap_cgroup(struct scx_agg *a, uint64_t id)
{
	if (!a->cg.on)
		return NULL;
	/* id 0: the cgroups past the collector's table */
	return &gtab_get(&a->cgroup, id ? agg_cgroup_key(a, id) : CG_KEY_OTHER, NULL)->s;
}

struct scx_agg_stats *agg_ksnap_dsq(struct scx_agg *a, uint64_t id, bool other)
{
	/* the DSQs past the collector's table: the key of the engine's own "(other)" */
	return &gtab_get(&a->dsq, other ? -1 : (int64_t)id, NULL)->s;
}

int agg_ksnap_end(struct scx_agg *a, uint64_t end, bool own_interval)
{
	a->last_ts = SCX_MAX(a->last_ts, end);
	return own_interval ? close_interval(a, end, false) : 0;
}

const struct scx_agg_snap *scx_agg__snapshot(struct scx_agg *a)
{
	return a->closed ? &a->snap : NULL;
}

void scx_agg__note_lost(struct scx_agg *a, int cpu, uint64_t count)
{
	struct cpu *c = cpu_get(a, cpu);

	if (a->closed) {
		uint64_t seq = a->snap.seq;

		reset_interval(a);
		a->snap.seq = seq + 1;
	}
	a->snap.lost += count;
	if (c)
		c->s.lost += count;
}

void scx_agg__note_unknown(struct scx_agg *a, uint64_t count)
{
	a->snap.unknown += count;
}

void scx_agg__note_scx_stats(struct scx_agg *a, const struct scx_stats *s)
{
	if (a->closed) {
		uint64_t seq = a->snap.seq;

		reset_interval(a);
		a->snap.seq = seq + 1;
	}
	scx_stats_merge(&a->snap.scx, s);
}

/* ---- life cycle ----------------------------------------------------------------- */

static void setup_topo(struct scx_agg *a)
{
	int maxl = -1, maxn = -1;

	free(a->llc_cpus);
	free(a->node_cpus);
	if (a->topo) {
		for (unsigned i = 0; i < a->topo->nr_cpus; i++) {
			maxl = SCX_MAX(maxl, a->topo->cpus[i].llc);
			maxn = SCX_MAX(maxn, a->topo->cpus[i].node);
		}
	}
	if (maxl > 4095 || maxn > 4095) /* ids from a file: keep the arrays sane */
		maxl = maxn = -1;
	for (unsigned i = 0; i < a->nr_llc_slots; i++)
		stats_free(&a->llc[i]);
	for (unsigned i = 0; i < a->nr_node_slots; i++)
		stats_free(&a->node[i]);
	a->nr_llc_slots = maxl + 2;
	a->nr_node_slots = maxn + 2;
	a->llc = scx_xrealloc(a->llc, a->nr_llc_slots * sizeof(*a->llc));
	a->node = scx_xrealloc(a->node, a->nr_node_slots * sizeof(*a->node));
	a->llc_cpus = scx_xcalloc(a->nr_llc_slots, sizeof(unsigned));
	a->llc_node = scx_xrealloc(a->llc_node, a->nr_llc_slots * sizeof(*a->llc_node));
	a->node_cpus = scx_xcalloc(a->nr_node_slots, sizeof(unsigned));
	for (unsigned i = 0; i < a->nr_llc_slots; i++)
		stats_init(&a->llc[i]);
	for (unsigned i = 0; i < a->nr_node_slots; i++)
		stats_init(&a->node[i]);
	/* every CPU of the topology has a row, even one no event mentions */
	for (unsigned i = 0; i < a->nr_cpus; i++)
		stats_free(&a->cpus[i].s);
	free(a->cpus);
	a->cpus = NULL;
	a->nr_cpus = 0;
	if (a->topo && a->topo->nr_cpus && a->topo->max_cpu >= 0 &&
	    a->topo->max_cpu <= MAX_CPU_ID) {
		cpu_get(a, a->topo->max_cpu);
		a->cpus[a->topo->max_cpu].seen = false;
	}
	if (a->topo) {
		for (unsigned i = 0; i < a->topo->nr_cpus; i++) {
			const struct scx_cpu_topo *ct = &a->topo->cpus[i];

			if (ct->llc + 1 < (int)a->nr_llc_slots && ct->llc >= -1)
				a->llc_cpus[ct->llc + 1]++;
			if (ct->node + 1 < (int)a->nr_node_slots && ct->node >= -1)
				a->node_cpus[ct->node + 1]++;
		}
	}
}

struct scx_agg *scx_agg__new(const struct scx_topo *topo, const struct scx_agg_opts *o)
{
	struct scx_agg *a = calloc(1, sizeof(*a));

	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	if (o)
		a->o = *o;
	scx_map_init(&a->threads, sizeof(struct thread *));
	a->max_tasks = a->o.max_tasks ? a->o.max_tasks : SCX_AGG_MAX_TASKS_DEFAULT;
	scx_map_init(&a->tgid.map, sizeof(struct grp *));
	scx_map_init(&a->comm.map, sizeof(struct grp *));
	scx_map_init(&a->dsq.map, sizeof(struct grp *));
	scx_map_init(&a->cgroup.map, sizeof(struct grp *));
	agg_cgroup_init(a);
	a->cg.rest = scx_xcalloc(1, sizeof(*a->cg.rest));
	stats_init(&a->cg.rest->s);
	a->dsq_rest = scx_xcalloc(1, sizeof(*a->dsq_rest));
	stats_init(&a->dsq_rest->s);
	scx_map_init(&a->wakes.map, sizeof(struct pair));
	scx_map_init(&a->preempts.map, sizeof(struct pair));
	if (!a->o.by)
		a->o.by = SCX_AGG_BY_DEFAULT;
	if (!a->o.limit)
		a->o.limit = 20;
	apply_need(a);
	if (a->need & SCX_AGG_NEED_PLACE)
		agg_place_init(a);
	a->next_by = a->o.by;
	for (unsigned i = 0; i < scx_agg_nr_thresholds; i++)
		a->th[i] = scx_agg_thresholds[i].def;
	stats_init(&a->snap.total);
	scx_hist_init(&a->lb_wake);
	scx_hist_init(&a->lb_run);
	scx_hist_init(&a->lb_preempt);
	if (topo && !(a->topo = scx_topo__dup(topo))) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	setup_topo(a);
	scx_sorter__init(&a->order, a->o.reorder_ns, a->o.reorder_from_start);
	return a;
}

void scx_agg__set_by(struct scx_agg *a, unsigned by)
{
	a->next_by = by ? by : SCX_AGG_BY_DEFAULT;
	if (!a->started)
		apply_by(a);
}

/* The engine keeps the thresholds (a->th) that the reports read. */
const struct scx_agg_threshold scx_agg_thresholds[] = {
	[TH_SWITCH_RATE] = { "switch-rate", 1000, "context switches per second on a cpu" },
	[TH_WAKE_P99] = { "wake-p99-ms", 10, "p99 wakeup latency of a cpu, ms" },
	[TH_MIGR_RATE] = { "migration-rate", 100, "migrations per second, all cpus" },
	[TH_UTIL_HIGH] = { "util-high", 95, "cpu utilisation, percent, for a saturated cpu", 100 },
	[TH_RQ_P99] = { "rq-p99-ms", 5, "p99 run-queue delay of a saturated cpu, ms" },
	[TH_IMBALANCE] = { "imbalance", 50, "busiest minus idlest cpu utilisation, points", 100 },
	[TH_RQ_DEPTH] = { "rq-depth", 10, "tasks waiting on one cpu" },
	[TH_SOFTIRQ] = { "softirq-pct", 10, "softirq share of a cpu, percent", 100 },
	[TH_LOST] = { "lost", 0, "events lost in the interval" },
	[TH_STARVED] = { "starved-pct", 10, "runtime below this percent of the fair share", 100 },
	[TH_HOG] = { "hog-factor", 10, "runtime above this many fair shares" },
	[TH_IQR_K] = { "iqr-k", 1.5, "outliers: beyond q3 + k * IQR" },
	[TH_MAD_Z] = { "mad-z", 3.5, "outliers: modified z-score above" },
	[TH_SIGMA] = { "sigma", 3, "outliers: beyond mean + n standard deviations" },
	[TH_PCT] = { "percentile", 99, "outliers: above this percentile", 100 },
};
const unsigned scx_agg_nr_thresholds = TH__COUNT;

int scx_agg__set_threshold(struct scx_agg *a, const char *name, double value)
{
	for (unsigned i = 0; i < scx_agg_nr_thresholds; i++) {
		const struct scx_agg_threshold *t = &scx_agg_thresholds[i];

		if (strcmp(t->name, name))
			continue;
		/* a NaN rule would never fire, a negative one always */
		if (!isfinite(value) || value < 0 || (t->max && value > t->max))
			return -ERANGE;
		a->th[i] = value;
		return 0;
	}
	return -ENOENT;
}

void scx_agg__free(struct scx_agg *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < a->nr_cpus; i++)
		stats_free(&a->cpus[i].s);
	free(a->cpus);
	struct thread *t;
	size_t pos = 0;

	while ((t = agg_thread_next(a, &pos)))
		thread_free(t);
	scx_map_free(&a->threads);
	free(a->evict_ts);
	gtab_free(&a->tgid);
	gtab_free(&a->comm);
	gtab_free(&a->dsq);
	gtab_free(&a->cgroup);
	agg_cgroup_free(a);
	stats_free(&a->cg.rest->s);
	free(a->cg.rest);
	stats_free(&a->dsq_rest->s);
	free(a->dsq_rest);
	scx_map_free(&a->wakes.map);
	scx_map_free(&a->preempts.map);
	for (unsigned i = 0; i < a->nr_llc_slots; i++)
		stats_free(&a->llc[i]);
	for (unsigned i = 0; i < a->nr_node_slots; i++)
		stats_free(&a->node[i]);
	free(a->llc);
	free(a->node);
	free(a->llc_cpus);
	free(a->node_cpus);
	free(a->llc_node);
	stats_free(&a->snap.total);
	scx_hist_free(&a->lb_wake);
	scx_hist_free(&a->lb_run);
	scx_hist_free(&a->lb_preempt);
	for (int k = 0; k < SCX_AGG_BY__COUNT; k++)
		free(a->garr[k]);
	scx_topo__free(a->topo);
	scx_sorter__fini(&a->order);
	agg_place_free(a);
	free(a);
}

size_t scx_agg__mem(struct scx_agg *a)
{
	size_t n = sizeof(*a) + a->nr_cpus * sizeof(struct cpu) + scx_map_bytes(&a->threads);
	struct thread *th;
	size_t pos = 0;

	for (unsigned i = 0; i < a->nr_cpus; i++)
		n += stats_bytes(&a->cpus[i].s);
	while ((th = agg_thread_next(a, &pos)))
		n += th->has_stats ? sizeof(struct thread) + stats_bytes(&th->s) :
				     offsetof(struct thread, s);
	n += scx_map_bytes(&a->wakes.map) + scx_map_bytes(&a->preempts.map);
	n += agg_cgroup_mem(a) + sizeof(struct grp) + stats_bytes(&a->cg.rest->s);
	n += sizeof(struct grp) + stats_bytes(&a->dsq_rest->s);
	for (struct gtab *t = &a->tgid; t <= &a->cgroup; t++) {
		struct grp **slot;

		n += scx_map_bytes(&t->map);
		pos = 0;
		while ((slot = scx_map_next(&t->map, &pos, NULL)))
			n += sizeof(struct grp) + stats_bytes(&(*slot)->s);
		for (struct grp *g = t->spare; g; g = g->next_spare)
			n += sizeof(struct grp) + stats_bytes(&g->s);
	}
	for (unsigned i = 0; i < a->nr_llc_slots; i++)
		n += sizeof(a->llc[i]) + stats_bytes(&a->llc[i]);
	for (unsigned i = 0; i < a->nr_node_slots; i++)
		n += sizeof(a->node[i]) + stats_bytes(&a->node[i]);
	return n + agg_place_mem(a);
}

int scx_agg_parse_by(const char *s, unsigned *mask)
{
	unsigned m = 0;
	const char *p = s;

	while (*p) {
		size_t len = strcspn(p, ",");
		int k;

		for (k = 0; k < SCX_AGG_BY__COUNT; k++)
			if (strlen(scx_agg_by_names[k]) == len &&
			    !strncmp(p, scx_agg_by_names[k], len))
				break;
		if (k == SCX_AGG_BY__COUNT && len == 3 && !strncmp(p, "all", 3))
			m |= (1u << SCX_AGG_BY__COUNT) - 1;
		else if (k == SCX_AGG_BY__COUNT)
			return -EINVAL;
		else
			m |= 1u << k;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!m)
		return -EINVAL;
	*mask = m;
	return 0;
}

int scx_agg_parse_max_tasks(const char *arg, unsigned *out)
{
	uint64_t v;

	if (scx_parse_u64(arg, &v) || !v || v > SCX_AGG_MAX_TASKS_LIMIT)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}
