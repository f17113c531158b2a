.output-bench/lib/json/json_ref.o: lib/json/json_ref.c \
 lib/json/json-int.h lib/json/json.h lib/core/util.h
lib/json/json-int.h:
lib/json/json.h:
lib/core/util.h:
