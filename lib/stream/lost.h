/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events lost per cpu as a stream's LOST records said, to find what only its
 * trailer knows: a producer may count losses it never wrote a record for
 * (scx(7)), and every consumer must still report them.  The same for the
 * program runs the kernel skipped ("missed" records and the trailer's
 * "missed"): events that never reached the stream, lost on no known CPU.
 */
#ifndef SCX_LOST_H
#define SCX_LOST_H

#include <stdint.h>

#include "core/event.h"
#include "json/json.h"
#include "stream/stream.h"

struct scx_lost_tally {
	uint64_t *cpu; /* by cpu id, n entries */
	unsigned n;
	uint64_t unknown; /* records with cpu -1 */
	uint64_t missed;  /* "missed" records' counts */
};

/* Count e if it is a LOST record; other events are ignored. */
void scx_lost_tally__add(struct scx_lost_tally *l, const struct scx_event *e);
/* What t says was lost on cpu beyond the records counted so far (0 if nothing). */
uint64_t scx_lost_tally__unseen(const struct scx_lost_tally *l, const struct scx_trailer *t,
				unsigned cpu);
/*
 * A "missed" record's count into *count (1); 0 for any other JSON line; a
 * malformed one is -EINVAL with err saying what.
 */
int scx_missed_record(const struct scx_json_doc *d, uint64_t *count, char *err, size_t errsz);
/* What t says the kernel skipped beyond the "missed" records counted so far. */
uint64_t scx_lost_tally__missed_unseen(const struct scx_lost_tally *l, const struct scx_trailer *t);
/* Forget the counts (a concatenated stream's next capture starts). */
void scx_lost_tally__reset(struct scx_lost_tally *l);
void scx_lost_tally__free(struct scx_lost_tally *l);

#endif
