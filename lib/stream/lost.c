// SPDX-License-Identifier: GPL-2.0
/* Lost-event counts of LOST records against a trailer (see lost.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stream/lost.h"
#include "core/util.h"

void scx_lost_tally__add(struct scx_lost_tally *l, const struct scx_event *e)
{
	if (e->type != SCX_EV_LOST)
		return;
	if (e->cpu < 0 || e->cpu >= SCX_MAX_CPUS) {
		l->unknown += e->lost.count;
		return;
	}
	if ((unsigned)e->cpu >= l->n) {
		unsigned n = SCX_MAX((unsigned)e->cpu + 1, SCX_MIN(l->n * 2, SCX_MAX_CPUS));

		l->cpu = scx_xrealloc(l->cpu, n * sizeof(*l->cpu));
		memset(l->cpu + l->n, 0, (n - l->n) * sizeof(*l->cpu));
		l->n = n;
	}
	l->cpu[e->cpu] += e->lost.count;
}

uint64_t scx_lost_tally__unseen(const struct scx_lost_tally *l, const struct scx_trailer *t,
				unsigned cpu)
{
	uint64_t seen = cpu < l->n ? l->cpu[cpu] : 0;

	if (!t || !t->lost || cpu >= t->nr_cpus || t->lost[cpu] <= seen)
		return 0;
	return t->lost[cpu] - seen;
}

int scx_missed_record(const struct scx_json_doc *d, uint64_t *count, char *err, size_t errsz)
{
	int t = d ? scx_json_get(d, 0, "type") : -1;

	if (t < 0 || !scx_json_eq(d, t, "missed"))
		return 0;
	if (scx_json_rec_uint(d, 0, "count", count, "missed", err, errsz))
		return -EINVAL;
	return 1;
}

uint64_t scx_lost_tally__missed_unseen(const struct scx_lost_tally *l, const struct scx_trailer *t)
{
	return t && t->missed > l->missed ? t->missed - l->missed : 0;
}

void scx_lost_tally__reset(struct scx_lost_tally *l)
{
	if (l->cpu)
		memset(l->cpu, 0, l->n * sizeof(*l->cpu));
	l->unknown = 0;
	l->missed = 0;
}

void scx_lost_tally__free(struct scx_lost_tally *l)
{
	free(l->cpu);
	memset(l, 0, sizeof(*l));
}
