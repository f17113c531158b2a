.output-bench/lib/mcp/mcp_trace.o: lib/mcp/mcp_trace.c \
 lib/mcp/mcp_trace.h lib/core/event.h lib/core/hashmap.h \
 lib/mcp/mcp_int.h lib/json/json.h lib/core/util.h lib/mcp/mcp.h \
 lib/perfetto/perfetto_read.h lib/stream/stream.h lib/core/topo.h \
 lib/stream/zio.h lib/agg/agg.h lib/core/hist.h
lib/mcp/mcp_trace.h:
lib/core/event.h:
lib/core/hashmap.h:
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
lib/perfetto/perfetto_read.h:
lib/stream/stream.h:
lib/core/topo.h:
lib/stream/zio.h:
lib/agg/agg.h:
lib/core/hist.h:
