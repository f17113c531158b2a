.output-bench/proto/perfetto_trace.pb-c.o: \
 .output-bench/proto/perfetto_trace.pb-c.c \
 .output-bench/proto/perfetto_trace.pb-c.h
.output-bench/proto/perfetto_trace.pb-c.h:
