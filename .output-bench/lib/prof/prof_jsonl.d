.output-bench/lib/prof/prof_jsonl.o: lib/prof/prof_jsonl.c \
 lib/prof/prof.h lib/core/util.h
lib/prof/prof.h:
lib/core/util.h:
