.output-bench/t/unit/1003-scx-dump: t/unit/1003-scx-dump.c \
 lib/capture/scx_dump.h lib/core/event.h t/unit/tap.h
lib/capture/scx_dump.h:
lib/core/event.h:
t/unit/tap.h:
