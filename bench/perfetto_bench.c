// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmarks for bench/perfetto.sh, in-process so pipes and NDJSON parsing do
 * not hide the cost being measured:
 *   perfetto_bench write EVENTS [opts]  events/s of scx_pf_writer (to /dev/null);
 *                                       opts: --no-compact --deflate --readable
 *   perfetto_bench read TRACE           scx_pf_read_mem over a trace in memory
 *   perfetto_bench unpack TRACE         the same trace through protobuf-c's
 *                                       TracePacket unpack (the alternative)
 *   perfetto_bench sizes TRACE          bytes of ftrace bundles vs the rest
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perfetto/perfetto_read.h"
#include "perfetto_trace.pb-c.h"
#include "perfetto/perfetto_wire.h"
#include "perfetto/perfetto_write.h"
#include "stream/stream.h"
#include "core/util.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *slurp(const char *path, size_t *len)
{
	struct scx_buf b = { 0 };
	char tmp[1 << 16];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		scx_die(1, "cannot open '%s'", path);
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		scx_buf_add(&b, tmp, n);
	close(fd);
	*len = b.len;
	return b.data;
}

static int bench_write(int argc, char **argv)
{
	struct scx_reader *r = scx_reader__open(argv[2]);
	struct scx_event *ev = NULL, e;
	size_t n = 0, cap = 0;
	struct scx_pf_write_opts o = { 0 };
	int reps = 5;
	double best = 1e9;
	uint64_t bytes = 0;

	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--no-compact"))
			o.no_compact = true;
		else if (!strcmp(argv[i], "--deflate"))
			o.deflate = true;
		else if (!strcmp(argv[i], "--readable"))
			o.readable = true;
	}
	if (!r)
		scx_die(1, "cannot open '%s'", argv[2]);
	while (scx_reader__next(r, &e) == SCX_READ_EVENT) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			ev = scx_xrealloc(ev, cap * sizeof(*ev));
		}
		ev[n++] = e;
	}
	scx_reader__free(r);
	for (int k = 0; k < reps; k++) {
		int fd = open("/dev/null", O_WRONLY);
		struct scx_pf_writer *w = scx_pf_writer__fdopen(fd, &o);
		double t0 = cpu_now();
		for (size_t i = 0; i < n; i++)
			scx_pf_writer__event(w, &ev[i]);
		scx_pf_writer__end(w); /* --readable: the waits still in its reorder window */
		scx_pf_writer__flush(w);
		bytes = scx_pf_writer__bytes(w);
		scx_pf_writer__close(w);
		double dt = cpu_now() - t0;
		close(fd);
		if (dt < best)
			best = dt;
	}
	printf("events %zu\nbytes %llu\nbytes_per_event %.2f\nseconds %.4f\nevents_per_s %.0f\n", n,
	       (unsigned long long)bytes, (double)bytes / n, best, n / best);
	free(ev);
	return 0;
}

static int count(void *ctx, const struct scx_event *e)
{
	(*(uint64_t *)ctx)++;
	return 0;
}

static int bench_read(const char *path)
{
	size_t len;
	char *buf = slurp(path, &len);
	uint64_t n = 0;
	struct scx_pf_opts o = { .on_event = count, .ctx = &n };
	struct scx_pf_trace *t;
	double t0 = now(), c0 = cpu_now();
	int rc = scx_pf_read_mem(buf, len, path, &o, &t);

	printf("rc %d\nevents %llu\nseconds %.4f\ncpu_seconds %.4f\n", rc, (unsigned long long)n,
	       now() - t0, cpu_now() - c0);
	scx_pf_trace__free(t);
	free(buf);
	return 0;
}

static int bench_unpack(const char *path)
{
	size_t len;
	char *buf = slurp(path, &len);
	struct pb b = { (uint8_t *)buf, (uint8_t *)buf + len };
	struct pb_field f;
	uint64_t packets = 0, events = 0;
	double t0 = cpu_now();

	while (pb_next(&b, &f) > 0) {
		Perfetto__Protos__TracePacket *tp =
			perfetto__protos__trace_packet__unpack(NULL, f.s.end - f.s.p, f.s.p);
		if (!tp)
			scx_die(1, "unpack failed at packet %llu", (unsigned long long)packets);
		if (tp->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS)
			events += tp->ftrace_events->n_event;
		else if (tp->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT)
			events++;
		perfetto__protos__trace_packet__free_unpacked(tp, NULL);
		packets++;
	}
	printf("packets %llu\nevents %llu\ncpu_seconds %.4f\n", (unsigned long long)packets,
	       (unsigned long long)events, cpu_now() - t0);
	free(buf);
	return 0;
}

static int bench_sizes(const char *path)
{
	size_t len;
	char *buf = slurp(path, &len);
	struct pb b = { (uint8_t *)buf, (uint8_t *)buf + len };
	struct pb_field f, g;
	uint64_t bundle = 0, other = 0;

	while (pb_next(&b, &f) > 0) {
		struct pb p = f.s;
		bool is_bundle = false;
		while (pb_next(&p, &g) > 0)
			if (g.num == 1 && g.wt == PB_LEN)
				is_bundle = true;
		/* framing bytes count with the packet */
		uint64_t sz = (uint64_t)(f.s.end - f.s.p) + 1 + pb_varint_len(f.s.end - f.s.p);
		if (is_bundle)
			bundle += sz;
		else
			other += sz;
	}
	printf("bundle_bytes %llu\nother_bytes %llu\n", (unsigned long long)bundle,
	       (unsigned long long)other);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	scx_set_prog(argv[0]);
	if (argc < 3)
		scx_die(2, "usage: perfetto_bench write|read|unpack|sizes FILE");
	if (!strcmp(argv[1], "write"))
		return bench_write(argc, argv);
	if (!strcmp(argv[1], "read"))
		return bench_read(argv[2]);
	if (!strcmp(argv[1], "unpack"))
		return bench_unpack(argv[2]);
	if (!strcmp(argv[1], "sizes"))
		return bench_sizes(argv[2]);
	scx_die(2, "unknown mode '%s'", argv[1]);
}
