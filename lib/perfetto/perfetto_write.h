/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing scx events as a Perfetto trace, one TracePacket at a time.
 *
 * Memory is bounded by the cpu count and the number of distinct threads (a
 * set, to name each once), never by the length of the capture.  Each cpu's
 * events are batched into FtraceEventBundles (sched_switch and sched_waking
 * as compact_sched unless told otherwise) and written whole, so the file is a
 * valid trace up to the last complete packet if the writer is killed.
 *
 * Round trip (events -> trace -> events with perfetto_read.h) gives back the
 * same events, except: tgids come from the trace's thread table (the tgid a
 * tid had at the event's time), ipi_entry/ipi_exit lose their callsite, and
 * events of cpu -1 are put on cpu 0.  What Perfetto has no field for (the
 * sched_ext data of a switch, exec's new comm, lost-event counts, DSQ
 * inserts, cpu hotplug, scheduler enable/disable) travels in fields numbered
 * 50001 and up, which Perfetto skips.
 */
#ifndef SCX_PERFETTO_WRITE_H
#define SCX_PERFETTO_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/event.h"
#include "stream/stream.h"

struct scx_pf_write_opts {
	bool no_compact;	/* plain sched_switch / sched_waking events */
	bool deflate;		/* compressed_packets (zlib), each under 512 KiB */
	int level;		/* zlib level, 0 = 6 like traced */
	unsigned bundle_events; /* events per bundle, 0 = 1024 */
	bool readable;		/* waiting slices, wakeup flows, depth counters */
};

struct scx_pf_writer;

/* path NULL or "-": stdout.  NULL + errno. */
struct scx_pf_writer *scx_pf_writer__open(const char *path, const struct scx_pf_write_opts *o);
/* The writer appends to fd, which stays open after close. */
struct scx_pf_writer *scx_pf_writer__fdopen(int fd, const struct scx_pf_write_opts *o);

/*
 * system_info (sysname "Linux", the header's kernel release or uname's), a
 * clock snapshot (BOOTTIME primary) and the header's start time.  Optional;
 * written with this machine's uname before the first event otherwise.
 */
int scx_pf_writer__header(struct scx_pf_writer *w, const struct scx_header *h);
/*
 * 0 or -errno; -EPIPE when the reader went away, -ERANGE for a cpu outside
 * -1 .. SCX_MAX_CPUS-1.  A cpu of -1 (unknown) goes into cpu 0's bundles.
 */
int scx_pf_writer__event(struct scx_pf_writer *w, const struct scx_event *e);
/*
 * No more events: what readable tracks still hold back (waits behind the
 * reorder window) is written.  close() does it too; call it first to read
 * the readable counts below.
 */
int scx_pf_writer__end(struct scx_pf_writer *w);
/* Write out every pending bundle (bundles then restart). */
int scx_pf_writer__flush(struct scx_pf_writer *w);
/* Flush and free; closes the fd if the writer opened it.  0 or the first error. */
int scx_pf_writer__close(struct scx_pf_writer *w);

/* With readable: DSQ depth tracks past this many are not written (counted). */
#define SCX_PF_READABLE_MAX_DSQS 1024
/* With readable: events out of time order are sorted within this window (as scx-agg). */
#define SCX_PF_READABLE_REORDER_NS 100000000ull
/* With readable: DSQ depth samples left out past the DSQ track limit. */
uint64_t scx_pf_writer__readable_dropped(const struct scx_pf_writer *w);
/* With readable: events older than the reorder window allowed. */
uint64_t scx_pf_writer__readable_late(const struct scx_pf_writer *w);

/* Bytes written so far (after compression). */
uint64_t scx_pf_writer__bytes(const struct scx_pf_writer *w);

#endif
