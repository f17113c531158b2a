// SPDX-License-Identifier: GPL-2.0
/* Snapshots folded into cumulative Prometheus counters and histograms (prom.h). */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agg/agg_int.h"
#include "agg/prom.h"
#include "core/util.h"

enum fkind { F_COUNT, F_NS, F_GAUGE_HZ, F_GAUGE_N, F_HIST_NS, F_HIST_N };

/* Fields that are not one uint64_t of scx_agg_stats */
#define SUM_SOFTIRQ_NS ((size_t)-1)
#define SUM_CSTATE_NS ((size_t)-2)

struct fam {
	const char *name; /* after the dimension's prefix */
	const char *unit;
	enum fkind kind;
	size_t off; /* in struct scx_agg_stats */
	bool opt;   /* exported once non-zero somewhere (sched_ext, frequency) */
	const char *help;
	/*
	 * The snapshot metric (scx_agg_metrics[]) whose events it counts, or
	 * NULL when the switches alone give it.  While that metric is unknown
	 * the family is left out: Prometheus has no null, and a 0 would claim
	 * a count.
	 */
	const char *metric;
};

#define ST(f) offsetof(struct scx_agg_stats, f)

/* scx_cpu_*: one series per CPU (or LLC, node, host: see prom.h) */
static const struct fam cpu_fams[] = {
	{ "busy_seconds_total", "seconds", F_NS, ST(busy_ns), 0,
	  "time CPUs ran tasks other than the idle task" },
	{ "idle_seconds_total", "seconds", F_NS, ST(idle_ns), 0, "time CPUs ran the idle task" },
	{ "slices_total", "slices", F_COUNT, ST(slices), 0,
	  "running intervals begun (switch-ins of tasks)" },
	{ "switches_total", "switches", F_COUNT, ST(switches), 0,
	  "context switches (switch-outs of tasks)" },
	{ "voluntary_switches_total", "switches", F_COUNT, ST(voluntary), 0,
	  "switch-outs into a sleep state" },
	{ "involuntary_switches_total", "switches", F_COUNT, ST(involuntary), 0,
	  "switch-outs while runnable (preemptions)" },
	{ "wakeups_total", "wakeups", F_COUNT, ST(wakeups), 0, "wakeups, counted on the target CPU",
	  "wakeups" },
	{ "new_task_wakeups_total", "wakeups", F_COUNT, ST(wakeups_new), 0,
	  "first wakeups of new tasks", "wakeups_new" },
	{ "migrations_total", "migrations", F_COUNT, ST(migrations), 0,
	  "task migrations, counted on the destination CPU", "migrations" },
	{ "cross_llc_migrations_total", "migrations", F_COUNT, ST(migr_cross_llc), 0,
	  "migrations between LLCs", "migr_cross_llc" },
	{ "cross_node_migrations_total", "migrations", F_COUNT, ST(migr_cross_node), 0,
	  "migrations between NUMA nodes", "migr_cross_node" },
	{ "forks_total", "forks", F_COUNT, ST(forks), 0, "forks", "forks" },
	{ "execs_total", "execs", F_COUNT, ST(execs), 0, "execs", "execs" },
	{ "exits_total", "exits", F_COUNT, ST(exits), 0, "task exits", "exits" },
	{ "softirq_seconds_total", "seconds", F_NS, SUM_SOFTIRQ_NS, 0,
	  "time in softirqs, all vectors", "softirq_ns" },
	{ "irqs_total", "irqs", F_COUNT, ST(irqs), 0, "hard irqs", "irqs" },
	{ "irq_seconds_total", "seconds", F_NS, ST(irq_ns), 0, "time in hard irq handlers",
	  "irq_ns" },
	{ "sent_ipis_total", "ipis", F_COUNT, ST(ipi_sent), 0, "IPIs sent", "ipi_sent" },
	{ "received_ipis_total", "ipis", F_COUNT, ST(ipi_received), 0, "IPIs received",
	  "ipi_received" },
	{ "ipi_seconds_total", "seconds", F_NS, ST(ipi_ns), 0, "time in IPI handlers", "ipi_ns" },
	{ "idle_state_seconds_total", "seconds", F_NS, SUM_CSTATE_NS, 0,
	  "time in cpu idle states, all states", "cstate_ns" },
	{ "lost_events_total", "events", F_COUNT, ST(lost), 0,
	  "events the producer lost on this CPU" },
	{ "rq_wait_seconds_total", "seconds", F_NS, ST(rq_depth_ns), 0,
	  "waiting time summed over the tasks waiting on the run queue; its rate is the average number waiting",
	  "rq_depth_avg" },
	{ "work_conservation_loss_seconds_total", "seconds", F_NS, ST(wc_loss_ns), 0,
	  "time idle with nothing queued while a task waited on another, busy CPU", "wc_loss_ns" },
	{ "dsq_inserts_total", "inserts", F_COUNT, ST(dsq_inserts), 1,
	  "sched_ext: tasks inserted on DSQs" },
	{ "dsq_dispatches_total", "dispatches", F_COUNT, ST(dsq_dispatches), 1,
	  "sched_ext: tasks run from DSQs" },
	{ "frequency_hertz", "hertz", F_GAUGE_HZ, 0, 1,
	  "time-weighted average frequency over the last interval" },
	{ "rq_depth_max_tasks", "tasks", F_GAUGE_N, ST(rq_depth_max), 0,
	  "most tasks waiting on a run queue in the last interval", "rq_depth_max" },
	{ "wake_latency_seconds", "seconds", F_HIST_NS, ST(wake_lat), 0,
	  "wakeup latency: sched_waking to switch-in", "wake_lat" },
	{ "rq_delay_seconds", "seconds", F_HIST_NS, ST(rq_delay), 0,
	  "run-queue delay: runnable to switch-in", "rq_delay" },
	{ "slice_seconds", "seconds", F_HIST_NS, ST(slice), 0, "length of running intervals" },
	{ "dsq_queue_seconds", "seconds", F_HIST_NS, ST(dsq_lat), 1,
	  "sched_ext: time queued on a DSQ" },
	{ "slice_used_seconds", "seconds", F_HIST_NS, ST(slice_used), 1,
	  "sched_ext: slice used before a switch-out" },
	{ "rq_depth_tasks", "tasks", F_HIST_N, ST(rq_depth), 0,
	  "tasks waiting on the run queue after each enqueue", "rq_depth" },
	{ "dsq_depth_tasks", "tasks", F_HIST_N, ST(dsq_depth), 1,
	  "sched_ext: DSQ depth at insert and dispatch" },
};

/* scx_dsq_*: one series per DSQ */
/*
 * inserts and depths optional, as the cpu families: kernel snapshots have
 * neither, and a 0 would claim them
 */
static const struct fam dsq_fams[] = {
	{ "inserts_total", "inserts", F_COUNT, ST(dsq_inserts), 1,
	  "sched_ext: tasks inserted on this DSQ" },
	{ "dispatches_total", "dispatches", F_COUNT, ST(dsq_dispatches), 0,
	  "sched_ext: tasks run from this DSQ" },
	{ "queue_seconds", "seconds", F_HIST_NS, ST(dsq_lat), 0,
	  "sched_ext: time queued on this DSQ" },
	{ "slice_used_seconds", "seconds", F_HIST_NS, ST(slice_used), 1,
	  "sched_ext: slice used by tasks from this DSQ" },
	{ "depth_tasks", "tasks", F_HIST_N, ST(dsq_depth), 1,
	  "sched_ext: depth of this DSQ at insert and dispatch" },
};

/* scx_cgroup_*: one series per cgroup of the snapshots' top rows (see prom.h) */
static const struct fam cgroup_fams[] = {
	{ "busy_seconds_total", "seconds", F_NS, ST(busy_ns), 0, "CPU time of the cgroup's tasks" },
	{ "switches_total", "switches", F_COUNT, ST(switches), 0,
	  "switch-outs of the cgroup's tasks" },
	{ "involuntary_switches_total", "switches", F_COUNT, ST(involuntary), 0,
	  "switch-outs of the cgroup's tasks while runnable (preemptions)" },
	{ "wakeups_total", "wakeups", F_COUNT, ST(wakeups), 0, "wakeups of the cgroup's tasks",
	  "wakeups" },
	{ "migrations_total", "migrations", F_COUNT, ST(migrations), 0,
	  "migrations of the cgroup's tasks", "migrations" },
	{ "wake_latency_seconds", "seconds", F_HIST_NS, ST(wake_lat), 0,
	  "wakeup latency of the cgroup's tasks: sched_waking to switch-in", "wake_lat" },
	{ "rq_delay_seconds", "seconds", F_HIST_NS, ST(rq_delay), 0,
	  "run-queue delay of the cgroup's tasks: runnable to switch-in", "rq_delay" },
};

#define NR_CPU_FAMS SCX_ARRAY_SIZE(cpu_fams)
#define NR_CGROUP_FAMS SCX_ARRAY_SIZE(cgroup_fams)
#define NR_DSQ_FAMS SCX_ARRAY_SIZE(dsq_fams)
#define NS_BOUNDS SCX_PROM_NS_BOUNDS
#define N_BOUNDS SCX_PROM_DEPTH_BOUNDS
#define MAX_BUCKETS (NS_BOUNDS + 1) /* + Inf */

struct cum {
	uint64_t count, sum;
	uint64_t b[MAX_BUCKETS]; /* not cumulative: values up to bound i */
};

/* One label set.  Figures by family index; hists only for histogram families. */
struct series {
	int64_t key;	   /* cpu, llc, node or dsq id; INT64_MIN: "other" */
	int32_t llc, node; /* labels of CPU and LLC series */
	char *label;	   /* cgroup series: cgroup="path", owned */
	uint64_t last_iv;  /* cgroup series: the last interval it had figures */
	uint64_t *c;	   /* counters (cumulative), gauges (last interval) */
	uint8_t *ok;	   /* gauge known in the last interval */
	struct cum *h;
};

struct dim {
	const struct fam *fams;
	unsigned nr_fams;
	const char *prefix;
	struct series *s;
	unsigned n, cap;
	bool *seen;    /* per family: non-zero somewhere once */
	int *metric;   /* per family: index of fam->metric in scx_agg_metrics[], or -1 */
	bool *unknown; /* per family: its metric unknown in the last snapshot */
};

struct scx_prom {
	int level; /* SCX_AGG_CPU/LLC/NODE, or -1: one host series */
	bool started;
	struct dim cpu, dsq, cgroup;
	unsigned dsq_cap, cgroup_cap;
	uint64_t intervals, events, lost, unknown, out_of_order, threads, last_dur;
	uint64_t tasks_dropped;
	bool kernel;		 /* the input has kernel snapshots */
	uint64_t late_intervals; /* their late_intervals */
	struct scx_stats scx;	 /* sched_ext's counters since the start; ts 0: none seen */
};

#define KEY_OTHER INT64_MIN

static void dim_init(struct dim *d, const struct fam *f, unsigned n, const char *prefix)
{
	d->fams = f;
	d->nr_fams = n;
	d->prefix = prefix;
	d->seen = scx_xcalloc(n, sizeof(*d->seen));
	d->metric = scx_xcalloc(n, sizeof(*d->metric));
	d->unknown = scx_xcalloc(n, sizeof(*d->unknown));
	/*
	 * Known until a snapshot says otherwise: before the first interval
	 * closes nothing is read, every family is at 0, and rate() gets its
	 * start for the families the stream turns out to have.
	 */
	for (unsigned i = 0; i < n; i++)
		d->metric[i] = f[i].metric ? scx_agg_metric_index(f[i].metric) : -1;
}

static void dim_free(struct dim *d)
{
	for (unsigned i = 0; i < d->n; i++) {
		free(d->s[i].c);
		free(d->s[i].ok);
		free(d->s[i].h);
		free(d->s[i].label);
	}
	free(d->s);
	free(d->seen);
	free(d->metric);
	free(d->unknown);
}

struct scx_prom *scx_prom__new(unsigned dsq_cap)
{
	struct scx_prom *p = scx_xcalloc(1, sizeof(*p));

	dim_init(&p->cpu, cpu_fams, NR_CPU_FAMS, "scx_cpu_");
	dim_init(&p->dsq, dsq_fams, NR_DSQ_FAMS, "scx_dsq_");
	dim_init(&p->cgroup, cgroup_fams, NR_CGROUP_FAMS, "scx_cgroup_");
	p->dsq_cap = dsq_cap ? dsq_cap : SCX_PROM_DSQ_CAP;
	p->cgroup_cap = SCX_AGG_CGROUP_TOP;
	return p;
}

void scx_prom__free(struct scx_prom *p)
{
	if (!p)
		return;
	dim_free(&p->cpu);
	dim_free(&p->dsq);
	dim_free(&p->cgroup);
	free(p);
}

/* The series of key, created past the last one; hint: where it was last time. */
static struct series *dim_series(struct dim *d, int64_t key, unsigned hint)
{
	struct series *s;

	if (hint < d->n && d->s[hint].key == key)
		return &d->s[hint];
	for (unsigned i = 0; i < d->n; i++)
		if (d->s[i].key == key)
			return &d->s[i];
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 16;
		d->s = scx_xrealloc(d->s, d->cap * sizeof(*d->s));
	}
	s = &d->s[d->n++];
	memset(s, 0, sizeof(*s));
	s->key = key;
	s->llc = s->node = -1;
	s->c = scx_xcalloc(d->nr_fams, sizeof(*s->c));
	s->ok = scx_xcalloc(d->nr_fams, sizeof(*s->ok));
	s->h = scx_xcalloc(d->nr_fams, sizeof(*s->h));
	return s;
}

static bool dim_has(const struct dim *d, int64_t key)
{
	for (unsigned j = 0; j < d->n; j++)
		if (d->s[j].key == key)
			return true;
	return false;
}

static struct series *cgroup_series_other(struct scx_prom *p)
{
	struct series *se;

	for (unsigned j = 0; j < p->cgroup.n; j++)
		if (p->cgroup.s[j].key == KEY_OTHER)
			return &p->cgroup.s[j];
	se = dim_series(&p->cgroup, KEY_OTHER, p->cgroup.n);
	se->label = scx_xstrdup("cgroup=\"other\"");
	return se;
}

void scx_prom__set_cgroup_cap(struct scx_prom *p, unsigned cap)
{
	p->cgroup_cap = cap ? cap : SCX_AGG_CGROUP_TOP;
}

void scx_prom_label_escape(struct scx_buf *b, const char *s)
{
	scx_buf_addstr(b, "\"");
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			scx_buf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			scx_buf_addstr(b, "\\n");
		else
			scx_buf_add(b, s, 1);
	}
	scx_buf_addstr(b, "\"");
}

/*
 * The series of a cgroup group.  At most cgroup_cap series plus "other":
 * a cgroup new to the top rows takes the place of the series idle longest
 * (its counters start again from 0, which rate() reads as a reset), else
 * it is counted under "other".  Cardinality stays bounded on a machine
 * whose containers come and go.
 */
static struct series *cgroup_series(struct scx_prom *p, const struct scx_agg_group *g)
{
	struct dim *d = &p->cgroup;
	struct series *se = NULL, *old = NULL;
	int64_t key = g->key == CG_KEY_OTHER ? KEY_OTHER : g->key;
	struct scx_buf b = { 0 };

	for (unsigned j = 0; j < d->n; j++) {
		if (d->s[j].key == key)
			return &d->s[j];
		if (d->s[j].key != KEY_OTHER && d->s[j].last_iv < p->intervals &&
		    (!old || d->s[j].last_iv < old->last_iv))
			old = &d->s[j];
	}
	if (key != KEY_OTHER && d->n >= p->cgroup_cap + (dim_has(d, KEY_OTHER) ? 1 : 0)) {
		if (!old)
			return cgroup_series_other(p);
		se = old;
		free(se->label);
		memset(se->c, 0, d->nr_fams * sizeof(*se->c));
		memset(se->ok, 0, d->nr_fams * sizeof(*se->ok));
		memset(se->h, 0, d->nr_fams * sizeof(*se->h));
		se->key = key;
	} else {
		se = dim_series(d, key, d->n);
	}
	scx_buf_addstr(&b, "cgroup=");
	scx_prom_label_escape(&b, key == KEY_OTHER ? "other" : g->name);
	scx_buf_add(&b, "", 1);
	se->label = b.data;
	return se;
}

/* Index of the bucket holding v: bounds are 2^(k0+i) - 1, nb of them, then +Inf. */
static unsigned bucket_of(uint64_t v, unsigned k0, unsigned nb)
{
	unsigned i;

	if (v < (1ull << k0))
		return 0;
	i = (63 - __builtin_clzll(v)) - k0 + 1;
	return i > nb ? nb : i;
}

/*
 * Add a histogram's values into coarse buckets.  Every bound is the last
 * value below a power of two, and a lib/core/hist bucket never straddles a
 * power of two, so whole hist buckets move and the result is exact.
 */
static void add_buckets(uint64_t *out, const struct scx_hist *h, unsigned k0, unsigned nb)
{
	if (h->count <= SCX_HIST_INLINE) {
		for (uint64_t i = 0; i < h->count; i++)
			out[bucket_of(h->v[i], k0, nb)]++;
		return;
	}
	for (unsigned idx = h->lo; idx < h->hi; idx++) {
		uint64_t n = h->b[idx - h->lo], w;

		if (n)
			out[bucket_of(scx_hist_bucket_low(idx, &w), k0, nb)] += n;
	}
}

void scx_prom_hist_buckets(const struct scx_hist *h, bool ns, uint64_t *out)
{
	add_buckets(out, h, ns ? SCX_PROM_NS_K0 : 0, ns ? NS_BOUNDS : N_BOUNDS);
}

uint64_t scx_prom_bound(bool ns, unsigned i)
{
	return (1ull << ((ns ? SCX_PROM_NS_K0 : 0) + i)) - 1;
}

static void fold_hist(struct cum *c, const struct scx_hist *h, unsigned k0, unsigned nb)
{
	if (!h->count)
		return;
	add_buckets(c->b, h, k0, nb);
	c->count += h->count;
	c->sum += h->sum;
}

static uint64_t stat_u64(const struct scx_agg_stats *s, size_t off)
{
	uint64_t v = 0;

	if (off == SUM_SOFTIRQ_NS) {
		for (int i = 0; i < SCX_NR_SOFTIRQS; i++)
			v += s->softirq_ns[i];
		return v;
	}
	if (off == SUM_CSTATE_NS) {
		for (int i = 0; i < SCX_AGG_IDLE_STATES; i++)
			v += s->cstate_ns[i];
		return v;
	}
	memcpy(&v, (const char *)s + off, sizeof(v));
	return v;
}

static void fold_stats(struct dim *d, struct series *se, const struct scx_agg_stats *s)
{
	for (unsigned i = 0; i < d->nr_fams; i++) {
		const struct fam *f = &d->fams[i];
		const struct scx_hist *h = (const void *)((const char *)s + f->off);
		bool nz = false;

		switch (f->kind) {
		case F_COUNT:
		case F_NS:
			se->c[i] += stat_u64(s, f->off);
			nz = se->c[i] != 0;
			break;
		case F_GAUGE_HZ:
			se->ok[i] = s->freq_ns != 0;
			se->c[i] = se->ok[i] ?
					   (uint64_t)(s->freq_khz_ns / s->freq_ns * 1000 + 0.5) :
					   0;
			nz = se->ok[i];
			break;
		case F_GAUGE_N:
			se->c[i] = stat_u64(s, f->off);
			se->ok[i] = 1;
			nz = se->c[i] != 0;
			break;
		case F_HIST_NS:
			fold_hist(&se->h[i], h, SCX_PROM_NS_K0, NS_BOUNDS);
			nz = se->h[i].count != 0;
			break;
		case F_HIST_N:
			fold_hist(&se->h[i], h, 0, N_BOUNDS);
			nz = se->h[i].count != 0;
			break;
		}
		if (nz)
			d->seen[i] = true;
	}
}

/* The snapshot's seen bits only grow, so the last one says what is known so far. */
static void dim_known(struct dim *d, const struct scx_agg_snap *s)
{
	for (unsigned i = 0; i < d->nr_fams; i++)
		if (d->metric[i] >= 0)
			d->unknown[i] = scx_agg_metric_unknown(s, (unsigned)d->metric[i]);
}

/* LLC and node labels of a CPU, LLC or node group */
static void group_labels(const struct scx_agg *a, int level, int64_t key, int32_t *llc,
			 int32_t *node)
{
	*llc = *node = -1;
	if (!a->topo)
		return;
	if (level == SCX_AGG_CPU) {
		const struct scx_cpu_topo *t = scx_topo__cpu(a->topo, (int)key);

		if (t) {
			*llc = t->llc;
			*node = t->node;
		}
		return;
	}
	for (unsigned i = 0; i < a->topo->nr_cpus; i++) {
		const struct scx_cpu_topo *t = &a->topo->cpus[i];

		if (level == SCX_AGG_LLC && t->llc == key) {
			*llc = t->llc;
			*node = t->node;
			return;
		}
		if (level == SCX_AGG_NODE && t->node == key) {
			*node = t->node;
			return;
		}
	}
}

void scx_prom__start(struct scx_prom *p, const struct scx_agg *a, unsigned by)
{
	if (p->started)
		return;
	/* the finest CPU dimension asked for; a series' labels never change */
	p->level = -1;
	for (int k = SCX_AGG_NODE; k >= SCX_AGG_CPU; k--)
		if ((by ? by : SCX_AGG_BY_DEFAULT) & (1u << k))
			p->level = k;
	p->started = true;
	if (p->level < 0) {
		dim_series(&p->cpu, 0, 0);
		return;
	}
	for (unsigned i = 0; a->topo && i < a->topo->nr_cpus; i++) {
		const struct scx_cpu_topo *t = &a->topo->cpus[i];
		int64_t key = p->level == SCX_AGG_CPU ? t->cpu :
			      p->level == SCX_AGG_LLC ? t->llc :
							t->node;
		struct series *se = dim_series(&p->cpu, key, p->cpu.n);

		group_labels(a, p->level, key, &se->llc, &se->node);
	}
}

int scx_prom__add(struct scx_prom *p, const struct scx_agg *a, const struct scx_agg_snap *s)
{
	if (!p->started)
		scx_prom__start(p, a, a->o.by);
	if (p->level < 0) {
		fold_stats(&p->cpu, dim_series(&p->cpu, 0, 0), &s->total);
	} else if (s->groups[p->level]) {
		for (unsigned i = 0; i < s->nr[p->level]; i++) {
			const struct scx_agg_group *g = &s->groups[p->level][i];
			struct series *se = dim_series(&p->cpu, g->key, i);

			group_labels(a, p->level, g->key, &se->llc, &se->node);
			fold_stats(&p->cpu, se, g->s);
		}
	}
	for (unsigned i = 0; s->groups[SCX_AGG_DSQ] && i < s->nr[SCX_AGG_DSQ]; i++) {
		const struct scx_agg_group *g = &s->groups[SCX_AGG_DSQ][i];
		int64_t key = g->key;
		struct series *se = NULL;

		/* the engine's own "(other)" has key -1; past the cap, ours */
		if (key == -1)
			key = KEY_OTHER;
		for (unsigned j = 0; j < p->dsq.n && !se; j++)
			if (p->dsq.s[j].key == key)
				se = &p->dsq.s[j];
		if (!se)
			se = dim_series(&p->dsq, p->dsq.n < p->dsq_cap ? key : KEY_OTHER, i);
		fold_stats(&p->dsq, se, g->s);
	}
	for (unsigned i = 0; s->groups[SCX_AGG_CGROUP] && i < s->nr[SCX_AGG_CGROUP]; i++) {
		struct series *se = cgroup_series(p, &s->groups[SCX_AGG_CGROUP][i]);

		se->last_iv = p->intervals;
		fold_stats(&p->cgroup, se, s->groups[SCX_AGG_CGROUP][i].s);
	}
	dim_known(&p->cpu, s);
	dim_known(&p->cgroup, s);
	p->intervals++;
	p->events += s->events;
	p->lost += s->lost;
	p->unknown += s->unknown;
	p->out_of_order += s->out_of_order;
	p->threads = s->nr_threads;
	p->tasks_dropped += s->tasks_dropped;
	p->kernel |= !!(s->seen & SCX_AGG_SEEN_KERNEL);
	p->late_intervals += s->late_intervals;
	p->last_dur = s->end_ns - s->start_ns;
	if (s->scx.ts)
		scx_stats_merge(&p->scx, &s->scx);
	return 0;
}

/* ---- exposition ------------------------------------------------------------------ */

/* ns as seconds, exactly: 1023 -> 0.000001023, 2000000000 -> 2 */
static void put_secs(struct scx_buf *b, uint64_t ns)
{
	char t[32];
	int n = snprintf(t, sizeof(t), "%llu.%09llu", (unsigned long long)(ns / 1000000000),
			 (unsigned long long)(ns % 1000000000));

	while (t[n - 1] == '0')
		n--;
	if (t[n - 1] == '.')
		n--;
	scx_buf_add(b, t, n);
}

static void family_head(struct scx_buf *b, const char *prefix, const char *name, const char *type,
			const char *unit, const char *help)
{
	scx_buf_printf(b, "# HELP %s%s %s\n# TYPE %s%s %s\n# UNIT %s%s %s\n", prefix, name, help,
		       prefix, name, type, prefix, name, unit);
}

#define LABELS_MAX 96

/* The label set of a series, without braces: cpu="0",llc="0",node="0" */
static void series_labels(char *out, const struct scx_prom *p, const struct dim *d,
			  const struct series *se)
{
	out[0] = 0;
	if (d == &p->dsq) {
		if (se->key == KEY_OTHER)
			snprintf(out, LABELS_MAX, "dsq=\"other\"");
		else
			snprintf(out, LABELS_MAX, "dsq=\"%llu\"", (unsigned long long)se->key);
	} else if (p->level == SCX_AGG_CPU) {
		snprintf(out, LABELS_MAX, "cpu=\"%lld\",llc=\"%d\",node=\"%d\"", (long long)se->key,
			 se->llc, se->node);
	} else if (p->level == SCX_AGG_LLC) {
		snprintf(out, LABELS_MAX, "llc=\"%lld\",node=\"%d\"", (long long)se->key, se->node);
	} else if (p->level == SCX_AGG_NODE) {
		snprintf(out, LABELS_MAX, "node=\"%lld\"", (long long)se->key);
	}
}

/* name{labels} or name{labels,le="x"}, then a space */
static void sample(struct scx_buf *b, const char *prefix, const char *name, const char *suffix,
		   const char *lbl, const char *le)
{
	scx_buf_addstr(b, prefix);
	scx_buf_addstr(b, name);
	scx_buf_addstr(b, suffix);
	if (lbl[0] || le) {
		scx_buf_addstr(b, "{");
		scx_buf_addstr(b, lbl);
		if (le) {
			scx_buf_addstr(b, lbl[0] ? ",le=\"" : "le=\"");
			scx_buf_addstr(b, le);
			scx_buf_addstr(b, "\"");
		}
		scx_buf_addstr(b, "}");
	}
	scx_buf_addstr(b, " ");
}

static void put_u64(struct scx_buf *b, uint64_t v)
{
	char t[24];
	int n = snprintf(t, sizeof(t), "%llu\n", (unsigned long long)v);

	scx_buf_add(b, t, n);
}

/* The le values, formatted once: "0.000001023" ... "+Inf"; "0" ... "+Inf" */
static const char *const *le_strings(bool ns)
{
	static char ns_le[NS_BOUNDS + 1][24], n_le[N_BOUNDS + 1][24];
	static const char *ns_p[NS_BOUNDS + 1], *n_p[N_BOUNDS + 1];

	if (!ns_p[0]) {
		for (unsigned i = 0; i <= NS_BOUNDS; i++) {
			struct scx_buf t = { 0 };

			if (i < NS_BOUNDS) {
				put_secs(&t, scx_prom_bound(true, i));
				snprintf(ns_le[i], sizeof(ns_le[i]), "%.*s", (int)t.len, t.data);
			} else {
				strcpy(ns_le[i], "+Inf");
			}
			scx_buf_free(&t);
			ns_p[i] = ns_le[i];
		}
		for (unsigned i = 0; i <= N_BOUNDS; i++) {
			if (i < N_BOUNDS)
				snprintf(n_le[i], sizeof(n_le[i]), "%llu",
					 (unsigned long long)scx_prom_bound(false, i));
			else
				strcpy(n_le[i], "+Inf");
			n_p[i] = n_le[i];
		}
	}
	return ns ? ns_p : n_p;
}

