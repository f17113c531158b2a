.output-bench/lib/json/json.o: lib/json/json.c lib/json/json-int.h \
 lib/json/json.h lib/core/util.h
lib/json/json-int.h:
lib/json/json.h:
lib/core/util.h:
