.output-bench/lib/mcp/mcp_res.o: lib/mcp/mcp_res.c lib/mcp/mcp_int.h \
 lib/json/json.h lib/core/util.h lib/mcp/mcp.h lib/mcp/mcp_trace.h \
 lib/core/event.h lib/core/hashmap.h
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
lib/mcp/mcp_trace.h:
lib/core/event.h:
lib/core/hashmap.h:
