.output-bench/lib/prof/prof_extract.o: lib/prof/prof_extract.c \
 lib/core/hashmap.h lib/prof/prof.h lib/core/util.h
lib/core/hashmap.h:
lib/prof/prof.h:
lib/core/util.h:
