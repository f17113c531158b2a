.output-bench/lib/top/topconf.o: lib/top/topconf.c lib/top/topconf.h \
 lib/top/term.h lib/top/topview.h lib/core/event.h lib/core/util.h
lib/top/topconf.h:
lib/top/term.h:
lib/top/topview.h:
lib/core/event.h:
lib/core/util.h:
