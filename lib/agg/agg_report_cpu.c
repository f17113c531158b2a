// SPDX-License-Identifier: GPL-2.0
/* Reports on CPUs and queues: cpu-utilization, runqueue-depth, softirq, ipi,
 * cpu-frequency, cpu-idle, dsq. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agg/agg_report_int.h"

AGG_REPORT(agg_rep_cpu_utilization)
{
	static const char *const cc[] = {
		"cpu:i:key", "llc:i",	   "node:i",	    "util:pct",	  "busy:ns",
		"idle:ns",   "switches:u", "involuntary:u", "slice:dist", NULL,
	};
	static const char *const sc[] = {
		"cpus:u", "util:pct", "max_util:pct", "min_util:pct", "busy:ns", "switches:u", NULL
	};
	struct scx_table *c = scx_table_new(r, "cpus", cc), *s = scx_table_new(r, "summary", sc);
	uint64_t dur = agg_dur(a);
	double mx = 0, mn = 100;
	unsigned n = 0, row;

	FOR_CPUS(a, cp)
	{
		double u = agg_pct(cp->s.busy_ns, dur);

		row = scx_table_row(c);
		scx_table_int(c, row, 0, cp->id);
		scx_table_int(c, row, 1, cp->llc);
		scx_table_int(c, row, 2, cp->node);
		scx_table_num(c, row, 3, u);
		scx_table_uint(c, row, 4, cp->s.busy_ns);
		scx_table_uint(c, row, 5, cp->s.idle_ns);
		scx_table_uint(c, row, 6, cp->s.switches);
		scx_table_uint(c, row, 7, cp->s.involuntary);
		scx_table_hist(c, row, 8, &cp->s.slice);
		mx = u > mx ? u : mx;
		mn = u < mn ? u : mn;
		n++;
	}
	row = scx_table_row(s);
	scx_table_uint(s, row, 0, n);
	scx_table_num(s, row, 1, n ? agg_pct(a->snap.total.busy_ns, dur * n) : 0);
	scx_table_num(s, row, 2, n ? mx : 0);
	scx_table_num(s, row, 3, n ? mn : 0);
	scx_table_uint(s, row, 4, a->snap.total.busy_ns);
	scx_table_uint(s, row, 5, a->snap.total.switches);
	scx_table_append(out, s);
	agg_report_add(a, out, c, 3);
	return 0;
}

AGG_REPORT(agg_rep_runqueue_depth)
{
	static const char *const cc[] = {
		"cpu:i:key", "avg:n", "p50:n", "p99:n", "max:u", "enqueues:u", "high:u", NULL,
	};
	struct scx_table *c = scx_table_new(r, "cpus", cc);
	uint64_t dur = agg_dur(a);
	/* without wakeup events a woken task is first seen when it runs */
	bool w = agg_seen(a, SCX_AGG_SEEN_WAKE);

	FOR_CPUS(a, cp)
	{
		unsigned row = scx_table_row(c);

		scx_table_int(c, row, 0, cp->id);
		known_num(c, row, 1, w, dur ? (double)cp->s.rq_depth_ns / dur : 0);
		known_num(c, row, 2, w, scx_hist_quantile(&cp->s.rq_depth, 0.5));
		known_num(c, row, 3, w, scx_hist_quantile(&cp->s.rq_depth, 0.99));
		known_uint(c, row, 4, w, cp->s.rq_depth_max);
		known_uint(c, row, 5, w, cp->s.rq_depth.count);
		known_uint(c, row, 6, w, cp->s.rq_depth_max > a->th[TH_RQ_DEPTH]);
	}
	agg_report_add(a, out, c, 1);
	return 0;
}

AGG_REPORT(agg_rep_softirq)
{
	static const char *const vc[] = { "vec:s:key", "count:u", "time:ns", "cpu_pct:pct", NULL };
	static const char *const cc[] = {
		"cpu:i:key", "count:u", "time:ns", "cpu_pct:pct", "top_vec:s", NULL,
	};
	struct scx_table *v = scx_table_new(r, "vectors", vc), *c = scx_table_new(r, "cpus", cc);
	const struct scx_agg_stats *t = &a->snap.total;
	uint64_t dur = agg_dur(a), ncpu = a->snap.nr_cpus ? a->snap.nr_cpus : 1;

	for (int i = 0; i < SCX_NR_SOFTIRQS; i++) {
		unsigned row;

		if (!t->softirqs[i] && !t->softirq_ns[i])
			continue;
		row = scx_table_row(v);
		scx_table_str(v, row, 0, scx_softirq_names[i]);
		scx_table_uint(v, row, 1, t->softirqs[i]);
		scx_table_uint(v, row, 2, t->softirq_ns[i]);
		scx_table_num(v, row, 3, agg_pct(t->softirq_ns[i], dur * ncpu));
	}
	agg_report_add(a, out, v, 2);
	FOR_CPUS(a, cp)
	{
		uint64_t n = 0, ns = 0, top = 0;
		int tv = -1;
		unsigned row;

		for (int i = 0; i < SCX_NR_SOFTIRQS; i++) {
			n += cp->s.softirqs[i];
			ns += cp->s.softirq_ns[i];
			if (cp->s.softirq_ns[i] > top) {
				top = cp->s.softirq_ns[i];
				tv = i;
			}
		}
		if (!n && !ns)
			continue;
		row = scx_table_row(c);
		scx_table_int(c, row, 0, cp->id);
		scx_table_uint(c, row, 1, n);
		scx_table_uint(c, row, 2, ns);
		scx_table_num(c, row, 3, agg_pct(ns, dur));
		scx_table_str(c, row, 4, tv >= 0 ? scx_softirq_names[tv] : "");
	}
	agg_report_add(a, out, c, 2);
	return 0;
}

AGG_REPORT(agg_rep_ipi)
{
	static const char *const cc[] = {
		"cpu:i:key", "sent:u", "received:u", "handler:ns", NULL,
	};
	static const char *const sc[] = { "sent:u", "received:u", "per_sec:n", NULL };
	struct scx_table *c = scx_table_new(r, "cpus", cc), *s = scx_table_new(r, "summary", sc);
	uint64_t dur = agg_dur(a);
	unsigned row = scx_table_row(s);
	bool sent = agg_seen(a, SCX_AGG_SEEN_IPI); /* else unknown, not 0 */

	known_uint(s, row, 0, sent, a->snap.total.ipi_sent);
	known_uint(s, row, 1, sent, a->snap.total.ipi_received);
	known_num(s, row, 2, sent, dur ? a->snap.total.ipi_received * 1e9 / dur : 0);
	scx_table_append(out, s);
	FOR_CPUS(a, cp)
	{
		if (!cp->s.ipi_sent && !cp->s.ipi_received && !cp->s.ipi_ns)
			continue;
		row = scx_table_row(c);
		scx_table_int(c, row, 0, cp->id);
		known_uint(c, row, 1, sent, cp->s.ipi_sent);
		known_uint(c, row, 2, sent, cp->s.ipi_received);
		known_uint(c, row, 3, agg_seen(a, SCX_AGG_SEEN_IPI_HANDLER), cp->s.ipi_ns);
	}
	agg_report_add(a, out, c, 2);
	return 0;
}

AGG_REPORT(agg_rep_cpu_frequency)
{
	static const char *const cc[] = {
		"cpu:i:key", "avg_khz:n", "known:ns", "last_khz:u", NULL,
	};
	struct scx_table *c = scx_table_new(r, "cpus", cc);

	FOR_CPUS(a, cp)
	{
		unsigned row;

		if (!cp->s.freq_ns && !cp->freq_khz)
			continue;
		row = scx_table_row(c);
		scx_table_int(c, row, 0, cp->id);
		scx_table_num(c, row, 1, cp->s.freq_ns ? cp->s.freq_khz_ns / cp->s.freq_ns : 0);
		scx_table_uint(c, row, 2, cp->s.freq_ns);
		scx_table_uint(c, row, 3, cp->freq_khz);
	}
	agg_report_add(a, out, c, -1);
	return 0;
}

/*
 * Like trace_processor's cpu_idle_stats, except that state is the kernel's
 * index (TP prints index + 1): idle_percent is the state's time over the
 * time since the CPU's first cpu_idle event.
 */
AGG_REPORT(agg_rep_cpu_idle)
{
	static const char *const cc[] = {
		"cpu:i:key",  "state:i:key",	  "count:u", "dur:ns",
		"avg_dur:ns", "idle_percent:pct", NULL,
	};
	struct scx_table *c = scx_table_new(r, "states", cc);

	FOR_CPUS(a, cp)
	{
		for (int k = 0; k < SCX_AGG_IDLE_STATES; k++) {
			unsigned row;

			if (!cp->s.cstates[k] && !cp->s.cstate_ns[k])
				continue;
			row = scx_table_row(c);
			scx_table_int(c, row, 0, cp->id);
			scx_table_int(c, row, 1, k);
			scx_table_uint(c, row, 2, cp->s.cstates[k]);
			scx_table_uint(c, row, 3, cp->s.cstate_ns[k]);
			scx_table_uint(c, row, 4,
				       cp->s.cstates[k] ? cp->s.cstate_ns[k] / cp->s.cstates[k] :
							  0);
			scx_table_num(c, row, 5, agg_pct(cp->s.cstate_ns[k], cp->s.cstate_obs_ns));
		}
	}
	agg_report_add(a, out, c, -1);
	return 0;
}

AGG_REPORT(agg_rep_dsq)
{
	static const char *const dc[] = {
		"dsq:u:key",   "inserts:u",   "dispatches:u", "per_sec:n",	 "vtime_delta:n",
		"depth_avg:n", "depth_max:u", "dsq_lat:dist", "slice_used:dist", NULL,
	};
	struct scx_table *d = scx_table_new(r, "dsqs", dc);
	uint64_t dur = agg_dur(a);
	/* kernel snapshots count dispatches and queueing times per DSQ, nothing else */
	bool kernel = a->snap.seen & SCX_AGG_SEEN_KERNEL;
	static const unsigned kernel_unknown[] = { 1, 4, 5, 6, 8 };

	const struct grp *g;
	size_t pos = 0;

	while ((g = agg_gtab_next(&a->dsq, &pos))) {
		unsigned row = scx_table_row(d);
		scx_table_uint(d, row, 0, (uint64_t)g->key);
		scx_table_uint(d, row, 2, g->s.dsq_dispatches);
		scx_table_num(d, row, 3, dur ? g->s.dsq_dispatches * 1e9 / dur : 0);
		scx_table_hist(d, row, 7, &g->s.dsq_lat);
		if (kernel) {
			for (unsigned i = 0; i < SCX_ARRAY_SIZE(kernel_unknown); i++)
				scx_table_unknown(d, row, kernel_unknown[i]);
			continue;
		}
		scx_table_uint(d, row, 1, g->s.dsq_inserts);
		scx_table_num(d, row, 4,
			      g->s.vtime_max >= g->s.vtime_min ?
				      (double)(g->s.vtime_max - g->s.vtime_min) :
				      0);
		scx_table_num(d, row, 5,
			      g->s.dsq_depth.count ?
				      (double)g->s.dsq_depth.sum / g->s.dsq_depth.count :
				      0);
		scx_table_uint(d, row, 6, g->s.dsq_depth.count ? g->s.dsq_depth.max : 0);
		scx_table_hist(d, row, 8, &g->s.slice_used);
	}
	agg_report_add(a, out, d, 2);
	return 0;
}
