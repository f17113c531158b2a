.output-bench/lib/core/topo.o: lib/core/topo.c lib/core/topo.h \
 lib/core/event.h lib/core/util.h
lib/core/topo.h:
lib/core/event.h:
lib/core/util.h:
