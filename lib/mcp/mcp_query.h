/* SPDX-License-Identifier: GPL-2.0 */
/* Argument and output helpers of scx-mcp's trace tools (mcp_tools_query.c, _timeline.c, _agg.c). */
#ifndef SCX_MCP_QUERY_H
#define SCX_MCP_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "core/event.h"
#include "mcp/mcp_int.h"

struct mcp_trace;

/* One event as its NDJSON object into c's payload (tmp is scratch). */
void mcp_raw_event(struct mcp_call *c, const struct scx_event *e, struct scx_buf *tmp);
/* The comm of a pid in the trace ("swapper" for 0), SCX_COMM_LEN bytes. */
void mcp_comm_of(const struct mcp_trace *t, int32_t pid, char *out);
/* start_time_ns/end_time_ns arguments (0 / UINT64_MAX when absent); -EINVAL failed. */
int mcp_arg_range(struct mcp_call *c, uint64_t *from, uint64_t *to);
/* The limit argument with a default and a maximum; -EINVAL failed. */
int mcp_arg_limit(struct mcp_call *c, int64_t def, int64_t max, int64_t *lim);

#endif
