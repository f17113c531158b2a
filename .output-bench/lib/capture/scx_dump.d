.output-bench/lib/capture/scx_dump.o: lib/capture/scx_dump.c \
 lib/capture/scx_dump.h lib/core/event.h
lib/capture/scx_dump.h:
lib/core/event.h:
