.output-bench/lib/stream/lost.o: lib/stream/lost.c lib/stream/lost.h \
 lib/core/event.h lib/stream/stream.h lib/json/json.h lib/core/util.h \
 lib/core/topo.h
lib/stream/lost.h:
lib/core/event.h:
lib/stream/stream.h:
lib/json/json.h:
lib/core/util.h:
lib/core/topo.h:
