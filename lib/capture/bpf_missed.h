/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Program runs the kernel skipped, for both modes of scx-events (the
 * "missed" of scx(7)): a BPF program does not run when another one already
 * runs on its CPU (its recursion_misses, counted by the kernel, for kprobes
 * since 6.7), and a kprobe does not fire while another kprobe is handled on
 * its CPU or a return probe finds no free instance (the kprobe link's
 * "missed", Linux 6.7 on).  Both are totals since load, summed over CPUs.
 */
#ifndef SCX_CAPTURE_BPF_MISSED_H
#define SCX_CAPTURE_BPF_MISSED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_object;
struct bpf_link;
struct scx_buf;

/* The recursion misses of one loaded program; 0 when the kernel does not say. */
uint64_t scx_bpf_prog_missed(int prog_fd);
/* The misses of a kprobe or kretprobe link; 0 for other links and older kernels. */
uint64_t scx_bpf_link_missed(int link_fd);
/* Both, over obj's loaded programs and links[0..nr) (NULL entries skipped). */
uint64_t scx_bpf_missed(const struct bpf_object *obj, struct bpf_link *const *links, size_t nr);

/*
 * The event mode's report of them: a "missed" record when the total rose
 * since the last one (the runs skipped in [start_ns, end_ns)), and the
 * trailer's total.
 */
struct scx_missed_feed {
	uint64_t total;	   /* reported so far */
	uint64_t since_ns; /* the last check */
};

void scx_missed_feed__init(struct scx_missed_feed *f, uint64_t now_ns);
/*
 * Take a new total read at now_ns: true with the record in b (replacing its
 * content) when it rose, false otherwise.  A total that went down (a program
 * unloaded) is taken as the new base.
 */
bool scx_missed_feed__next(struct scx_missed_feed *f, uint64_t total, uint64_t now_ns,
			   struct scx_buf *b);

#endif
