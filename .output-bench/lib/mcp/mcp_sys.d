.output-bench/lib/mcp/mcp_sys.o: lib/mcp/mcp_sys.c lib/mcp/mcp_int.h \
 lib/json/json.h lib/core/util.h lib/mcp/mcp.h lib/core/topo.h \
 lib/core/event.h
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
lib/core/topo.h:
lib/core/event.h:
