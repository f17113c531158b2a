// SPDX-License-Identifier: GPL-2.0
/* scx-perfetto --stat: what a trace holds, without converting it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "perfetto/perfetto_read.h"
#include "core/util.h"

void scx_pf_stat_format(struct scx_buf *b, const struct scx_pf_trace *t)
{
	const struct scx_pf_stats *s = &t->stat;
	char a[32], c[32];
	uint64_t total = 0;

	scx_buf_printf(b, "producer: %s\n", scx_pf_producer_name(t->producer));
	scx_buf_printf(b,
		       "compression: file %s, compressed_packets %" PRIu64
		       ", zstd_compressed_packets %" PRIu64 "\n",
		       s->file_compression, s->compressed_packets, s->zstd_packets);
	scx_buf_printf(b, "bytes: %" PRIu64 " (%" PRIu64 " stored)\n", s->bytes, s->file_bytes);
	scx_buf_printf(b, "packets: %" PRIu64 "\n", s->packets);
	scx_buf_printf(b,
		       "  ftrace_bundles: %" PRIu64 " (%" PRIu64 " events, %" PRIu64
		       " compact switches, %" PRIu64 " compact wakings)\n",
		       s->bundles, s->ftrace_events, s->compact_switches, s->compact_wakings);
	scx_buf_printf(b, "  track_events: %" PRIu64 "\n", s->track_events);
	scx_buf_printf(b, "  track_descriptors: %" PRIu64 "\n", s->track_descriptors);
	scx_buf_printf(b, "  process_trees: %" PRIu64 "\n", s->process_trees);
	scx_buf_printf(b, "  system_info: %" PRIu64 "\n", s->system_infos);
	scx_buf_printf(b, "  clock_snapshots: %" PRIu64 "\n", s->clock_snapshots);
	scx_buf_printf(b, "  other: %" PRIu64 "\n", s->other_packets);
	scx_buf_printf(b, "sched_source: %s\n", s->sched_source);
	for (unsigned i = 1; i < SCX_EV__COUNT; i++)
		total += s->events[i];
	scx_buf_printf(b, "events: %" PRIu64 "\n", total);
	for (unsigned i = 1; i < SCX_EV__COUNT; i++)
		if (s->events[i])
			scx_buf_printf(b, "  %s: %" PRIu64 "\n", scx_ev_name(i), s->events[i]);
	scx_buf_printf(b, "skipped_events: %" PRIu64 "\n", s->skipped_events);
	scx_buf_printf(b, "lost: %" PRIu64 " bundles flagged\n", s->lost_bundles);
	if (s->dropped_bundles)
		scx_buf_printf(b, "dropped: %" PRIu64 " bundles of cpus past %d\n",
			       s->dropped_bundles, SCX_MAX_CPUS - 1);
	scx_buf_printf(b, "cpus: %u\n", t->hdr.nr_cpus);
	scx_buf_printf(b, "processes: %u\n", t->nr_processes);
	scx_buf_printf(b, "threads: %u\n", t->nr_threads);
	/* the trace's strings, on their way to a terminal */
	scx_buf_addstr(b, "kernel: ");
	if (t->hdr.kernel[0])
		scx_buf_add_printable(b, t->hdr.kernel, strlen(t->hdr.kernel));
	else
		scx_buf_addstr(b, "unknown");
	scx_buf_addstr(b, "\n");
	if (t->hdr.hostname[0]) {
		scx_buf_addstr(b, "hostname: ");
		scx_buf_add_printable(b, t->hdr.hostname, strlen(t->hdr.hostname));
		scx_buf_addstr(b, "\n");
	}
	scx_buf_printf(b, "clock: boottime%s\n",
		       t->ts_relative ? " (relative to capture start)" : "");
	scx_buf_printf(b, "time: %" PRIu64 " .. %" PRIu64 " (%s)\n", s->first_ts, s->last_ts,
		       scx_fmt_ns(s->last_ts - s->first_ts, a, sizeof(a)));
	(void)c;
}
