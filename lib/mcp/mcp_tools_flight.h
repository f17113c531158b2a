/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx-mcp's flight_trigger tool: ask a running `scx-events --flight` to write
 * its window now (SIGUSR1; the recorder names the reason "mcp" because the
 * sender is scx-mcp).  Its table entry is here so the tool table gains one line.
 */
#ifndef SCX_MCP_TOOLS_FLIGHT_H
#define SCX_MCP_TOOLS_FLIGHT_H

#include "mcp/mcp_int.h"

int mcp_t_flight(struct mcp_call *c);
extern const struct mcp_out mcp_out_flight[];

#define MCP_TOOL_FLIGHT \
	{ "flight_trigger", \
	  "Write a flight-recorder window", \
	  "Ask running scx-events --flight recorders (all of them, or the one with this pid) " \
	  "to write the events they hold to a new window file now, as they do when the " \
	  "sched_ext scheduler exits; load it with load_perfetto_trace.", \
	  "{\"type\":\"object\",\"properties\":{\"pid\":{\"type\":\"integer\",\"minimum\":1," \
	  "\"description\":\"the scx-events process; default: every flight recorder\"}}}", \
	  MCP_T_LIVE, \
	  mcp_t_flight, \
	  .out = mcp_out_flight }

#endif
