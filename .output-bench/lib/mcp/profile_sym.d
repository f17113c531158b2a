.output-bench/lib/mcp/profile_sym.o: lib/mcp/profile_sym.c \
 lib/json/json.h lib/core/util.h lib/mcp/profile_int.h lib/core/hashmap.h \
 lib/mcp/profile.h lib/mcp/../../bpf/profile.h
lib/json/json.h:
lib/core/util.h:
lib/mcp/profile_int.h:
lib/core/hashmap.h:
lib/mcp/profile.h:
lib/mcp/../../bpf/profile.h:
