.output-bench/lib/top/topview_agg.o: lib/top/topview_agg.c lib/agg/agg.h \
 lib/core/event.h lib/core/hist.h lib/core/topo.h lib/top/topview.h \
 lib/core/util.h
lib/agg/agg.h:
lib/core/event.h:
lib/core/hist.h:
lib/core/topo.h:
lib/top/topview.h:
lib/core/util.h:
