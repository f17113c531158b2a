.output-bench/lib/core/util.o: lib/core/util.c lib/core/util.h
lib/core/util.h:
