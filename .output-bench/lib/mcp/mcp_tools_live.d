.output-bench/lib/mcp/mcp_tools_live.o: lib/mcp/mcp_tools_live.c \
 lib/core/event.h lib/mcp/mcp_live.h lib/mcp/mcp_int.h lib/json/json.h \
 lib/core/util.h lib/mcp/mcp.h lib/mcp/mcp_tools.h lib/mcp/profile.h \
 lib/agg/agg.h lib/core/hist.h lib/core/topo.h
lib/core/event.h:
lib/mcp/mcp_live.h:
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
lib/mcp/mcp_tools.h:
lib/mcp/profile.h:
lib/agg/agg.h:
lib/core/hist.h:
lib/core/topo.h:
