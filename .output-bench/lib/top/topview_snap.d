.output-bench/lib/top/topview_snap.o: lib/top/topview_snap.c \
 lib/json/json.h lib/core/util.h lib/top/topview.h lib/core/event.h
lib/json/json.h:
lib/core/util.h:
lib/top/topview.h:
lib/core/event.h:
