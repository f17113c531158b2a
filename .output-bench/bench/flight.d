.output-bench/bench/flight: bench/flight.c lib/capture/flight.h \
 lib/core/event.h lib/stream/stream.h lib/json/json.h lib/core/util.h \
 lib/core/topo.h
lib/capture/flight.h:
lib/core/event.h:
lib/stream/stream.h:
lib/json/json.h:
lib/core/util.h:
lib/core/topo.h:
