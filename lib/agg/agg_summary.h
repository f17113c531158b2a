/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Summaries and A/B comparison.  A summary is one compact NDJSON record per
 * capture (or interval) with the headline figures of the total and of each
 * CPU, LLC, node, comm and DSQ, and the histograms behind the distributions
 * as sparse bucket counts, so two summaries merge and compare exactly as the
 * captures would (scx-agg --summary, man/scx-agg.1).  scx_agg_diff compares
 * two of them metric by metric and group by group, with a test against
 * run-to-run noise that works on the histograms themselves.
 *
 *	struct scx_sum *a = scx_sum__new(), *b = scx_sum__new();
 *	scx_sum__add_json(a, line, len, err, sizeof(err));	// each record of A
 *	...
 *	struct scx_table *t; struct scx_diff_verdict v;
 *	scx_agg_diff(a, b, &o, &t, &v);
 */
#ifndef SCX_AGG_SUMMARY_H
#define SCX_AGG_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg/agg.h"

#define SCX_SUMMARY_VERSION 1

/* Options a summary needs from the engine: groups and what to keep. */
#define SCX_SUMMARY_BY \
	((1u << SCX_AGG_CPU) | (1u << SCX_AGG_LLC) | (1u << SCX_AGG_NODE) | (1u << SCX_AGG_COMM) | \
	 (1u << SCX_AGG_DSQ) | (1u << SCX_AGG_TGID) | (1u << SCX_AGG_CGROUP))
#define SCX_SUMMARY_NEED \
	(SCX_AGG_NEED_THREADS | SCX_AGG_NEED_PROCESSES | SCX_AGG_NEED_PLACE | \
	 SCX_AGG_NEED_PLACE_PAR | SCX_AGG_NEED_PLACE_QUEUES)

struct scx_buf;
/* The closed interval of a (inside emit or after flush) as one summary line, '\n' ended. */
void scx_agg_summary_json(struct scx_agg *a, struct scx_buf *b);

struct scx_sum;
struct scx_sum *scx_sum__new(void);
void scx_sum__free(struct scx_sum *s);
/*
 * Merge one summary record (a line of --summary output) into s.  0, or
 * -EINVAL with a message in err ("byte N: what").
 */
int scx_sum__add_json(struct scx_sum *s, const char *line, size_t len, char *err, size_t errsz);
/* Records merged so far. */
unsigned scx_sum__records(const struct scx_sum *s);

struct scx_diff_opts {
	double alpha;	   /* p below this is beyond noise; 0: 0.01 */
	double min_change; /* and the change at least this fraction; 0: 0.05 */
	unsigned limit;	   /* rows of the comparison table, 0 all */
};

struct scx_diff_verdict {
	unsigned regressions, improvements, changed, same, untested;
	char line[512]; /* the one-line verdict */
};

struct scx_table;
/*
 * Compare A and B.  *out: the tables "comparison" (regressions first),
 * "not_compared" (what cannot be compared, and why) and "verdict".
 */
void scx_agg_diff(const struct scx_sum *a, const struct scx_sum *b, const struct scx_diff_opts *o,
		  struct scx_table **out, struct scx_diff_verdict *v);

#endif
