.output-bench/lib/core/hist.o: lib/core/hist.c lib/core/hist.h \
 lib/core/util.h
lib/core/hist.h:
lib/core/util.h:
