.output-bench/lib/prof/prof_tar.o: lib/prof/prof_tar.c lib/prof/prof.h \
 lib/core/util.h
lib/prof/prof.h:
lib/core/util.h:
