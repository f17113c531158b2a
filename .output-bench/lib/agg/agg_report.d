.output-bench/lib/agg/agg_report.o: lib/agg/agg_report.c \
 lib/agg/agg_int.h lib/agg/agg.h lib/core/event.h lib/core/hist.h \
 lib/core/topo.h lib/agg/agg_place_int.h lib/core/hashmap.h \
 lib/agg/table.h lib/core/util.h
lib/agg/agg_int.h:
lib/agg/agg.h:
lib/core/event.h:
lib/core/hist.h:
lib/core/topo.h:
lib/agg/agg_place_int.h:
lib/core/hashmap.h:
lib/agg/table.h:
lib/core/util.h:
