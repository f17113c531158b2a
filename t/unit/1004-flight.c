// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's ring: bounded by time (events older than the newest by
 * more than the window leave) and by bytes (the oldest leaves early, counted
 * as dropped), several windows in a row each holding only their own events,
 * and a window written as a stream that reads back; the latency tracker that
 * triggers windows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/flight.h"
#include "capture/runqlat.h"
#include "stream/stream.h"
#include "tap.h"

static struct scx_event ev(uint64_t ts, int pid)
{
	struct scx_event e;

	scx_event_init(&e, SCX_EV_WAKING);
	e.ts = ts;
	e.cpu = 0;
	e.wake.pid = pid;
	return e;
}

static void by_time(void)
{
	struct scx_flight *f = scx_flight__new(100, 1 << 20);
	struct scx_event e;

	for (int i = 0; i < 1000; i++) {
		e = ev(1000 + i, i);
		scx_flight__push(f, &e);
	}
	is_int(f->n, 101, "time bound: events within 100 ns of the newest are kept");
	is_int(scx_flight__at(f, 0)->ts, 1899, "the oldest kept is newest - window");
	is_int(scx_flight__at(f, f->n - 1)->ts, 1999, "the newest is last");
	is_int(f->dropped, 0, "nothing dropped by the size bound");
	is_int(f->aged, 899, "the rest aged out");
	scx_flight__free(f);
}

static void by_bytes(void)
{
	struct scx_flight *f = scx_flight__new(1000000000, 10 * sizeof(struct scx_event));
	struct scx_event e;

	is_int(f->cap, 10, "size bound: 10 events' worth of bytes hold 10 events");
	for (int i = 0; i < 25; i++) {
		e = ev(1000 + i, i);
		scx_flight__push(f, &e);
	}
	is_int(f->n, 10, "never more than the bound");
	is_int(scx_flight__at(f, 0)->wake.pid, 15, "the newest 10 are kept");
	is_int(f->dropped, 15, "the 15 pushed out early are counted");
	ok(!scx_flight__new(1, sizeof(struct scx_event) - 1), "a bound below one event is refused");
	ok(!scx_flight__new(0, 1 << 20), "a zero window is refused");
	scx_flight__free(f);
}

/* write a window to a file, read it back: events in order, the trigger last */
static int window_roundtrip(struct scx_flight *f, const char *path, uint64_t ts, int *first_pid)
{
	struct scx_writer_opts wo = { .format = SCX_FMT_BINARY };
	uint64_t counts[SCX_EV__COUNT] = { 0 };
	struct scx_header h = { .version = SCX_WIRE_VERSION, .nr_cpus = 1 };
	struct scx_trailer tr = { 0 };
	struct scx_writer *w = scx_writer__open(path, &wo);
	struct scx_reader *r;
	struct scx_event t, e;
	int n = 0, last = SCX_EV_NONE, rc;

	scx_event_init(&t, SCX_EV_FLIGHT);
	t.ts = ts;
	snprintf(t.flight.reason, sizeof(t.flight.reason), "signal");
	scx_writer__header(w, &h);
	scx_flight__write(f, w, NULL, &t, counts);
	memcpy(tr.counts, counts, sizeof(counts));
	scx_writer__trailer(w, &tr);
	scx_writer__close(w);
	scx_flight__clear(f);

	r = scx_reader__open(path);
	*first_pid = -1;
	while ((rc = scx_reader__next(r, &e)) == SCX_READ_EVENT) {
		if (e.type == SCX_EV_WAKING && *first_pid < 0)
			*first_pid = e.wake.pid;
		if (e.type == SCX_EV_FLIGHT)
			is_int(e.flight.events, n, "the trigger counts the window's events");
		last = e.type;
		n++;
	}
	ok(rc == SCX_READ_END && scx_reader__trailer(r), "the window is a whole stream");
	is_int(last, SCX_EV_FLIGHT, "the trigger record comes last");
	scx_reader__free(r);
	return n - 1;
}

static void several_windows(void)
{
	struct scx_flight *f = scx_flight__new(1000, 1 << 20);
	char path[] = "/tmp/scx-flight.XXXXXX";
	int fd = mkstemp(path), first;
	struct scx_event e;

	close(fd);
	for (int i = 0; i < 50; i++) {
		e = ev(100 + i, i);
		scx_flight__push(f, &e);
	}
	is_int(window_roundtrip(f, path, 200, &first), 50, "first window: 50 events");
	is_int(first, 0, "from the first");
	is_int(f->n, 0, "the ring is empty after a window");
	for (int i = 50; i < 80; i++) {
		e = ev(100 + i, i);
		scx_flight__push(f, &e);
	}
	is_int(window_roundtrip(f, path, 300, &first), 30, "second window: only its own 30");
	is_int(first, 50, "starting after the first window");
	is_int(window_roundtrip(f, path, 400, &first), 0, "a third trigger at once: empty window");
	unlink(path);
	scx_flight__free(f);
}

static void latency(void)
{
	struct scx_runqlat r;
	struct scx_runqlat_hit hit;
	struct scx_event e;
	int hits = 0;

	scx_runqlat__init(&r);
	e = ev(1000, 42); /* woken at 1000 */
	hits += scx_runqlat__event(&r, &e, 500, &hit);
	e.type = SCX_EV_WAKEUP; /* the wakeup after the waking does not move the start */
	e.ts = 1100;
	hits += scx_runqlat__event(&r, &e, 500, &hit);
	scx_event_init(&e, SCX_EV_SWITCH);
	e.ts = 1700;
	e.sw.prev_pid = 7;
	e.sw.prev_state = SCX_STATE_PREEMPTED;
	e.sw.next_pid = 42;
	snprintf(e.sw.next_comm, SCX_COMM_LEN, "victim");
	hits += scx_runqlat__event(&r, &e, 500, &hit);
	is_int(hits, 1, "one latency over the threshold");
	is_int(hit.pid, 42, "the task is named");
	is_str(hit.comm, "victim", "with its comm");
	is_int(hit.latency_ns, 700, "waking to switch-in");
	is_int(hit.woken, 1, "a wakeup latency");
	/* the preempted task 7 runs again 300 ns later: under the threshold */
	e.ts = 2000;
	e.sw.prev_pid = 42;
	e.sw.prev_state = SCX_STATE_INTERRUPTIBLE;
	e.sw.next_pid = 7;
	is_int(scx_runqlat__event(&r, &e, 500, &hit), 0, "a short run-queue wait does not trigger");
	is_int(scx_runqlat__event(&r, &e, 200, &hit), 0, "and is forgotten once it ran");
	scx_runqlat__free(&r);
}

int main(void)
{
	by_time();
	by_bytes();
	several_windows();
	latency();
	return done_testing();
}
