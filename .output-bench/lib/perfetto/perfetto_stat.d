.output-bench/lib/perfetto/perfetto_stat.o: lib/perfetto/perfetto_stat.c \
 lib/perfetto/perfetto_read.h lib/core/event.h lib/stream/stream.h \
 lib/json/json.h lib/core/util.h lib/core/topo.h
lib/perfetto/perfetto_read.h:
lib/core/event.h:
lib/stream/stream.h:
lib/json/json.h:
lib/core/util.h:
lib/core/topo.h:
