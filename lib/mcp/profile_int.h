/* SPDX-License-Identifier: GPL-2.0 */
/* lib/profile*.c internals: the sampler's state, shared with the symbolizer. */
#ifndef SCX_PROFILE_INT_H
#define SCX_PROFILE_INT_H

#include <linux/types.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "mcp/profile.h"
#include "../../bpf/profile.h"

#define MAX_STACKS 20000 /* distinct stacks kept; more count as "other" */
#define MAX_CPUS 1024

struct stack {
	uint64_t hash, count;
	uint32_t pid, tgid;
	uint16_t nk, nu;
	char comm[16];
	uint64_t *ips; /* nk kernel frames then nu user frames */
};

struct mapping {
	uint64_t start, end, off;
	char *path;
};

struct proc {
	uint32_t tgid;
	struct mapping *maps;
	unsigned nr;
};

struct profile_bpf;
struct ring_buffer;
struct bpf_link;

struct scx_profile {
	struct scx_profile_opts o;
	char event[48];
	char note[SCX_PROFILE_NOTE];
	struct profile_bpf *skel;
	struct ring_buffer *rb;
	int fds[MAX_CPUS];
	struct bpf_link *links[MAX_CPUS];
	unsigned nr_fds;
	pthread_t thr;
	bool thr_started;
	volatile bool stop;

	pthread_mutex_t mu; /* everything below */
	bool running;
	uint64_t samples, other, start_ns, end_ns;
	struct stack *stacks;
	size_t nr_stacks, cap_stacks;
	struct scx_map index; /* stack hash -> index in stacks[] (uint32_t) */
	struct proc *procs;
	size_t nr_procs;
};

#endif
