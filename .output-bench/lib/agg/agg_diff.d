.output-bench/lib/agg/agg_diff.o: lib/agg/agg_diff.c \
 lib/agg/agg_summary_int.h lib/agg/agg_summary.h lib/agg/agg.h \
 lib/core/event.h lib/core/hist.h lib/core/topo.h lib/agg/table.h \
 lib/core/util.h
lib/agg/agg_summary_int.h:
lib/agg/agg_summary.h:
lib/agg/agg.h:
lib/core/event.h:
lib/core/hist.h:
lib/core/topo.h:
lib/agg/table.h:
lib/core/util.h:
