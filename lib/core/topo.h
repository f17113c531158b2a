/* SPDX-License-Identifier: GPL-2.0 */
/* CPU topology: cpu -> core, LLC, NUMA node, from sysfs, a stream header or a file. */
#ifndef SCX_TOPO_H
#define SCX_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "core/event.h"

struct scx_cpu_topo {
	int32_t cpu;  /* logical cpu id (ids need not be contiguous) */
	int32_t core; /* core id, unique across the machine */
	int32_t llc;  /* LLC id, unique across the machine (0..nr_llcs-1) */
	int32_t node; /* NUMA node id */
	bool online;
};

struct scx_topo {
	unsigned nr_cpus; /* entries in cpus[], sorted by cpu */
	int32_t max_cpu;  /* largest cpu id */
	struct scx_cpu_topo *cpus;
	unsigned nr_llcs, nr_nodes, nr_cores;
	int32_t *cpu_index; /* cpu id -> index in cpus[], -1 if absent; max_cpu+1 entries */
};

/* From sysfs under root ("/sys" normally; tests pass a fake tree).  NULL + errno. */
struct scx_topo *scx_topo__from_sysfs(const char *root);
/* nr_cpus cpus, cpus_per_llc to an LLC, llcs_per_node to a node, 1 cpu per core. */
struct scx_topo *scx_topo__synthetic(unsigned nr_cpus, unsigned cpus_per_llc,
				     unsigned llcs_per_node);
/*
 * An entry as the model accepts it: cpu in [0, SCX_MAX_CPUS), core, llc and
 * node in [-1, SCX_MAX_CPUS) (-1: unknown).  Callers index per-LLC and
 * per-node tables by these ids, so anything else is refused on the way in.
 */
bool scx_topo_cpu_valid(const struct scx_cpu_topo *c);
/* Build from entries (copied, each scx_topo_cpu_valid, cpu ids distinct);
 * recomputes counts and the index.  NULL + errno (EINVAL). */
struct scx_topo *scx_topo__from_cpus(const struct scx_cpu_topo *cpus, unsigned n);
struct scx_topo *scx_topo__dup(const struct scx_topo *t);
void scx_topo__free(struct scx_topo *t);
/* Entry for a cpu id, NULL if unknown. */
const struct scx_cpu_topo *scx_topo__cpu(const struct scx_topo *t, int cpu);

#endif
