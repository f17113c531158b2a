.output-bench/lib/mcp/mcp_tools_trace.o: lib/mcp/mcp_tools_trace.c \
 lib/mcp/mcp_tools.h lib/mcp/mcp_int.h lib/json/json.h lib/core/util.h \
 lib/mcp/mcp.h lib/mcp/mcp_trace.h lib/core/event.h lib/core/hashmap.h
lib/mcp/mcp_tools.h:
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
lib/mcp/mcp_trace.h:
lib/core/event.h:
lib/core/hashmap.h:
