.output-bench/lib/core/hashmap.o: lib/core/hashmap.c lib/core/hashmap.h \
 lib/core/util.h
lib/core/hashmap.h:
lib/core/util.h:
