.output-bench/lib/mcp/mcp_tools.o: lib/mcp/mcp_tools.c lib/mcp/mcp_int.h \
 lib/json/json.h lib/core/util.h lib/mcp/mcp.h lib/mcp/mcp_tools.h \
 lib/mcp/mcp_tools_flight.h
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
lib/mcp/mcp_tools.h:
lib/mcp/mcp_tools_flight.h:
