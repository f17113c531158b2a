.output-bench/lib/mcp/mcp_tools_query.o: lib/mcp/mcp_tools_query.c \
 lib/core/hashmap.h lib/mcp/mcp_query.h lib/core/event.h \
 lib/mcp/mcp_int.h lib/json/json.h lib/core/util.h lib/mcp/mcp.h \
 lib/mcp/mcp_tools.h lib/mcp/mcp_trace.h lib/stream/stream.h \
 lib/core/topo.h
lib/core/hashmap.h:
lib/mcp/mcp_query.h:
lib/core/event.h:
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
lib/mcp/mcp_tools.h:
lib/mcp/mcp_trace.h:
lib/stream/stream.h:
lib/core/topo.h:
