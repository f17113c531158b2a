.output-bench/lib/top/topview.o: lib/top/topview.c lib/top/topview.h \
 lib/core/event.h lib/core/util.h
lib/top/topview.h:
lib/core/event.h:
lib/core/util.h:
