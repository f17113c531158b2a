// SPDX-License-Identifier: GPL-2.0
/* The per-CPU caches of the cgroup figures, read after a flip (see kagg.h). */
#include <string.h>

#include "../../bpf/aggregate.h"
#include "capture/kagg.h"

size_t scx_kagg_drain_cgcache(struct kagg_cgcache *caches, unsigned nr_cpus,
			      struct kagg_cgslot *slots, struct kagg_cgbkey *keys, uint64_t *vals,
			      size_t nb, size_t cap)
{
	for (unsigned cpu = 0; cpu < nr_cpus; cpu++) {
		struct kagg_cgcache *c = &caches[cpu];

		for (unsigned i = 0; i < KAGG_CGC_WAYS; i++) {
			const struct kagg_cgc_ent *e = &c->ent[i];
			struct kagg_cgslot *to;

			/* the programs keep slots below the cap: anything else is not theirs */
			if (!e->slot1 || e->slot1 > KAGG_MAX_CGROUPS)
				continue;
			to = &slots[e->slot1 - 1];
			for (unsigned k = 0; k < KAGG_CG_COUNTERS; k++)
				to->c[k] += e->c[k];
			for (unsigned h = 0; h < KAGG_CG_HISTS; h++)
				kagg_cgc_hist_merge(&to->h[h], &e->h[h]);
		}
		for (unsigned i = 0; i < KAGG_CGC_BUCKETS && nb < cap; i++) {
			const struct kagg_cgc_bkt *b = &c->bkt[i];

			if (!b->key || !b->n)
				continue;
			keys[nb] = kagg_cgc_unkey(b->key);
			vals[nb++] = b->n;
		}
		memset(c, 0, sizeof(*c));
	}
	return nb;
}
