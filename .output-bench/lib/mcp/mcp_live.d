.output-bench/lib/mcp/mcp_live.o: lib/mcp/mcp_live.c lib/mcp/mcp_live.h \
 lib/mcp/mcp_int.h lib/json/json.h lib/core/util.h lib/mcp/mcp.h \
 lib/stream/stream.h lib/core/event.h lib/core/topo.h lib/agg/agg.h \
 lib/core/hist.h lib/agg/table.h
lib/mcp/mcp_live.h:
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
lib/stream/stream.h:
lib/core/event.h:
lib/core/topo.h:
lib/agg/agg.h:
lib/core/hist.h:
lib/agg/table.h:
