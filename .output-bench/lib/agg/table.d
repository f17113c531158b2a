.output-bench/lib/agg/table.o: lib/agg/table.c lib/json/json.h \
 lib/core/util.h lib/agg/table.h lib/core/hist.h
lib/json/json.h:
lib/core/util.h:
lib/agg/table.h:
lib/core/hist.h:
