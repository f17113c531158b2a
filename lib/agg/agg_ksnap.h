/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel snapshots (scx-events --aggregate, stream/ksnap.h) into the
 * aggregation engine: each fills the CPU groups and the cgroup groups of an
 * interval, so every output of a snapshot (NDJSON, text, OpenMetrics,
 * Prometheus) and every view built on the CPU, LLC, node, cgroup and total
 * groups works on such a stream (cgroups are named by the stream's cgroup
 * records, scx_agg__cgroup_name()).  Nothing per task, per DSQ or per event
 * is in it: task groups stay empty and reports that need single events are
 * refused (SCX_AGG_KSNAP_NO_EVENTS).
 */
#ifndef SCX_AGG_KSNAP_H
#define SCX_AGG_KSNAP_H

#include <stdbool.h>

#include "agg/agg.h"
#include "stream/ksnap.h"

/*
 * Fold k into the engine.  own_interval: k is one interval of its own,
 * closed and emitted at once (a live collector must not wait for the next
 * snapshot); else k's figures fall into the engine's interval that holds
 * k's start (--interval, --once).  0, or emit()'s non-zero return.
 * Dropped tasks, events on unknown cpus and missed program runs are
 * counted as lost.
 */
int scx_agg__add_ksnap(struct scx_agg *a, const struct scx_ksnap *k, bool own_interval);

/* Does report name read only what kernel snapshots fill (cgroup-latency, dsq)? */
bool scx_agg_ksnap_report_ok(const char *name);

/* The message for a report, view or tool that needs single events. */
#define SCX_AGG_KSNAP_NO_EVENTS \
	"this stream has only kernel aggregates (scx-events --aggregate), no single events"

#endif
