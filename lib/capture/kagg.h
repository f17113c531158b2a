/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel aggregation (scx-events --aggregate): loads bpf/aggregate.bpf.c,
 * and at every interval reads what its programs counted into one kernel
 * snapshot (stream/ksnap.h).
 *
 *	struct scx_kagg *k = scx_kagg__open(topo, err, sizeof(err));
 *	every interval: scx_kagg__read(k, &snap);	// [previous read, now)
 *	scx_kagg__free(k);
 *
 * The cost per interval is proportional to the CPUs and to the histogram
 * buckets that were used, never to the events.
 */
#ifndef SCX_KAGG_H
#define SCX_KAGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/topo.h"
#include "stream/ksnap.h"

struct scx_kagg;

/*
 * topo (may be NULL: no cross-LLC/node figures) gives each CPU's LLC and
 * node; cgroups: keep per-cgroup figures (the tasks' cgroup v2 ids).
 */
struct scx_kagg *scx_kagg__open(const struct scx_topo *topo, bool cgroups, char *err, size_t errsz);
void scx_kagg__free(struct scx_kagg *k);
/* Possible CPUs aggregated (the snapshot has one entry each). */
unsigned scx_kagg__nr_cpus(const struct scx_kagg *k);
/* Close the interval begun at the last read (or at open) and fill s.  0 or -errno. */
int scx_kagg__read(struct scx_kagg *k, struct scx_ksnap *s);

/*
 * The read itself over an already-mapped slot array (for the benchmark
 * and tests, which have no kernel): fold the nr_cpus slots at 'slots' into
 * s and zero them.
 */
struct kagg_slot;
void scx_kagg_fold_slots(struct kagg_slot *slots, unsigned nr_cpus, struct scx_ksnap *s);

/*
 * The cgroup half of the read, also without a kernel: the nr slots at
 * 'slots' (ids[i] the id of slot i, slot 0 "other") and the nb bucket
 * entries keys/vals of their histograms become s's cgroups, in ascending
 * id order; the slots are zeroed.  Buckets of slots past nr, or of
 * histograms whose slot is empty, are ignored.
 */
struct kagg_cgslot;
struct kagg_cgbkey;
void scx_kagg_fold_cgroups(struct kagg_cgslot *slots, const uint64_t *ids, unsigned nr,
			   const struct kagg_cgbkey *keys, const uint64_t *vals, size_t nb,
			   struct scx_ksnap *s);

/*
 * The DSQ half of the read, also without a kernel: the nr histograms at
 * 'hists' (ids[i] the DSQ id of slot i, slot 0 "other") and the nb bucket
 * entries keys/vals (hist 0) become s's dsqs, ids ascending and "other"
 * last; the histograms are zeroed.  Buckets of slots past nr, or of empty
 * histograms, are ignored.
 */
struct kagg_cghist;
void scx_kagg_fold_dsqs(struct kagg_cghist *hists, const uint64_t *ids, unsigned nr,
			const struct kagg_cgbkey *keys, const uint64_t *vals, size_t nb,
			struct scx_ksnap *s);

/*
 * Before that fold, the programs' per-CPU caches of the cgroup figures
 * (bpf/aggregate.h), nr_cpus of them at 'caches', all of one generation:
 * their counters and histogram figures are added to that generation's
 * slots (KAGG_MAX_CGROUPS of them at 'slots') and their buckets appended to
 * keys/vals, which hold nb entries and room for cap; the caches are
 * zeroed.  Returns the new number of bucket entries; one bucket may now
 * have several entries, which the fold adds up.  cap >= nb + nr_cpus *
 * kagg_cgc_buckets(nr_cpus) loses nothing.
 */
struct kagg_cgcache;
size_t scx_kagg_drain_cgcache(struct kagg_cgcache *caches, unsigned nr_cpus,
			      struct kagg_cgslot *slots, struct kagg_cgbkey *keys, uint64_t *vals,
			      size_t nb, size_t cap);

#endif
