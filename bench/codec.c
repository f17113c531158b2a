// SPDX-License-Identifier: GPL-2.0
/*
 * Codec benchmark and converter, driven by bench/codec.sh and the codec tests.
 *
 *   codec gen N FORMAT COMP OUT    write N synthetic events (a scheduler-like mix)
 *   codec write N FORMAT COMP REPS  time writing N events to /dev/null, median of REPS
 *   codec read FILE REPS            time reading FILE (any format), median of REPS
 *   codec cat IN FORMAT COMP OUT    convert any stream to FORMAT/COMP
 *
 * Timings are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that other
 * work on a shared machine does not count against the codec; the work is
 * single-threaded and CPU-bound, so this is events per second on one core.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stream/stream.h"
#include "core/topo.h"
#include "core/util.h"

static const char *comms[] = {
	"kworker/0:1", "perf", "sched-messaging", "bash",     "swapper/1", "ksoftirqd/0",
	"rcu_preempt", "Xorg", "chrome",	  "postgres",
};

static uint64_t rng = 88172645463325252ull;

static unsigned rnd(void)
{
	return scx_xorshift64(&rng) >> 16;
}

static void make_event(struct scx_event *e, unsigned i)
{
	static uint64_t ts = 5000000000ull;
	unsigned r = rnd();
	unsigned kind = r % 8;

	/* half switches, a quarter waking, an eighth wakeup, the rest migrate/idle */
	if (kind < 4) {
		scx_event_init(e, SCX_EV_SWITCH);
		e->sw.prev_pid = 1000 + r % 5000;
		e->sw.prev_tgid = e->sw.prev_pid;
		e->sw.prev_prio = 120;
		e->sw.prev_state = r % 3 ? SCX_STATE_INTERRUPTIBLE : SCX_STATE_PREEMPTED;
		e->sw.next_pid = 1000 + (r >> 8) % 5000;
		e->sw.next_tgid = e->sw.next_pid;
		e->sw.next_prio = 120;
		strcpy(e->sw.prev_comm, comms[r % 10]);
		strcpy(e->sw.next_comm, comms[(r >> 4) % 10]);
	} else if (kind < 6) {
		scx_event_init(e, SCX_EV_WAKING);
		e->wake.pid = 1000 + r % 5000;
		e->wake.tgid = e->wake.pid;
		e->wake.prio = 120;
		e->wake.target_cpu = r % 2;
		e->wake.waker_pid = 1000 + (r >> 8) % 5000;
		e->wake.waker_tgid = e->wake.waker_pid;
		strcpy(e->wake.comm, comms[r % 10]);
	} else if (kind < 7) {
		scx_event_init(e, SCX_EV_WAKEUP);
		e->wake.pid = 1000 + r % 5000;
		e->wake.tgid = e->wake.pid;
		e->wake.prio = 120;
		e->wake.target_cpu = r % 2;
		strcpy(e->wake.comm, comms[r % 10]);
	} else {
		scx_event_init(e, SCX_EV_CPU_IDLE);
		e->idle.cpu_id = r % 2;
		e->idle.state = r % 2 ? SCX_IDLE_EXIT : 1;
	}
	ts += 100 + rnd() % 900; /* ~1.8M events/s, like perf bench sched pipe */
	e->ts = ts;
	e->cpu = (r >> 12) % 2;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int parse_fc(const char *f, const char *c, struct scx_writer_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (scx_format_parse(f, &o->format) || scx_compress_parse(c, &o->compress)) {
		fprintf(stderr, "codec: bad format '%s' or compression '%s'\n", f, c);
		return -1;
	}
	return 0;
}

static void header(struct scx_header *h)
{
	memset(h, 0, sizeof(*h));
	h->version = SCX_WIRE_VERSION;
	strcpy(h->producer, "bench-codec");
	strcpy(h->clock, "boottime");
	strcpy(h->hostname, "bench");
	strcpy(h->kernel, "6.18");
	h->nr_cpus = 2;
	h->topo = scx_topo__synthetic(2, 2, 1);
	h->start_ns = 5000000000ull;
}

static int write_n(struct scx_writer *w, struct scx_event *evs, unsigned nev, unsigned long n)
{
	struct scx_header h;
	struct scx_trailer t = { 0 };
	int err;

	header(&h);
	err = scx_writer__header(w, &h);
	for (unsigned long i = 0; i < n && !err; i++) {
		err = scx_writer__event(w, &evs[i % nev]);
		t.counts[evs[i % nev].type]++;
	}
	if (!err)
		err = scx_writer__trailer(w, &t);
	scx_header_free(&h);
	return err;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

#define NEV 65536

int main(int argc, char **argv)
{
	static struct scx_event evs[NEV];
	struct scx_writer_opts o;

	scx_set_prog("codec");
	for (unsigned i = 0; i < NEV; i++)
		make_event(&evs[i], i);
	if (argc == 6 && !strcmp(argv[1], "gen")) {
		if (parse_fc(argv[3], argv[4], &o))
			return 2;
		struct scx_writer *w = scx_writer__open(argv[5], &o);
		if (!w)
			scx_die(1, "cannot open '%s': %s", argv[5], strerror(errno));
		int err = write_n(w, evs, NEV, strtoul(argv[2], NULL, 10));
		if (!err)
			err = scx_writer__close(w);
		if (err)
			scx_die(1, "write error: %s", strerror(-err));
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "write")) {
		unsigned long n = strtoul(argv[2], NULL, 10);
		int reps = atoi(argv[5]);
		double t[64];

		if (parse_fc(argv[3], argv[4], &o) || reps < 1 || reps > 64)
			return 2;
		for (int r = 0; r < reps; r++) {
			int fd = open("/dev/null", O_WRONLY);
			struct scx_writer *w = scx_writer__fdopen(fd, &o);
			uint64_t t0 = cpu_ns();
			int err = write_n(w, evs, NEV, n);
			if (!err)
				err = scx_writer__close(w);
			t[r] = (cpu_ns() - t0) / 1e9;
			if (err)
				scx_die(1, "write error: %s", strerror(-err));
		}
		double m = median(t, reps);
		printf("write %s %s: %lu events, median %.3f s, %.2fM events/s\n", argv[3], argv[4],
		       n, m, n / m / 1e6);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "read")) {
		int reps = atoi(argv[3]);
		double t[64];
		unsigned long n = 0;
		uint64_t bytes = 0;

		if (reps < 1 || reps > 64)
			return 2;
		for (int r = 0; r < reps; r++) {
			struct scx_reader *rd = scx_reader__open(argv[2]);
			struct scx_event e;
			uint64_t t0 = cpu_ns(), sum = 0;
			int k;

			if (!rd)
				scx_die(1, "cannot open '%s': %s", argv[2], strerror(errno));
			n = 0;
			while ((k = scx_reader__next(rd, &e)) > 0) {
				n += k == SCX_READ_EVENT;
				sum += e.ts; /* touch the result */
			}
			if (k < 0)
				scx_die(1, "%s", scx_reader__error(rd));
			t[r] = (cpu_ns() - t0) / 1e9 + (sum == 1 ? 1e-12 : 0);
			bytes = scx_reader__offset(rd);
			scx_reader__free(rd);
		}
		double m = median(t, reps);
		printf("read %s: %lu events, %llu bytes decoded, median %.3f s, %.2fM events/s\n",
		       argv[2], n, (unsigned long long)bytes, m, n / m / 1e6);
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "cat")) {
		struct scx_reader *rd = scx_reader__open(argv[2]);
		struct scx_writer *w;
		struct scx_event e;
		int k, err = 0;

		if (!rd)
			scx_die(1, "cannot open '%s': %s", argv[2], strerror(errno));
		if (parse_fc(argv[3], argv[4], &o))
			return 2;
		w = scx_writer__open(argv[5], &o);
		if (!w)
			scx_die(1, "cannot open '%s': %s", argv[5], strerror(errno));
		if (scx_reader__header(rd))
			err = scx_writer__header(w, scx_reader__header(rd));
		while (!err && (k = scx_reader__next(rd, &e)) > 0) {
			if (k == SCX_READ_EVENT) {
				err = scx_writer__event(w, &e);
			} else {
				size_t l;
				const char *line = scx_reader__line(rd, &l);
				err = scx_writer__raw(w, line, l);
			}
		}
		if (!err && k < 0) {
			scx_warn("%s", scx_reader__error(rd));
			scx_writer__close(w);
			return 1;
		}
		if (!err && scx_reader__trailer(rd))
			err = scx_writer__trailer(w, scx_reader__trailer(rd));
		if (!err)
			err = scx_writer__close(w);
		if (err)
			scx_die(1, "write error: %s", strerror(-err));
		if (scx_reader__warning(rd))
			scx_warn("%s", scx_reader__warning(rd));
		scx_reader__free(rd);
		return 0;
	}
	fprintf(stderr, "usage: codec gen|write|read|cat ... (see bench/codec.c)\n");
	return 2;
}
