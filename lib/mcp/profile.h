/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU profiling with a BPF perf_event program: every sample records the
 * kernel and user stacks into a ring buffer; a thread folds identical stacks
 * together; results are symbolized on demand from /proc/kallsyms and the ELF
 * symbol tables of the sampled processes' mappings (libelf).  Machines
 * without a hardware PMU fall back to the cpu-clock software event.
 */
#ifndef SCX_PROFILE_H
#define SCX_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scx_jw;

struct scx_profile_opts {
	const char *event;    /* "hw:cycles", "hw:instructions", "sw:cpu-clock", ... */
	unsigned freq;	      /* samples per second per CPU */
	int cpu;	      /* -1: every CPU */
	int pid;	      /* -1: every process; else a tgid */
	uint64_t max_samples; /* stop after this many; 0 = no limit */
	unsigned duration_s;  /* stop after this long; 0 = until stopped */
};

struct scx_profile;

/* Start sampling.  NULL with err set (no root, no BPF, bad event...). */
struct scx_profile *scx_profile__start(const struct scx_profile_opts *o, char *err, size_t errsz);
bool scx_profile__running(struct scx_profile *p);
/* Detach and stop; samples stay for results.  0 or -errno. */
int scx_profile__stop(struct scx_profile *p);
void scx_profile__free(struct scx_profile *p);
/* What a profile does; its fields are the keys of the profiling tools'
   results (lib/mcp/mcp_tools_live.c). */
#define SCX_PROFILE_NOTE 160
struct scx_profile_status {
	bool running;
	const char *event; /* the event sampled (the profile's) */
	uint64_t freq_hz;
	int64_t cpu, pid; /* -1: all */
	uint64_t samples, dropped_samples, distinct_stacks, duration_ms;
	char note[SCX_PROFILE_NOTE]; /* a fallback or why it stopped, or "" */
};
void scx_profile__status(struct scx_profile *p, struct scx_profile_status *st);
/*
 * What the profile found; its fields are the keys of get_perf_results'
 * result (lib/mcp/mcp_tools_live.c).  symbols and stacks are written by
 * scx_profile__symbols() and scx_profile__stacks() from what they point to.
 */
struct scx_profile_rows;
struct scx_profile_results {
	const char *event;
	uint64_t samples;
	uint64_t samples_in_untracked_stacks; /* of stacks past the ones kept */
	uint64_t kernel_symbols;
	const struct scx_profile_rows *symbols;
	uint64_t distinct_symbols;
	const struct scx_profile_rows *stacks; /* NULL: not asked for */
	int64_t distinct_stacks;	       /* -1: stacks not asked for */
	/* the stacks that did not fit: how many do is known once they are
	   written, so scx_profile__stacks() sets it, for the writer to write
	   after them */
	uint64_t stacks_omitted;
};
/* The hottest leaf symbols, or stacks, as a JSON array within the budget
   scx_profile__results() was given (a struct scx_profile_rows). */
void scx_profile__symbols(struct scx_jw *w, const void *rows);
void scx_profile__stacks(struct scx_jw *w, const void *rows);
/*
 * Fill the results under the profile's lock, limit symbols and stacks each,
 * and write them to w with write() before the lock is let go: symbols and
 * stacks keep to about max_bytes of w's buffer at most.
 */
void scx_profile__results(struct scx_profile *p, unsigned limit, bool stacks, size_t max_bytes,
			  struct scx_jw *w,
			  void (*write)(struct scx_jw *w, const struct scx_profile_results *r));

#endif
