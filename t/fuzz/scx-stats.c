// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the scx_stats record parser through the stream reader: every
 * scx_stats record either fails with a message or decodes, and a decoded
 * one writes and reads back to the same record (abort otherwise).
 */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "stream/scx_stats.h"
#include "stream/stream.h"

/* s written and read back; a record that does not read back is a bug */
static void rewrite(const struct scx_stats *s, struct scx_stats *out)
{
	struct scx_json_doc d = { 0 };
	struct scx_buf b = { 0 };
	char err[256];

	scx_stats_to_json(&b, s);
	if (scx_json_parse(&d, b.data, b.len) || scx_stats_from_json(&d, out, err, sizeof(err)))
		abort();
	scx_json_free(&d);
	scx_buf_free(&b);
}

/* Once written, a record is a fixed point: writing it again changes nothing. */
static void round_trip(const struct scx_stats *s)
{
	struct scx_stats once, twice;

	rewrite(s, &once);
	rewrite(&once, &twice);
	if (memcmp(&once, &twice, sizeof(once)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scx_reader *r = scx_reader__mem(data, size, "fuzz");
	struct scx_event e;
	int st;

	if (!r)
		return 0;
	while ((st = scx_reader__next(r, &e)) != SCX_READ_END && st != SCX_READ_ERROR) {
		const struct scx_json_doc *d = scx_reader__doc(r);
		struct scx_stats s;
		char err[256] = "";

		if (st != SCX_READ_OTHER || !d || !scx_stats_is(d))
			continue;
		if (scx_stats_from_json(d, &s, err, sizeof(err))) {
			if (!err[0])
				abort();
			continue;
		}
		round_trip(&s);
	}
	scx_reader__free(r);
	return 0;
}
