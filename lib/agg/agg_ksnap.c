// SPDX-License-Identifier: GPL-2.0
/* Kernel snapshots into the engine's CPU groups (see agg_ksnap.h). */
#include "agg/agg_int.h"
#include "agg/agg_ksnap.h"

static void add_hist(const struct scx_agg *a, struct scx_hist *h, unsigned bit,
		     const struct scx_ksnap_hist *kh)
{
	if (!((a->o.skip_hists | a->o.skip_cpu_hists) & bit))
		scx_ksnap_hist_to(kh, h);
}

int scx_agg__add_ksnap(struct scx_agg *a, const struct scx_ksnap *k, bool own_interval)
{
	uint64_t lost = k->dropped_tasks + k->dropped_cpu + k->missed;
	int err = agg_ksnap_begin(a, k->start_ns, own_interval);

	if (err)
		return err;
	for (unsigned i = 0; i < k->nr_cpus; i++) {
		const struct scx_ksnap_cpu *kc = &k->cpus[i];
		struct scx_agg_stats *s = agg_ksnap_cpu(a, kc->cpu);

		if (!s) {
			lost += kc->c[SCX_KS_SWITCHES] + kc->c[SCX_KS_WAKEUPS];
			continue;
		}
		s->switches += kc->c[SCX_KS_SWITCHES];
		s->voluntary += kc->c[SCX_KS_VOLUNTARY];
		s->involuntary += kc->c[SCX_KS_INVOLUNTARY];
		s->slices += kc->c[SCX_KS_SLICES];
		s->wakeups += kc->c[SCX_KS_WAKEUPS];
		s->wakeups_new += kc->c[SCX_KS_WAKEUPS_NEW];
		s->migrations += kc->c[SCX_KS_MIGRATIONS];
		s->migr_cross_llc += kc->c[SCX_KS_MIGR_CROSS_LLC];
		s->migr_cross_node += kc->c[SCX_KS_MIGR_CROSS_NODE];
		s->busy_ns += kc->c[SCX_KS_BUSY_NS];
		s->idle_ns += kc->c[SCX_KS_IDLE_NS];
		s->rq_depth_ns += kc->c[SCX_KS_RQ_DEPTH_NS];
		s->rq_depth_max = SCX_MAX(s->rq_depth_max, kc->c[SCX_KS_RQ_DEPTH_MAX]);
		s->wc_loss_ns += kc->c[SCX_KS_WC_LOSS_NS];
		add_hist(a, &s->wake_lat, SCX_AGG_HIST_WAKE_LAT, &kc->h[SCX_KSH_WAKE_LAT]);
		add_hist(a, &s->rq_delay, SCX_AGG_HIST_RQ_DELAY, &kc->h[SCX_KSH_RQ_DELAY]);
		add_hist(a, &s->slice, SCX_AGG_HIST_SLICE, &kc->h[SCX_KSH_SLICE]);
	}
	if (lost)
		scx_agg__note_lost(a, -1, lost);
	return agg_ksnap_end(a, k->end_ns, own_interval);
}
