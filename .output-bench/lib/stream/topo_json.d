.output-bench/lib/stream/topo_json.o: lib/stream/topo_json.c \
 lib/stream/stream-int.h lib/json/json.h lib/core/util.h \
 lib/stream/stream.h lib/core/event.h lib/core/topo.h lib/stream/zio.h
lib/stream/stream-int.h:
lib/json/json.h:
lib/core/util.h:
lib/stream/stream.h:
lib/core/event.h:
lib/core/topo.h:
lib/stream/zio.h:
