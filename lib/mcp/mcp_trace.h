/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traces loaded by scx-mcp: events kept in time order as variable-length
 * records (a 16-byte head plus only the bytes their kind uses), so a 300k
 * event sched trace costs ~30 MB instead of 300k full struct scx_event.
 */
#ifndef SCX_MCP_TRACE_H
#define SCX_MCP_TRACE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/event.h"
#include "core/hashmap.h"
#include "mcp/mcp_int.h"
#include "stream/stream.h"

struct scx_agg;
struct scx_topo;

struct mcp_task {
	int32_t pid, tgid;
	char comm[SCX_COMM_LEN];
};

struct mcp_trace {
	char id[72];
	char path[PATH_MAX];
	char format[24]; /* "perfetto", "ndjson", "binary" */
	char producer[48];
	char hostname[256];
	char kernel[128];
	unsigned char *data; /* records */
	size_t len, cap;
	uint64_t nr;
	uint64_t counts[SCX_EV__COUNT];
	uint64_t first_ts, last_ts;
	int32_t max_cpu;
	unsigned nr_cpus;
	uint64_t lost; /* events the producer reported lost, and the kernel's skipped runs */
	uint64_t lost_records; /* of them, LOST records' (the arena holds those) */
	uint64_t skipped;      /* records the reader did not know */
	uint64_t out_of_order;
	/* how scx-agg sorts the events, from the stream's header
	 * (scx_order_plan()); the arena is put in that order at load, so the
	 * aggregation and every tool walking the arena see scx-agg's order */
	struct scx_order_plan order;
	uint64_t load_ns;
	uint64_t file_bytes;
	struct scx_topo *topo; /* from a stream header, else NULL */

	struct scx_map tasks; /* pid -> struct mcp_task */
	/* the stream's cgroup records (scx(7)): u64 id, then the path and a NUL, each */
	struct scx_buf cgroups;

	struct scx_agg *agg; /* built on first analysis, or at load from: */
	uint64_t ksnaps;     /* kernel snapshots (scx-events --aggregate) */
	uint64_t agg_ns;
};

/* Iterate: *off starts at 0; false at the end. */
bool mcp_trace_next(const struct mcp_trace *t, size_t *off, struct scx_event *e);
const struct mcp_task *mcp_trace_task(const struct mcp_trace *t, int32_t pid);
size_t mcp_trace_mem(const struct mcp_trace *t);
/* Load path (under the roots) as trace id; 0 or a tool failure in c. */
int mcp_trace_load(struct mcp_call *c, const char *path, const char *id);
int mcp_trace_unload(struct mcp_server *s, const char *id);
/* The aggregation of the whole trace (one interval); NULL with c failed. */
struct scx_agg *mcp_trace_agg(struct mcp_call *c, struct mcp_trace *t);

#endif
