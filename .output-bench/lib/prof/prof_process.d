.output-bench/lib/prof/prof_process.o: lib/prof/prof_process.c \
 lib/prof/prof.h lib/core/util.h
lib/prof/prof.h:
lib/core/util.h:
