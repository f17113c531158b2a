// SPDX-License-Identifier: GPL-2.0
/*
 * What the flight recorder costs scx-events' reader per event, next to
 * streaming the same events: CPU time (this process only, so other load on
 * a shared machine hardly moves it) to push N switch and wakeup events into
 * a --flight ring, and to write them as NDJSON and binary frames to
 * /dev/null.  Median of REPS runs; the ratio is streaming / flight time.
 *
 *	flight N REPS
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/flight.h"
#include "stream/stream.h"

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void make(struct scx_event *e, unsigned i)
{
	scx_event_init(e, i % 2 ? SCX_EV_SWITCH : SCX_EV_WAKING);
	e->ts = 1000000000ull + i * 500ull;
	e->cpu = i % 8;
	if (e->type == SCX_EV_SWITCH) {
		e->sw.prev_pid = 100 + i % 50;
		e->sw.next_pid = 200 + i % 70;
		snprintf(e->sw.prev_comm, SCX_COMM_LEN, "worker-%u", i % 50);
		snprintf(e->sw.next_comm, SCX_COMM_LEN, "client-%u", i % 70);
	} else {
		e->wake.pid = 200 + i % 70;
		e->wake.target_cpu = i % 8;
		snprintf(e->wake.comm, SCX_COMM_LEN, "client-%u", i % 70);
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * flight-cold: a new ring (10 s, 256M, as the man page's example) filled for
 * the first time, page faults included; flight: the same ring once it has
 * been filled, the recorder's steady state (a window empties the ring but
 * keeps its pages).
 */
static double run(const char *what, unsigned n, const struct scx_event *ev)
{
	static struct scx_flight *warm;
	double t0 = cpu_s();

	if (!strcmp(what, "flight-cold")) {
		struct scx_flight *f = scx_flight__new(10000000000ull, 256ull << 20);

		for (unsigned i = 0; i < n; i++)
			scx_flight__push(f, &ev[i]);
		scx_flight__free(f);
	} else if (!strcmp(what, "flight")) {
		if (!warm) {
			warm = scx_flight__new(10000000000ull, 256ull << 20);
			for (size_t i = 0; i < warm->cap; i++)
				scx_flight__push(warm, &ev[i % n]);
			scx_flight__clear(warm);
			t0 = cpu_s();
		}
		for (unsigned i = 0; i < n; i++)
			scx_flight__push(warm, &ev[i]);
		scx_flight__clear(warm);
	} else {
		struct scx_writer_opts o = { .format = strcmp(what, "binary") ? SCX_FMT_NDJSON :
										SCX_FMT_BINARY };
		struct scx_writer *w = scx_writer__fdopen(open("/dev/null", O_WRONLY), &o);

		for (unsigned i = 0; i < n; i++)
			scx_writer__event(w, &ev[i]);
		scx_writer__close(w);
	}
	return cpu_s() - t0;
}

int main(int argc, char **argv)
{
	static const char *const what[] = { "flight", "ndjson", "binary", "flight-cold" };
	unsigned n = argc > 1 ? atoi(argv[1]) : 1000000, reps = argc > 2 ? atoi(argv[2]) : 5;
	struct scx_event *ev = calloc(n, sizeof(*ev));
	double med[4];

	if (!ev || !n || !reps)
		return 2;
	for (unsigned i = 0; i < n; i++)
		make(&ev[i], i);
	for (int k = 0; k < 4; k++) {
		double t[64];

		for (unsigned r = 0; r < reps && r < 64; r++)
			t[r] = run(what[k], n, ev);
		qsort(t, reps < 64 ? reps : 64, sizeof(double), cmp);
		med[k] = t[(reps < 64 ? reps : 64) / 2];
		printf("%s: median %.3f s CPU, %.1f ns/event\n", what[k], med[k], med[k] / n * 1e9);
	}
	printf("streaming/flight CPU per event: ndjson %.2fx, binary %.2fx; first fill: ndjson "
	       "%.2fx\n",
	       med[1] / med[0], med[2] / med[0], med[1] / med[3]);
	free(ev);
	return 0;
}