static void put_hist(struct scx_buf *b, const struct dim *d, const struct fam *f, const char *lbl,
		     const struct cum *c)
{
	bool ns = f->kind == F_HIST_NS;
	unsigned nb = ns ? NS_BOUNDS : N_BOUNDS;
	const char *const *le = le_strings(ns);
	uint64_t cum = 0;

	for (unsigned i = 0; i <= nb; i++) {
		cum += c->b[i];
		sample(b, d->prefix, f->name, "_bucket", lbl, le[i]);
		put_u64(b, cum);
	}
	sample(b, d->prefix, f->name, "_sum", lbl, NULL);
	if (ns)
		put_secs(b, c->sum);
	else
		scx_buf_printf(b, "%llu", (unsigned long long)c->sum);
	scx_buf_addstr(b, "\n");
	sample(b, d->prefix, f->name, "_count", lbl, NULL);
	put_u64(b, c->count);
}

static void write_dim(const struct scx_prom *p, const struct dim *d, struct scx_buf *b)
{
	static const char *const type[] = {
		[F_COUNT] = "counter", [F_NS] = "counter",	  [F_GAUGE_HZ] = "gauge",
		[F_GAUGE_N] = "gauge", [F_HIST_NS] = "histogram", [F_HIST_N] = "histogram"
	};
	char(*buf)[LABELS_MAX];
	const char **lbl;

	if (!d->n)
		return;
	buf = scx_xcalloc(d->n, sizeof(*buf));
	lbl = scx_xcalloc(d->n, sizeof(*lbl));
	for (unsigned j = 0; j < d->n; j++) {
		series_labels(buf[j], p, d, &d->s[j]);
		lbl[j] = d->s[j].label ? d->s[j].label : buf[j];
	}
	for (unsigned i = 0; i < d->nr_fams; i++) {
		const struct fam *f = &d->fams[i];
		bool gauge = f->kind == F_GAUGE_HZ || f->kind == F_GAUGE_N;

		if ((f->opt && !d->seen[i]) || d->unknown[i])
			continue;
		family_head(b, d->prefix, f->name, type[f->kind], f->unit, f->help);
		for (unsigned j = 0; j < d->n; j++) {
			const struct series *se = &d->s[j];

			if (f->kind == F_HIST_NS || f->kind == F_HIST_N) {
				put_hist(b, d, f, lbl[j], &se->h[i]);
				continue;
			}
			if (gauge && !se->ok[i])
				continue;
			sample(b, d->prefix, f->name, "", lbl[j], NULL);
			if (f->kind == F_NS) {
				put_secs(b, se->c[i]);
				scx_buf_addstr(b, "\n");
			} else {
				put_u64(b, se->c[i]);
			}
		}
	}
	free(lbl);
	free(buf);
}

static void host_counter(struct scx_buf *b, const char *name, const char *unit, const char *help,
			 uint64_t v)
{
	family_head(b, "scx_", name, "counter", unit, help);
	scx_buf_printf(b, "scx_%s %llu\n", name, (unsigned long long)v);
}

/* A sched_ext counter: name_total (counter) or name (gauge of one interval). */
static void scx_counter(struct scx_buf *b, const char *name, const char *help, bool total,
			int64_t v)
{
	if (v < 0)
		return; /* not in this kernel */
	scx_buf_printf(b, "# HELP scx_sched_ext_%s%s %s\n# TYPE scx_sched_ext_%s%s %s\n", name,
		       total ? "_total" : "", help, name, total ? "_total" : "",
		       total ? "counter" : "gauge");
	scx_buf_printf(b, "scx_sched_ext_%s%s %lld\n", name, total ? "_total" : "", (long long)v);
}

void scx_prom_scx_stats(struct scx_buf *b, const struct scx_stats *s, bool total)
{
	const char *sfx = total ? "_total" : "";

	scx_buf_addstr(b, "# HELP scx_sched_ext_enabled 1 while a sched_ext scheduler is "
			  "enabled (labels: state, ops)\n# TYPE scx_sched_ext_enabled gauge\n"
			  "scx_sched_ext_enabled{state=");
	scx_prom_label_escape(b, s->state);
	scx_buf_addstr(b, ",ops=");
	scx_prom_label_escape(b, s->ops);
	scx_buf_printf(b, "} %d\n", !strcmp(s->state, "enabled"));
	if (s->switch_all >= 0)
		scx_buf_printf(b,
			       "# HELP scx_sched_ext_switch_all 1 when every task is on "
			       "sched_ext\n# TYPE scx_sched_ext_switch_all gauge\n"
			       "scx_sched_ext_switch_all %lld\n",
			       (long long)s->switch_all);
	scx_counter(b, "loads", "sched_ext schedulers loaded (sysfs enable_seq)", total,
		    s->enable_seq);
	scx_counter(b, "rejected_tasks", "tasks sched_ext refused (sysfs nr_rejected)", total,
		    s->nr_rejected);
	scx_counter(b, "hotplugs", "CPU hotplug events under sched_ext (sysfs hotplug_seq)", total,
		    s->hotplug_seq);
	if (!s->has_events)
		return;
	scx_buf_printf(b,
		       "# HELP scx_sched_ext_events%s sched_ext's event counters (root/events, "
		       "label event: the name without SCX_EV_)\n"
		       "# TYPE scx_sched_ext_events%s %s\n",
		       sfx, sfx, total ? "counter" : "gauge");
	for (unsigned i = 0; i < s->nr_events; i++) {
		scx_buf_printf(b, "scx_sched_ext_events%s{event=", sfx);
		scx_prom_label_escape(b, s->events[i].name);
		scx_buf_printf(b, "} %llu\n", (unsigned long long)s->events[i].value);
	}
	scx_counter(b, "events_dropped", "sched_ext event counters past the record's limit", total,
		    (int64_t)s->events_dropped);
}

void scx_prom__write(const struct scx_prom *p, struct scx_buf *b)
{
	host_counter(b, "intervals_total", "intervals",
		     "intervals folded in since the collector started", p->intervals);
	host_counter(b, "events_total", "events", "events read", p->events);
	host_counter(b, "lost_events_total", "events", "events the producer lost", p->lost);
	host_counter(b, "unknown_events_total", "events",
		     "events of types the collector does not use", p->unknown);
	host_counter(b, "out_of_order_events_total", "events",
		     "events older than the sort window, used where they arrived", p->out_of_order);
	host_counter(b, "tasks_dropped_total", "threads",
		     "threads forgotten past the task limit (--max-tasks)", p->tasks_dropped);
	if (p->kernel)
		host_counter(b, "late_intervals_total", "intervals",
			     "kernel intervals merged into a later one because the collector's "
			     "reader fell behind",
			     p->late_intervals);
	family_head(b, "scx_", "tracked_threads", "gauge", "threads",
		    "threads tracked at the last interval");
	scx_buf_printf(b, "scx_tracked_threads %llu\n", (unsigned long long)p->threads);
	family_head(b, "scx_", "interval_seconds", "gauge", "seconds",
		    "length of the last interval");
	scx_buf_addstr(b, "scx_interval_seconds ");
	put_secs(b, p->last_dur);
	scx_buf_addstr(b, "\n");
	write_dim(p, &p->cpu, b);
	write_dim(p, &p->dsq, b);
	write_dim(p, &p->cgroup, b);
	if (p->scx.ts)
		scx_prom_scx_stats(b, &p->scx, true);
}

/* ---- textfile -------------------------------------------------------------------- */

/* The directory of path, and a temporary name beside it that node_exporter skips. */
static void textfile_names(const char *path, char *dir, size_t dn, char *tmp, size_t tn)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, dn, ".");
	else if (slash == path)
		snprintf(dir, dn, "/");
	else
		snprintf(dir, dn, "%.*s", (int)(slash - path), path);
	snprintf(tmp, tn, "%s/.%s.XXXXXX", dir, slash ? slash + 1 : path);
}

int scx_prom_textfile_check(const char *path, char *err, size_t n)
{
	char dir[4096], tmp[4200];
	struct stat st;
	int fd;

	textfile_names(path, dir, sizeof(dir), tmp, sizeof(tmp));
	if (stat(dir, &st)) {
		int e = errno;

		snprintf(err, n, "textfile directory '%s': %s", dir, strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, n, "textfile directory '%s': %s", dir, strerror(ENOTDIR));
		return -ENOTDIR;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;

		snprintf(err, n, "cannot create files in textfile directory '%s': %s", dir,
			 strerror(e));
		return -e;
	}
	close(fd);
	unlink(tmp);
	return 0;
}

int scx_prom_textfile_write(const char *path, const struct scx_buf *b, char *err, size_t n)
{
	char dir[4096], tmp[4200];
	int fd, e = 0;

	textfile_names(path, dir, sizeof(dir), tmp, sizeof(tmp));
	fd = mkstemp(tmp);
	if (fd < 0) {
		e = errno;
		snprintf(err, n, "cannot create files in textfile directory '%s': %s", dir,
			 strerror(e));
		return -e;
	}
	/* mkstemp makes it 0600; node_exporter usually runs as another user */
	if (fchmod(fd, 0644) || (e = -scx_write_all(fd, b->data, b->len)) != 0) {
		e = e ? e : errno;
		snprintf(err, n, "cannot write '%s': %s", tmp, strerror(e));
		close(fd);
		unlink(tmp);
		return -e;
	}
	if (close(fd) || rename(tmp, path)) {
		e = errno;
		snprintf(err, n, "cannot replace '%s': %s", path, strerror(e));
		unlink(tmp);
		return -e;
	}
	return 0;
}
