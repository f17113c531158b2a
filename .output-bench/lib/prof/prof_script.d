.output-bench/lib/prof/prof_script.o: lib/prof/prof_script.c \
 lib/prof/prof.h lib/core/util.h
lib/prof/prof.h:
lib/core/util.h:
