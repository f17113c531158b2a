.output-bench/lib/mcp/mcp_tools_agg.o: lib/mcp/mcp_tools_agg.c \
 lib/mcp/mcp_query.h lib/core/event.h lib/mcp/mcp_int.h lib/json/json.h \
 lib/core/util.h lib/mcp/mcp.h lib/mcp/mcp_tools.h lib/mcp/mcp_trace.h \
 lib/core/hashmap.h lib/agg/agg.h lib/core/hist.h lib/core/topo.h \
 lib/agg/agg_summary.h lib/agg/table.h
lib/mcp/mcp_query.h:
lib/core/event.h:
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
lib/mcp/mcp_tools.h:
lib/mcp/mcp_trace.h:
lib/core/hashmap.h:
lib/agg/agg.h:
lib/core/hist.h:
lib/core/topo.h:
lib/agg/agg_summary.h:
lib/agg/table.h:
