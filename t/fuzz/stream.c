// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the stream reader (format and compression detection, NDJSON, binary
 * frames, gzip, zstd).  Beyond not crashing, every event read must survive
 * a re-encode to NDJSON and to binary unchanged: a decoder that accepts what
 * the encoder cannot reproduce is a bug too.
 */
#include <stdlib.h>
#include <string.h>

#include "stream-int.h"

/* What the wire can carry: strings end at the first NUL; no dsq, no scx data. */
static void normalize(struct scx_event *e)
{
	const struct scx_ev_desc *d = scx_ev_desc(e->type);

	for (unsigned i = 0; d && i < d->nr_fields; i++) {
		const struct scx_field *f = &d->fields[i];
		char *s = (char *)e + f->offset;
		if (f->kind != SCX_F_STR)
			continue;
		size_t n = strnlen(s, f->size);
		memset(s + n, 0, f->size - n);
	}
	if (e->type == SCX_EV_SWITCH && e->sw.dsq_id == SCX_DSQ_NONE) {
		e->sw.dsq_lat_ns = e->sw.dsq_vtime = e->sw.slice_ns = 0;
		e->sw.prev_slice_used_ns = 0;
		e->sw.dsq_depth = 0;
	}
}

static void check_same(const char *buf, size_t len, const struct scx_event *want)
{
	struct scx_reader *r = scx_reader__mem(buf, len, "re");
	struct scx_event e;

	if (scx_reader__next(r, &e) != SCX_READ_EVENT || memcmp(&e, want, sizeof(e)))
		abort();
	scx_reader__free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scx_reader *r = scx_reader__mem(data, size, "fuzz");
	struct scx_event e;
	char bin[SCX_BIN_FILE_HDR + 4096];
	size_t max = scx_ndjson_event_max();
	char *line = malloc(max);
	int k, n = 0;

	scx_reader__header(r);
	while ((k = scx_reader__next(r, &e)) > 0 && n++ < 10000) {
		size_t l;
		if (k != SCX_READ_EVENT) {
			scx_reader__line(r, &l);
			continue;
		}
		normalize(&e);
		l = scx_ndjson_format_event(line, &e);
		if (!l || l > max)
			abort();
		check_same(line, l, &e);
		memcpy(bin, SCX_BIN_MAGIC "\x01\0\0\0", SCX_BIN_FILE_HDR);
		l = scx_bin_format_event(bin + SCX_BIN_FILE_HDR, &e);
		if (!l || l > scx_bin_event_max())
			abort();
		check_same(bin, SCX_BIN_FILE_HDR + l, &e);
	}
	if (k == SCX_READ_ERROR && !scx_reader__error(r))
		abort();
	scx_reader__trailer(r);
	scx_reader__warning(r);
	scx_reader__offset(r);
	free(line);
	scx_reader__free(r);
	return 0;
}
