.output-bench/lib/prof/prof_hints.o: lib/prof/prof_hints.c \
 lib/prof/prof.h lib/core/util.h
lib/prof/prof.h:
lib/core/util.h:
