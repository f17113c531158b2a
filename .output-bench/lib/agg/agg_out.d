.output-bench/lib/agg/agg_out.o: lib/agg/agg_out.c lib/agg/agg_int.h \
 lib/agg/agg.h lib/core/event.h lib/core/hist.h lib/core/topo.h \
 lib/agg/agg_place_int.h lib/core/hashmap.h lib/json/json.h \
 lib/core/util.h lib/agg/table.h
lib/agg/agg_int.h:
lib/agg/agg.h:
lib/core/event.h:
lib/core/hist.h:
lib/core/topo.h:
lib/agg/agg_place_int.h:
lib/core/hashmap.h:
lib/json/json.h:
lib/core/util.h:
lib/agg/table.h:
