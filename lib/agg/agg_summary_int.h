/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of summaries and their comparison (agg_summary.c, agg_diff.c); not an API. */
#ifndef SCX_AGG_SUMMARY_INT_H
#define SCX_AGG_SUMMARY_INT_H

#include "agg/agg_summary.h"
#include "core/event.h"
#include "core/hist.h"

/* Scalar figures of a group: all sums. */
enum {
	F_BUSY,
	F_SWITCHES,
	F_INVOL,
	F_WAKEUPS,
	F_MIGR,
	F_XLLC,
	F_XNODE,
	F_VIOL,
	F_RUNNABLE,
	F_ACTIVE,
	F__COUNT
};
enum { H_WAKE, H_RQ, H_SLICE, H_DSQ, H__COUNT };
/* Group kinds of a summary (the order of sum_kinds[]) */
enum { SK_TOTAL, SK_CPU, SK_LLC, SK_NODE, SK_COMM, SK_DSQ, SK_TGID, SK_CGROUP, SK__COUNT };

#define SUM_PATH_LEN 256 /* a cgroup group's path, cut */

struct sum_fig {
	const char *name; /* key in the record */
};
extern const struct sum_fig sum_figs[F__COUNT];
extern const char *const sum_hists[H__COUNT];
extern const char *const sum_kinds[SK__COUNT];

struct sum_grp {
	int kind;
	int64_t key;
	char comm[SCX_COMM_LEN]; /* comm groups: the key; tgid: its leader's, not the key */
	char path[SUM_PATH_LEN]; /* cgroup groups: the key */
	unsigned nr;		 /* CPUs (total, cpu, llc, node) or threads */
	unsigned records;	 /* records it appeared in */
	unsigned has;		 /* 1 << F_*: figures present */
	uint64_t fig[F__COUNT];
	struct scx_hist h[H__COUNT];
};

struct scx_sum {
	unsigned records;
	uint64_t dur, events, lost;
	uint64_t by_type[SCX_EV__COUNT];
	uint64_t topo_fp;
	unsigned cpus, llcs, nodes;
	bool topo_mixed; /* records of different topologies were merged */
	struct sum_grp total;
	struct sum_grp *groups;
	unsigned nr_groups, cap_groups;
};

#endif
