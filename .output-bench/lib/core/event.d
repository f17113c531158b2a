.output-bench/lib/core/event.o: lib/core/event.c lib/core/event.h
lib/core/event.h:
