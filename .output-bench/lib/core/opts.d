.output-bench/lib/core/opts.o: lib/core/opts.c lib/core/opts.h \
 lib/core/util.h
lib/core/opts.h:
lib/core/util.h:
