.output-bench/lib/mcp/mcp_tools_timeline.o: lib/mcp/mcp_tools_timeline.c \
 lib/mcp/mcp_query.h lib/core/event.h lib/mcp/mcp_int.h lib/json/json.h \
 lib/core/util.h lib/mcp/mcp.h lib/mcp/mcp_tools.h lib/mcp/mcp_trace.h \
 lib/core/hashmap.h lib/stream/stream.h lib/core/topo.h
lib/mcp/mcp_query.h:
lib/core/event.h:
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
lib/mcp/mcp_tools.h:
lib/mcp/mcp_trace.h:
lib/core/hashmap.h:
lib/stream/stream.h:
lib/core/topo.h:
