// SPDX-License-Identifier: GPL-2.0
/*
 * Which of scx-agg's metrics fill which of scx-top's columns, and how
 * (topview_int.h).  The figures themselves are agg's (lib/agg/agg_out.c,
 * scx_agg_metric_get()); here they are only placed, made per second or
 * shared out over the group's CPUs.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "top/topview_int.h"

static const struct top_member members[] = {
#define M(s, k, c, r) { s, sizeof(s) - 1, k, c, r }
	M("util", K_COL, TC_UTIL, false),
	M("switches", K_COL, TC_SW, true),
	M("involuntary", K_COL, TC_PREEMPT, true),
	M("wakeups", K_COL, TC_WAKE, true),
	M("migrations", K_COL, TC_MIG, true),
	M("migr_cross_llc", K_COL, TC_XLLC, true),
	M("migr_cross_node", K_COL, TC_XNODE, true),
	M("dsq_dispatches", K_COL, TC_DISP, true),
	M("avg_freq_khz", K_COL, TC_FREQ, false),
	M("threads", K_THREADS, TC_THREADS, false),
	M("vtime_delta", K_COL, TC_VTIME, false),
	M("cpu", K_ID, 0, false),
	M("llc", K_ID, 0, false),
	M("node", K_ID, 0, false),
	M("tgid", K_ID, 0, false),
	M("pid", K_ID, 0, false),
	M("dsq", K_ID, 0, false),
	M("comm", K_COMM, 0, false),
	M("cgroup", K_CGROUP, 0, false),
	M("cpus", K_CPUS, 0, false),
	M("softirq_ns", K_SIRQ, 0, false),
	M("wake_lat", K_WAKE_LAT, 0, false),
	M("dsq_lat", K_DSQ_LAT, 0, false),
	M("slice_used", K_SLICE_USED, 0, false),
	M("dsq_depth", K_DSQ_DEPTH, 0, false),
#undef M
};

/*
 * Most members of a group are metrics no view shows: candidates are looked
 * up by length, then first byte, before any memcmp (snapshots of big
 * machines hold thousands of groups with dozens of members each).
 */
#define MEMBER_MAXLEN 16
static uint32_t member_by_len[MEMBER_MAXLEN]; /* bit i: members[i] has that length */
static pthread_once_t member_once = PTHREAD_ONCE_INIT;

static void member_index(void)
{
	_Static_assert(SCX_ARRAY_SIZE(members) <= 32, "members fit a 32-bit mask");
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(members); i++)
		if (members[i].len < MEMBER_MAXLEN)
			member_by_len[members[i].len] |= 1u << i;
}

const struct top_member *top_member_find(const char *s, unsigned n)
{
	pthread_once(&member_once, member_index);
	if (n >= MEMBER_MAXLEN || !n)
		return NULL;
	for (uint32_t m = member_by_len[n]; m; m &= m - 1) {
		const struct top_member *mb = &members[__builtin_ctz(m)];

		if (mb->name[0] == s[0] && !memcmp(mb->name, s, n))
			return mb;
	}
	return NULL;
}

static void put(struct top_row *r, int col, double v)
{
	r->v[col] = v;
	r->has[col] = true;
}

void top_fill_metric(struct top_row *r, struct top_fill *f, const struct top_member *mb, double v,
		     const struct top_dist *d)
{
	unsigned have = d ? d->have : 0;

	switch (mb->key) {
	case K_COL:
	case K_THREADS:
		put(r, mb->col, mb->rate ? v / f->secs : v);
		break;
	case K_SIRQ:
		f->sirq = v;
		break;
	case K_WAKE_LAT:
	case K_DSQ_LAT:
		/* a DSQ's latency is its queueing; a CPU's or task's, its wakeups' */
		if ((mb->key == K_DSQ_LAT) != f->dsq || !(have & TOP_D_COUNT) || d->count <= 0)
			break;
		if (have & TOP_D_P50)
			put(r, TC_P50, d->p50);
		if (have & TOP_D_P90)
			put(r, TC_P90, d->p90);
		if (have & TOP_D_P99)
			put(r, TC_P99, d->p99);
		break;
	case K_SLICE_USED:
		if ((have & TOP_D_COUNT) && d->count > 0 && (have & TOP_D_AVG))
			put(r, TC_SLICE, d->avg);
		break;
	case K_DSQ_DEPTH:
		if (!f->dsq || !(have & TOP_D_COUNT) || d->count <= 0)
			break;
		if (have & TOP_D_AVG)
			put(r, TC_DEPTH, d->avg);
		if (have & TOP_D_MAX)
			put(r, TC_DEPTHMAX, d->max);
		break;
	case K_ID:
	case K_COMM:
	case K_CGROUP:
	case K_CPUS:
		break; /* the group's keys: each input reads them its own way */
	}
}

void top_fill_done(struct top_row *r, const struct top_fill *f, double cpus)
{
	/* per cpu of the group, like util */
	if (f->sirq >= 0)
		put(r, TC_SIRQ, f->sirq / 1e9 / f->secs / (cpus > 0 ? cpus : 1));
}

int64_t top_path_id(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *path; path++)
		h = (h ^ (uint8_t)*path) * 0x100000001b3ull;
	return (int64_t)(h >> 1);
}

void top_label_path(struct top_row *r, const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (n < sizeof(r->label))
		memcpy(r->label, path ? path : "", n + 1);
	else
		snprintf(r->label, sizeof(r->label), "...%s", path + n - (sizeof(r->label) - 4));
}
