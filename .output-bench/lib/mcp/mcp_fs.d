.output-bench/lib/mcp/mcp_fs.o: lib/mcp/mcp_fs.c lib/mcp/mcp_int.h \
 lib/json/json.h lib/core/util.h lib/mcp/mcp.h
lib/mcp/mcp_int.h:
lib/json/json.h:
lib/core/util.h:
lib/mcp/mcp.h:
