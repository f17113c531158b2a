/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading Perfetto traces into the suite's event model.
 *
 * One call reads a whole trace (a file, stdin or a memory buffer), then
 * delivers its scheduler events as struct scx_event in time order through a
 * callback.  It understands our own traces, traced's (compact_sched with
 * intern tables and delta timestamps), wprof's sched view (bundles out of time
 * order, session-relative timestamps, raw prev_state) and wprof's TrackEvent
 * mode (ONCPU slices, WAKER/WAKEE instants, idle threads as negative tids).
 * Compression: compressed_packets (zlib or gzip header), zstd_compressed_packets,
 * and whole-file gzip or zstd.
 *
 * Why read everything before the first event: Perfetto only promises order
 * after trace_processor sorts the whole trace, and wprof writes wakings into
 * the bundle of the waker's cpu, so no bounded window would do.  The input is
 * held uncompressed and events in a compact form (48 bytes), so peak memory
 * is about 1.5x the uncompressed trace (71 MB for wprof's 45.6 MB capture).
 *
 * Like trace_processor: the first compact switch of a cpu only says who runs,
 * a compact waking's waker is the task running on its cpu, ftrace data before
 * tracing_started or the first bundle's previous_bundle_end_timestamp is
 * dropped, and a thread's tgid is the one it had at the event's time.
 *
 * The API is stable: scx-mcp and scx-top load traces in-process with it.
 */
#ifndef SCX_PERFETTO_READ_H
#define SCX_PERFETTO_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/event.h"
#include "stream/stream.h"

/* Where the scheduler events come from when a trace has both kinds. */
enum scx_pf_source {
	SCX_PF_SRC_AUTO = 0, /* ftrace where it covers a cpu's span, TrackEvent elsewhere */
	SCX_PF_SRC_FTRACE,   /* FtraceEventBundles only */
	SCX_PF_SRC_TRACK,    /* wprof TrackEvents only */
};

/* Who wrote the trace, guessed from its packets. */
enum scx_pf_producer {
	SCX_PF_PROD_UNKNOWN = 0,
	SCX_PF_PROD_SCX,    /* scx-perfetto */
	SCX_PF_PROD_TRACED, /* Perfetto's traced (trace_config / service events) */
	SCX_PF_PROD_WPROF,  /* wprof (TrackEvent categories ONCPU/WAKER...) */
};

struct scx_pf_thread {
	int32_t tid;
	int32_t tgid; /* 0 when unknown */
	char comm[SCX_COMM_LEN];
};

struct scx_pf_process {
	int32_t pid;
	int32_t ppid;  /* 0 when unknown */
	char *cmdline; /* argv joined by spaces, or the process name; never NULL */
};

/* Counts for --stat; all of them describe the input, not what was delivered. */
struct scx_pf_stats {
	uint64_t bytes;		/* uncompressed trace bytes */
	uint64_t file_bytes;	/* bytes as stored (compressed) */
	uint64_t packets;	/* TracePackets, including those inside compressed ones */
	uint64_t bundles;	/* FtraceEventBundles */
	uint64_t ftrace_events; /* FtraceEvents (verbose) */
	uint64_t compact_switches, compact_wakings;
	uint64_t track_events, track_descriptors;
	uint64_t process_trees, system_infos, clock_snapshots;
	uint64_t compressed_packets;	/* deflate (field 50) */
	uint64_t zstd_packets;		/* zstd (field 133) */
	uint64_t other_packets;		/* kinds we skip */
	uint64_t lost_bundles;		/* bundles flagged lost_events */
	uint64_t dropped_bundles;	/* bundles of cpus >= SCX_MAX_CPUS, not read */
	uint64_t skipped_events;	/* events dropped: first compact switch per cpu,
					   waking with no known waker cpu, overlap of sources */
	uint64_t events[SCX_EV__COUNT]; /* delivered, by type */
	uint64_t first_ts, last_ts;	/* of delivered events */
	const char *file_compression;	/* "none", "gzip", "zstd" */
	const char *sched_source; /* "ftrace", "compact_sched", "track_event", "mixed", "none" */
};

struct scx_pf_trace {
	/*
	 * What a stream header carries: producer "perfetto:<who>", clock
	 * "boottime", hostname, kernel release, nr_cpus (SystemInfo.num_cpus or
	 * the highest cpu seen + 1), start_ns (first event).  topo is NULL:
	 * Perfetto traces carry no topology.
	 */
	struct scx_header hdr;
	enum scx_pf_producer producer;
	bool ts_relative;	   /* timestamps start near 0 (wprof) */
	uint64_t realtime_at_zero; /* REALTIME of boot time 0 per ClockSnapshot, 0 if none */

	struct scx_pf_thread *threads; /* sorted by tid */
	unsigned nr_threads;
	struct scx_pf_process *processes; /* sorted by pid */
	unsigned nr_processes;

	struct scx_pf_stats stat;
	/*
	 * Bytes the reader still holds while it delivers the events (set before
	 * on_trace): a caller that keeps copies of the events under a memory
	 * budget of its own counts these against it too.
	 */
	uint64_t held_bytes;

	/* After -EBADMSG: "name: byte 1234: what" (offset in the uncompressed stream). */
	char error[256];
	uint64_t error_offset;
};

/* Return non-zero to stop; scx_pf_read_*() then returns that value. */
typedef int (*scx_pf_event_fn)(void *ctx, const struct scx_event *e);
/* Called once, after parsing and before the first event; non-zero stops. */
typedef int (*scx_pf_trace_fn)(void *ctx, const struct scx_pf_trace *t);

struct scx_pf_opts {
	scx_pf_event_fn on_event; /* may be NULL (statistics only) */
	scx_pf_trace_fn on_trace; /* may be NULL */
	void *ctx;
	enum scx_pf_source source;
	/*
	 * Keep raw prev_state as found (wprof's sched view writes the raw
	 * __state); by default it is normalised to the tracepoint encoding of
	 * event.h (SCX_STATE_*).
	 */
	bool raw_state;
	/*
	 * Most bytes the reader may hold: the uncompressed trace (a plain file
	 * larger than this is refused before it is read), an inflated
	 * compressed packet, and the decoded events.  0: the default.
	 */
	uint64_t max_bytes;
};

#define SCX_PF_MAX_BYTES_DEFAULT (1ull << 30) /* 1 GiB */

/*
 * Read a trace from path ("-" or NULL: stdin) or from memory (buf must stay
 * valid during the call; it is not modified).  *out receives the trace
 * description (free with scx_pf_trace__free) whenever it is not NULL on return,
 * even on error, so callers can print t->error.
 *
 * Returns 0; -EBADMSG for corrupt or truncated input, after delivering every
 * event decoded before the bad byte (t->error says where); -EFBIG, delivering
 * nothing, when the trace needs more memory than o->max_bytes (t->error names
 * the input and the limit); -errno when the file cannot be read; or the
 * callback's non-zero value.
 */
int scx_pf_read_path(const char *path, const struct scx_pf_opts *o, struct scx_pf_trace **out);
int scx_pf_read_mem(const void *buf, size_t len, const char *name, const struct scx_pf_opts *o,
		    struct scx_pf_trace **out);
void scx_pf_trace__free(struct scx_pf_trace *t);

/* Lookups by id (binary search); NULL if unknown. */
const struct scx_pf_thread *scx_pf_trace__thread(const struct scx_pf_trace *t, int32_t tid);
const struct scx_pf_process *scx_pf_trace__process(const struct scx_pf_trace *t, int32_t pid);

const char *scx_pf_producer_name(enum scx_pf_producer p); /* "scx", "traced", "wprof" */

/* The --stat summary of a read trace, as "key: value" lines appended to b. */
struct scx_buf;
void scx_pf_stat_format(struct scx_buf *b, const struct scx_pf_trace *t);

#endif
