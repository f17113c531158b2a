.output-bench/lib/capture/capture.o: lib/capture/capture.c \
 lib/capture/../../bpf/events.h lib/capture/capture.h lib/core/event.h \
 lib/capture/scx_dump.h lib/core/libbpf_print.h lib/core/util.h \
 lib/core/reorder.h .output-bench/events.skel.h lib/json/json.h
lib/capture/../../bpf/events.h:
lib/capture/capture.h:
lib/core/event.h:
lib/capture/scx_dump.h:
lib/core/libbpf_print.h:
lib/core/util.h:
lib/core/reorder.h:
.output-bench/events.skel.h:
lib/json/json.h:
