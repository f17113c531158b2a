.output-bench/lib/prof/prof_hintrec.o: lib/prof/prof_hintrec.c \
 .output-bench/hints.skel.h lib/core/hashmap.h lib/core/libbpf_print.h \
 lib/core/util.h lib/prof/prof.h lib/prof/../../bpf/hints.h
.output-bench/hints.skel.h:
lib/core/hashmap.h:
lib/core/libbpf_print.h:
lib/core/util.h:
lib/prof/prof.h:
lib/prof/../../bpf/hints.h:
