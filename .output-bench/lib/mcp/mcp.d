.output-bench/lib/mcp/mcp.o: lib/mcp/mcp.c lib/mcp/mcp_int.h \
 lib/json/json.h lib/core/util.h lib/mcp/mcp.h lib/mcp/mcp_live.h \
 lib/mcp/profile.h
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
lib/mcp/mcp_live.h:
lib/mcp/profile.h:
