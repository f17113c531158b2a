# scx-tools: one non-recursive Makefile.  Everything it builds goes under $(O).
#
#   make            build every tool
#   make check      install missing deps, build, run every test (prove)
#   make demo       install missing deps, build, run the main pipeline live
#   make bench      benchmarks (bench/), figures for bench/RESULTS.md
#   make install    prefix=/usr/local DESTDIR=
#   SANITIZE=1      ASan + UBSan build (into .output-san unless O= is given)
#
# The build is driven by the tree: every lib/*/*.c goes into libscx.a, every
# cmd/scx-*.c becomes a tool, every bpf/*.bpf.c becomes an object and a
# skeleton, every proto/*.proto is compiled by protoc-c, every t/unit/*.c
# and t/fuzz/*.c becomes a test program.  Adding a file needs no edit here.

ifeq ($(SANITIZE),1)
O ?= .output-san
else
O ?= .output
endif

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
PROTOC_C ?= protoc-c
PKG_CONFIG ?= pkg-config
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/s390x/s390/')

prefix ?= /usr/local
bindir ?= $(prefix)/bin
mandir ?= $(prefix)/share/man
datadir ?= $(prefix)/share

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

PKGS := libbpf libelf zlib libzstd libprotobuf-c
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lbpf -lelf -lz -lzstd -lprotobuf-c)

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wshadow -Wformat=2
ALL_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -DSCX_VERSION='"$(VERSION)"' \
	-I$(O) -I$(O)/proto -Ilib $(PKG_CFLAGS) -MMD -MP $(CFLAGS)
ALL_LDFLAGS := $(LDFLAGS)
LIBS := $(PKG_LIBS) -lm -lpthread
ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ALL_LDFLAGS += -fsanitize=address,undefined
endif

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDARY:
.DEFAULT_GOAL := all

# ---- sources ---------------------------------------------------------------
LIB_SRC := $(sort $(wildcard lib/*/*.c))
CMD_SRC := $(sort $(wildcard cmd/scx-*.c))
BPF_SRC := $(sort $(wildcard bpf/*.bpf.c))
PROTO_SRC := $(sort $(wildcard proto/*.proto))
UNIT_SRC := $(sort $(wildcard t/unit/*.c))
PRELOAD_SRC := $(sort $(wildcard t/preload/*.c))
FUZZ_SRC := $(sort $(wildcard t/fuzz/*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))

PROTO_C := $(patsubst proto/%.proto,$(O)/proto/%.pb-c.c,$(PROTO_SRC))
PROTO_H := $(PROTO_C:.c=.h)
SKELS := $(patsubst bpf/%.bpf.c,$(O)/%.skel.h,$(BPF_SRC))
LIB_OBJ := $(patsubst lib/%.c,$(O)/lib/%.o,$(LIB_SRC)) $(PROTO_C:.c=.o)
TOOLS := $(patsubst cmd/%.c,$(O)/%,$(CMD_SRC))
UNITS := $(patsubst t/unit/%.c,$(O)/t/unit/%,$(UNIT_SRC))
PRELOADS := $(patsubst t/preload/%.c,$(O)/t/preload/%.so,$(PRELOAD_SRC))
BENCHES := $(patsubst bench/%.c,$(O)/bench/%,$(BENCH_SRC))
LIBSCX := $(O)/libscx.a

all: $(TOOLS) $(UNITS) $(PRELOADS) $(BENCHES)

# Generated headers come first: any C file may include a skeleton or a .pb-c.h.
GENERATED := $(SKELS) $(PROTO_H)

$(O)/lib/%.o: lib/%.c | $(GENERATED)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -c $< -o $@

$(O)/cmd/%.o: cmd/%.c | $(GENERATED)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIBSCX): $(LIB_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/scx-%: $(O)/cmd/scx-%.o $(LIBSCX)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $< $(LIBSCX) $(LIBS) -o $@

# ---- protobuf-c --------------------------------------------------------------
$(O)/proto/%.pb-c.c $(O)/proto/%.pb-c.h: proto/%.proto
	$(call msg,PROTOC,$@)
	$(Q)mkdir -p $(O)/proto && $(PROTOC_C) --proto_path=proto --c_out=$(O)/proto $<

$(O)/proto/%.pb-c.o: $(O)/proto/%.pb-c.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(filter-out $(WARN),$(ALL_CFLAGS)) -c $< -o $@

# ---- BPF ---------------------------------------------------------------------
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
# vmlinux.h is generated from this machine's BTF; a copy for machines without
# BTF is kept in bpf/vmlinux.h.fallback when present.
$(O)/vmlinux.h:
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D); \
	if [ -r $(VMLINUX_BTF) ]; then $(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@; \
	else cp bpf/vmlinux.h.fallback $@; fi

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(O) -Ibpf -Ilib \
	$(shell $(PKG_CONFIG) --cflags libbpf 2>/dev/null) -Wall -Wno-unused-function

# The cgroup slots of --aggregate are shared by all CPUs: they need the
# atomics that return a value (fetch-and-add, compare-and-swap, Linux 5.12).
$(O)/aggregate.bpf.o: BPF_CFLAGS += -mcpu=v3

$(O)/%.bpf.o: bpf/%.bpf.c $(O)/vmlinux.h $(wildcard bpf/*.h)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp && $(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(O)/%.skel.h: $(O)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# ---- tests -----------------------------------------------------------------
$(O)/t/unit/%: t/unit/%.c $(LIBSCX) t/unit/tap.h
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -It/unit $(ALL_LDFLAGS) $< $(LIBSCX) $(LIBS) -o $@

# Shims the live tests put in front of a tool with LD_PRELOAD, to make a
# failure happen that the kernel will not make on demand.  Built without the
# sanitizers: those want their runtime first, and the tests skip the shims then.
$(O)/t/preload/%.so: t/preload/%.c bpf/events.h
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) && $(CC) -O2 -g -fPIC -shared -Ibpf $(CFLAGS) $< -o $@ -ldl $(LIBS)

# Benchmark programs (bench/*.c), run by the bench/*.sh scripts.
$(O)/bench/%: bench/%.c $(LIBSCX)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $< $(LIBSCX) $(LIBS) -o $@

# Fuzz targets: libFuzzer when clang can, else a plain driver that replays
# files (t/fuzz/driver.c) so the targets are still built and run on the corpus.
FUZZ_BINS := $(patsubst t/fuzz/%.c,$(O)/fuzz/%,$(filter-out t/fuzz/driver.c,$(FUZZ_SRC)))
$(O)/fuzz/%: t/fuzz/%.c t/fuzz/driver.c $(LIBSCX)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $< t/fuzz/driver.c $(LIBSCX) $(LIBS) -o $@
fuzz-build: $(FUZZ_BINS)

# libFuzzer builds (make fuzz FUZZ_SECONDS=60): clang -fsanitize=fuzzer.
FUZZ_SECONDS ?= 30
$(O)/libfuzzer/%: t/fuzz/%.c $(LIB_SRC) $(PROTO_C)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D) && $(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -DSCX_VERSION='"$(VERSION)"' -std=gnu11 \
		-I$(O) -I$(O)/proto -Ilib $(PKG_CFLAGS) $< $(LIB_SRC) $(PROTO_C) $(LIBS) -o $@
fuzz: $(patsubst t/fuzz/%.c,$(O)/libfuzzer/%,$(filter-out t/fuzz/driver.c,$(FUZZ_SRC)))
	$(Q)for f in $^; do n=$${f##*/}; mkdir -p $(O)/corpus/$$n; \
		echo "fuzz $$n for $(FUZZ_SECONDS)s"; \
		$$f -max_total_time=$(FUZZ_SECONDS) $(O)/corpus/$$n t/fuzz/corpus/$$n || exit 1; done

# ---- top-level targets ----------------------------------------------------
deps:
	$(Q)scripts/deps.sh

# prove runs shell tests (t/*.t) and the unit binaries; t/lib.sh finds the
# build through SCX_BUILD.
check: deps
	$(Q)$(MAKE) --no-print-directory all fuzz-build
	$(Q)SCX_BUILD=$(abspath $(O)) SCX_SRC=$(CURDIR) SCX_SANITIZE=$(SANITIZE) \
		ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		prove $(PROVE_FLAGS) $(UNITS) $(sort $(wildcard t/*.t))

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)SCX_BUILD=$(abspath $(O)) scripts/demo.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/deps.sh --bench
	$(Q)SCX_BUILD=$(abspath $(O)) bench/run.sh

# clang-format with .clang-format: list what it would change / apply it
format-check:
	$(Q)scripts/deps.sh --format
	$(Q)scripts/format-check.sh

format:
	$(Q)scripts/deps.sh --format
	$(Q)scripts/format-check.sh --fix

check-mcp: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)../shared/tools/mcp-check --install >/dev/null && \
		SCX_BUILD=$(abspath $(O)) t/mcp-check.sh

# sched_ext tests in a QEMU guest: scripts/scx-kernel.sh builds the kernel and
# the example schedulers once per machine (cached outside the checkout), then
# t/vm/run.sh boots it for each t/vm/alone/*.t, then once for t/vm/*.t (with
# SCX_VM_TESTS: once, for those).
check-scx: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)SCX_BUILD=$(abspath $(O)) t/vm/run.sh $(SCX_VM_TESTS)

MAN := $(wildcard man/*.[1-8])
install: all
	install -d $(DESTDIR)$(bindir)
	install -m 755 $(TOOLS) $(DESTDIR)$(bindir)
	for m in $(MAN); do s=$${m##*.}; install -d $(DESTDIR)$(mandir)/man$$s; \
		install -m 644 $$m $(DESTDIR)$(mandir)/man$$s; done
	install -d $(DESTDIR)$(datadir)/bash-completion/completions \
		$(DESTDIR)$(datadir)/zsh/vendor-completions $(DESTDIR)$(datadir)/fish/vendor_completions.d
	for f in completions/bash/*; do install -m 644 $$f $(DESTDIR)$(datadir)/bash-completion/completions; done
	for f in completions/zsh/*; do install -m 644 $$f $(DESTDIR)$(datadir)/zsh/vendor-completions; done
	for f in completions/fish/*; do install -m 644 $$f $(DESTDIR)$(datadir)/fish/vendor_completions.d; done
	install -d $(DESTDIR)$(datadir)/scx-tools/skills/scx-scheduler
	install -m 644 skills/scx-scheduler/SKILL.md $(DESTDIR)$(datadir)/scx-tools/skills/scx-scheduler

clean:
	rm -rf .output .output-san

.PHONY: all check demo bench deps install clean fuzz fuzz-build check-mcp check-scx format format-check

-include $(shell find $(O) -name '*.d' 2>/dev/null)
