.output-bench/lib/mcp/profile.o: lib/mcp/profile.c lib/json/json.h \
 lib/core/util.h lib/core/libbpf_print.h lib/mcp/profile.h \
 .output-bench/profile.skel.h lib/mcp/profile_int.h lib/core/hashmap.h \
 lib/mcp/../../bpf/profile.h
lib/json/json.h:
lib/core/util.h:
lib/core/libbpf_print.h:
lib/mcp/profile.h:
.output-bench/profile.skel.h:
lib/mcp/profile_int.h:
lib/core/hashmap.h:
lib/mcp/../../bpf/profile.h:
