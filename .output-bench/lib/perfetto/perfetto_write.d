.output-bench/lib/perfetto/perfetto_write.o: \
 lib/perfetto/perfetto_write.c .output-bench/proto/perfetto_trace.pb-c.h \
 lib/perfetto/perfetto_wire.h lib/perfetto/perfetto_write.h \
 lib/core/event.h lib/stream/stream.h lib/json/json.h lib/core/util.h \
 lib/core/topo.h lib/core/hashmap.h
.output-bench/proto/perfetto_trace.pb-c.h:
lib/perfetto/perfetto_wire.h:
lib/perfetto/perfetto_write.h:
lib/core/event.h:
lib/stream/stream.h:
lib/json/json.h:
lib/core/util.h:
lib/core/topo.h:
lib/core/hashmap.h:
