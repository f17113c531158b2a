.output-bench/t/unit/1004-flight: t/unit/1004-flight.c \
 lib/capture/flight.h lib/core/event.h lib/capture/runqlat.h \
 lib/core/hashmap.h lib/stream/stream.h lib/json/json.h lib/core/util.h \
 lib/core/topo.h t/unit/tap.h
lib/capture/flight.h:
lib/core/event.h:
lib/capture/runqlat.h:
lib/core/hashmap.h:
lib/stream/stream.h:
lib/json/json.h:
lib/core/util.h:
lib/core/topo.h:
t/unit/tap.h:
