.output-bench/lib/prof/prof_mitosis.o: lib/prof/prof_mitosis.c \
 lib/prof/prof.h lib/core/util.h
lib/prof/prof.h:
lib/core/util.h:
