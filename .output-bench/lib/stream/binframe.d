.output-bench/lib/stream/binframe.o: lib/stream/binframe.c \
 lib/stream/stream-int.h lib/json/json.h lib/core/util.h \
 lib/stream/stream.h lib/core/event.h lib/core/topo.h lib/stream/zio.h
lib/stream/stream-int.h:
lib/json/json.h:
lib/core/util.h:
lib/stream/stream.h:
lib/core/event.h:
lib/core/topo.h:
lib/stream/zio.h:
