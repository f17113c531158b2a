.output-bench/lib/capture/runqlat.o: lib/capture/runqlat.c \
 lib/capture/runqlat.h lib/core/event.h lib/core/hashmap.h
lib/capture/runqlat.h:
lib/core/event.h:
lib/core/hashmap.h:
