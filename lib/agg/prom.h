/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots as Prometheus expects them: counters cumulative since the
 * collector started (`_total`, so rate() and increase() apply and a missed
 * scrape loses nothing), distributions as histograms with `le` buckets at
 * fixed bounds (so hosts add up into a fleet quantile), HELP, TYPE and UNIT
 * on every family.  The text is the Prometheus text format 0.0.4 that
 * node_exporter's textfile collector and `promtool check metrics` read; UNIT
 * lines are comments there.
 *
 *	struct scx_prom *p = scx_prom__new(dsq_cap);
 *	... in the agg emit() callback:
 *	scx_prom__add(p, a, snap);		// fold one closed interval
 *	scx_prom__write(p, &buf);		// everything folded so far
 *	scx_prom_textfile_write(path, &buf, err, sizeof(err));
 *
 * Series: one per CPU (labels cpu, llc, node) when the snapshot has CPU
 * groups, else one per LLC (llc, node), per node, or one for the host; one
 * per DSQ (label dsq) in the scx_dsq_* families, at most dsq_cap DSQs and
 * then dsq="other"; one per cgroup (label cgroup) in the scx_cgroup_*
 * families, see scx_prom__set_cgroup_cap().  A series, once exported, is
 * exported every time after (a cgroup series until another takes its place).
 *
 * Bucket bounds: le = 2^k - 1 ns for k = SCX_PROM_NS_K0 .. SCX_PROM_NS_K1
 * (about 1us to 17s), and 2^k - 1 tasks for k = 0 .. 10 for depths, then
 * +Inf.  Values are whole nanoseconds (tasks), so "<= 2^k - 1" is "< 2^k":
 * every bound is a bucket boundary of lib/core/hist, and the exported
 * buckets are exact sums of its buckets.
 */
#ifndef SCX_PROM_H
#define SCX_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg/agg.h"

#define SCX_PROM_NS_K0 10
#define SCX_PROM_NS_K1 34
#define SCX_PROM_DEPTH_K1 10
#define SCX_PROM_DSQ_CAP 64 /* default DSQ series before dsq="other" */

#define SCX_PROM_NS_BOUNDS (SCX_PROM_NS_K1 - SCX_PROM_NS_K0 + 1)
#define SCX_PROM_DEPTH_BOUNDS (SCX_PROM_DEPTH_K1 + 1)

struct scx_prom;
struct scx_buf;

/* Bound i of the ns (or depth) buckets, in ns (tasks): 2^(k0 + i) - 1. */
uint64_t scx_prom_bound(bool ns, unsigned i);
/*
 * Add h's values into out[0..bounds] (not cumulative; out[bounds] is +Inf):
 * out[i] gets the values in (bound i-1, bound i].  Exact.
 */
void scx_prom_hist_buckets(const struct scx_hist *h, bool ns, uint64_t *out);

struct scx_prom *scx_prom__new(unsigned dsq_cap);
/*
 * Cgroup series (scx_cgroup_*, label cgroup) come from the snapshots'
 * cgroup groups: at most cap of them (0: SCX_AGG_CGROUP_TOP) and
 * cgroup="other".  A cgroup new to the snapshots' top rows when the cap is
 * reached takes the place of the series that has gone longest without
 * figures (its counters start again at 0: a counter reset to rate()), or
 * else is counted under "other".
 */
void scx_prom__set_cgroup_cap(struct scx_prom *p, unsigned cap);
/* s as a quoted label value of the text format: \\, \" and \n escaped. */
void scx_prom_label_escape(struct scx_buf *b, const char *s);
void scx_prom__free(struct scx_prom *p);
/*
 * Choose the series from the groups of by (SCX_AGG_* bits, 0 for the
 * default) and create those of a's topology, every figure 0: written at
 * once, they let increase() count the first interval too.  Optional; the
 * first add() calls it otherwise.
 */
void scx_prom__start(struct scx_prom *p, const struct scx_agg *a, unsigned by);
/* Fold one closed interval of a into the cumulative figures.  0 or -ENOMEM. */
int scx_prom__add(struct scx_prom *p, const struct scx_agg *a, const struct scx_agg_snap *s);
/*
 * sched_ext's state and counters (the snapshots' scx_stats, folded): the
 * scx_sched_ext_* families, counters as _total when total (cumulative since
 * the start), else as gauges of one interval.  Written by scx_prom__write()
 * once a record was seen; counters the kernel lacks are left out.
 */
void scx_prom_scx_stats(struct scx_buf *b, const struct scx_stats *s, bool total);
/* The exposition of everything folded so far (no "# EOF"). */
void scx_prom__write(const struct scx_prom *p, struct scx_buf *b);

/*
 * Check that a textfile can be written at path: its directory exists and a
 * file can be created in it.  0, or -errno with a message naming what failed.
 */
int scx_prom_textfile_check(const char *path, char *err, size_t n);
/*
 * Replace path with b's contents atomically: written to a temporary file
 * in the same directory (a dot name that does not end in .prom, so
 * node_exporter never reads it), made world-readable, renamed over path.
 * 0, or -errno with a message.
 */
int scx_prom_textfile_write(const char *path, const struct scx_buf *b, char *err, size_t n);

#endif
