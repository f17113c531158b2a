.output-bench/lib/prof/prof_pretty.o: lib/prof/prof_pretty.c \
 lib/prof/prof.h lib/core/util.h
lib/prof/prof.h:
lib/core/util.h:
