.output-bench/lib/top/term.o: lib/top/term.c lib/top/term.h \
 lib/core/util.h
lib/top/term.h:
lib/core/util.h:
