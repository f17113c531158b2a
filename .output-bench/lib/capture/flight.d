.output-bench/lib/capture/flight.o: lib/capture/flight.c \
 lib/capture/flight.h lib/core/event.h lib/core/util.h \
 lib/stream/stream.h lib/json/json.h lib/core/topo.h
lib/capture/flight.h:
lib/core/event.h:
lib/core/util.h:
lib/stream/stream.h:
lib/json/json.h:
lib/core/topo.h:
