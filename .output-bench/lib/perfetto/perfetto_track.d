.output-bench/lib/perfetto/perfetto_track.o: \
 lib/perfetto/perfetto_track.c lib/perfetto/perfetto_int.h \
 lib/perfetto/perfetto_read.h lib/core/event.h lib/stream/stream.h \
 lib/json/json.h lib/core/util.h lib/core/topo.h \
 lib/perfetto/perfetto_wire.h lib/core/hashmap.h
lib/perfetto/perfetto_int.h:
lib/perfetto/perfetto_read.h:
lib/core/event.h:
lib/stream/stream.h:
lib/json/json.h:
lib/core/util.h:
lib/core/topo.h:
lib/perfetto/perfetto_wire.h:
lib/core/hashmap.h:
