.output-bench/lib/agg/agg_summary.o: lib/agg/agg_summary.c \
 lib/agg/agg_int.h lib/agg/agg.h lib/core/event.h lib/core/hist.h \
 lib/core/topo.h lib/agg/agg_place_int.h lib/core/hashmap.h \
 lib/agg/agg_summary.h lib/agg/agg_summary_int.h lib/json/json.h \
 lib/core/util.h
lib/agg/agg_int.h:
lib/agg/agg.h:
lib/core/event.h:
lib/core/hist.h:
lib/core/topo.h:
lib/agg/agg_place_int.h:
lib/core/hashmap.h:
lib/agg/agg_summary.h:
lib/agg/agg_summary_int.h:
lib/json/json.h:
lib/core/util.h:
