.output-bench/lib/core/reorder.o: lib/core/reorder.c lib/core/reorder.h \
 lib/core/event.h lib/core/util.h
lib/core/reorder.h:
lib/core/event.h:
lib/core/util.h:
