.output-bench/lib/capture/scx_sysfs.o: lib/capture/scx_sysfs.c \
 lib/capture/scx_sysfs.h
lib/capture/scx_sysfs.h:
