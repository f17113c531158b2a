.output-bench/lib/prof/prof_record.o: lib/prof/prof_record.c \
 lib/prof/prof.h lib/core/util.h
lib/prof/prof.h:
lib/core/util.h:
