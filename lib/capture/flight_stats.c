// SPDX-License-Identifier: GPL-2.0
/* sched_ext's counters over a flight-recorder window (see flight_stats.h). */
#include <errno.h>
#include <string.h>

#include "capture/flight_stats.h"
#include "capture/scx_sysfs.h"

#define SECOND_NS 1000000000ull

static struct scx_stats *at(struct scx_flight_stats *fs, unsigned i)
{
	return &fs->s[(fs->head + i) % SCX_FLIGHT_STATS_SAMPLES];
}

/* Keep a sample; the oldest leaves when the ring is full. */
static void push(struct scx_flight_stats *fs, const struct scx_stats *s)
{
	if (fs->n == SCX_FLIGHT_STATS_SAMPLES) {
		fs->head = (fs->head + 1) % SCX_FLIGHT_STATS_SAMPLES;
		fs->n--;
	}
	*at(fs, fs->n++) = *s;
	fs->next_ns = s->ts + fs->every_ns;
}

int scx_flight_stats__init(struct scx_flight_stats *fs, const char *dir, uint64_t window_ns,
			   char *err, size_t errsz)
{
	struct scx_stats s;
	int e;

	memset(fs, 0, sizeof(*fs));
	fs->dir = dir;
	/* the ring spans the window and two samples more, whatever its length */
	fs->every_ns = window_ns / (SCX_FLIGHT_STATS_SAMPLES - 4);
	if (fs->every_ns < SECOND_NS)
		fs->every_ns = SECOND_NS;
	e = scx_sysfs__read(dir, &s, err, errsz);
	if (!e)
		push(fs, &s);
	return e;
}

int scx_flight_stats__tick(struct scx_flight_stats *fs, uint64_t now, char *err, size_t errsz)
{
	struct scx_stats s;
	int e;

	if (now < fs->next_ns)
		return 0;
	e = scx_sysfs__read(fs->dir, &s, err, errsz);
	if (!e)
		push(fs, &s);
	return e;
}

int scx_flight_stats__window(struct scx_flight_stats *fs, uint64_t window_start,
			     struct scx_stats *rec, char *err, size_t errsz)
{
	const struct scx_stats *base;
	struct scx_stats now;
	int e = scx_sysfs__read(fs->dir, &now, err, errsz);

	if (e)
		return e;
	/*
	 * The newest sample at or before the window's start, else the oldest;
	 * never one before the previous window's read, which that window counted.
	 */
	base = &now;
	for (unsigned i = 0; i < fs->n; i++) {
		const struct scx_stats *s = at(fs, i);

		if (s->ts < fs->floor_ns)
			continue;
		if (base != &now && s->ts > window_start)
			break;
		base = s;
	}
	scx_sysfs__delta(&now, base, rec);
	push(fs, &now);
	fs->floor_ns = now.ts;
	return 0;
}
