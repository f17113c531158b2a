/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live scheduler events from BPF (bpf/events.bpf.c): load, attach, consume,
 * decode into struct scx_event, detach.  scx-events is a thin wrapper around
 * this (scx-mcp's live tools run scx-events as a child process).
 *
 *	c = scx_capture__open(&opts, on_event, ctx, err, sizeof(err));
 *	while (!stop) scx_capture__poll(c, 10);
 *	scx_capture__stop(c);		// detach, drain, final loss records
 *	scx_capture__free(c);
 *
 * Events reach the callback in time order across CPUs: records, staged per
 * CPU and shipped a few KiB at a time, wait in a reorder window (twice the
 * flush interval, 10 ms unstaged) until nothing older can still come.  An
 * event later than that is delivered as it comes and counted, with a warning
 * at the stop.
 */
#ifndef SCX_CAPTURE_H
#define SCX_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/event.h"

struct scx_buf;

/* Event selection bits; the same values as enum ev_sel in bpf/events.h. */
#define SCX_CAP_SWITCH (1u << 0)
#define SCX_CAP_WAKING (1u << 1)
#define SCX_CAP_WAKEUP (1u << 2)
#define SCX_CAP_WAKEUP_NEW (1u << 3)
#define SCX_CAP_MIGRATE (1u << 4)
#define SCX_CAP_FORK (1u << 5)
#define SCX_CAP_EXEC (1u << 6)
#define SCX_CAP_EXIT (1u << 7)
#define SCX_CAP_FREE (1u << 8)
#define SCX_CAP_SOFTIRQ (1u << 9)
#define SCX_CAP_IPI (1u << 10)
#define SCX_CAP_FREQ (1u << 11)
#define SCX_CAP_IDLE (1u << 12)
#define SCX_CAP_CPUHP (1u << 13)
#define SCX_CAP_SCX (1u << 14)
#define SCX_CAP_ALL ((1u << 15) - 1)

/* The -e words, for help texts and completions. */
#define SCX_CAP_EVENT_WORDS \
	"switch waking wakeup wakeup_new migrate fork exec exit free softirq ipi " \
	"frequency idle cpuhp scx sched process cpu all"

struct scx_capture_opts {
	uint32_t events;     /* SCX_CAP_* bits; 0 means all */
	int32_t pid, tgid;   /* 0: any */
	const char *comm;    /* exact comm, NULL: any */
	const uint8_t *cpus; /* bitmap of nr_cpu_bits, NULL: all */
	unsigned nr_cpu_bits;
	uint32_t sample;       /* keep 1 event in N; 0 or 1 keeps all */
	uint64_t ring_size;    /* bytes, power of two; 0: 64 MiB */
	uint64_t wakeup_bytes; /* backlog that wakes the consumer; 0: 256 KiB */
	uint64_t flush_ns;     /* max age of a staged record; 0: 50 ms */
	bool no_stage;	       /* one ring-buffer record per event (for comparison) */
	bool cgroups;	       /* read the cgroup v2 id of switched and woken tasks */
};

struct scx_capture;

/* Return 0 to go on, or a negative errno to stop: scx_capture__poll returns it. */
typedef int (*scx_capture_fn)(void *ctx, const struct scx_event *e);

/*
 * Probe the kernel, load and attach.  On failure returns NULL with errno set
 * and err holding a one-line explanation with what to do about it.  Notes
 * about skipped optional events go to stderr through scx_warn.
 */
struct scx_capture *scx_capture__open(const struct scx_capture_opts *o, scx_capture_fn fn,
				      void *ctx, char *err, size_t errsz);
/* Wait up to timeout_ms, then deliver what is there.  Events delivered, or -errno. */
int scx_capture__poll(struct scx_capture *c, int timeout_ms);
/* Detach every program, then deliver everything still buffered.  0 or -errno. */
int scx_capture__stop(struct scx_capture *c);
void scx_capture__free(struct scx_capture *c);

/* Events actually attached (selection minus what the kernel lacks). */
uint32_t scx_capture__events(const struct scx_capture *c);
/* Possible CPUs; lost[] has this many entries. */
unsigned scx_capture__nr_cpus(const struct scx_capture *c);
/* Events lost per CPU so far (ring buffer full), reported as SCX_EV_LOST too. */
const uint64_t *scx_capture__lost(const struct scx_capture *c);
uint64_t scx_capture__lost_total(const struct scx_capture *c);
/* of the lost total, records the programs wrote that never arrived */
uint64_t scx_capture__unarrived(const struct scx_capture *c);
/*
 * Program runs the kernel skipped so far (capture/bpf_missed.h): the events
 * and sched_ext state updates they would have made are missing.
 */
uint64_t scx_capture__missed(const struct scx_capture *c);
/* The capture options as a JSON object, for the stream header. */
void scx_capture__options_json(const struct scx_capture *c, struct scx_buf *b);

/* "switch,wakeup" -> bits; -EINVAL naming nothing known. */
int scx_capture_parse_events(const char *s, uint32_t *mask);
/* bits -> "switch,waking,..." */
void scx_capture_events_str(uint32_t mask, struct scx_buf *b);

/*
 * Decode the BPF record at buf[0..len) (struct ev_hdr + payload, see
 * bpf/events.h).  Returns the record's size (> 0) so the caller can step to
 * the next one, or -EINVAL when the record is malformed (short, misaligned,
 * larger than len).  Unknown record kinds decode to type SCX_EV_NONE.
 */
int scx_capture_decode(const void *buf, size_t len, struct scx_event *e);

/* Does this kernel's sched_switch tracepoint pass prev_state (6.12+)? */
struct btf;
bool scx_capture_switch_has_state_arg(const struct btf *btf);

/*
 * The kernel functions the sched_ext kprobes go on, for the kernel whose BTF
 * is BTF: each function of the program table that the kernel has (6.12's
 * scx_bpf_dispatch* or 6.13's scx_bpf_dsq_insert* and scx_bpf_dsq_move*,
 * ...), less an old move kfunc where the kernel also has the new one it
 * wraps (both would write every move twice).  At most MAX names into NAMES,
 * each once, in table order; returns how many.
 */
size_t scx_capture_scx_kprobes(const struct btf *btf, const char **names, size_t max);
/* Is a kprobe on KFUNC wanted: the kernel has it, and not UNLESS (the newer
 * function it wraps, NULL for none)?  Both collectors choose by this. */
bool scx_capture_kfunc_wanted(const struct btf *btf, const char *kfunc, const char *unless);
/* Does this kernel run sched_ext (its sysfs directory and its ops type)? */
bool scx_capture_have_sched_ext(const struct btf *btf);

/* The message for a BPF object that failed to load with errno E (positive):
 * how to get the rights, or where the verifier says why.  Into ERR. */
void scx_capture_load_error(int e, char *err, size_t errsz);

#endif
