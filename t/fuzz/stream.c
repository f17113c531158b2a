// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the stream reader (format and compression detection, NDJSON, binary
 * frames, gzip, zstd).  Beyond not crashing, every event read must survive
 * a re-encode to NDJSON and to binary unchanged: a decoder that accepts what
 * the encoder cannot reproduce is a bug too.
 */
#include <stdlib.h>
#include <string.h>

#include "stream/ksnap.h"
#include "stream/stream-int.h"

/* What the wire can carry: strings end at the first NUL; no dsq, no scx data
 * (nor a layer). */
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
		e->sw.layer_id = -1; /* NDJSON writes it with a DSQ only */
	}
}

/*
 * A kernel snapshot the decoder takes encodes to a record that decodes to
 * the same snapshot: the second encoding is byte for byte the first.
 */
static void ksnap_round_trip(const struct scx_json_doc *d)
{
	static struct scx_ksnap k1, k2;
	static struct scx_json_doc d2;
	struct scx_buf b1 = { 0 }, b2 = { 0 };
	char err[256];

	if (scx_ksnap_from_json(d, &k1, err, sizeof(err)))
		return;
	scx_ksnap_to_json(&b1, &k1);
	if (scx_json_parse(&d2, b1.data, b1.len) || scx_ksnap_from_json(&d2, &k2, err, sizeof(err)))
		abort();
	scx_ksnap_to_json(&b2, &k2);
	if (b1.len != b2.len || memcmp(b1.data, b2.data, b1.len))
		abort();
	scx_buf_free(&b1);
	scx_buf_free(&b2);
}

static void check_same(const char *buf, size_t len, const struct scx_event *want)
{
	struct scx_reader *r = scx_reader__mem(buf, len, "re");
	struct scx_event e;

	if (scx_reader__next(r, &e) != SCX_READ_EVENT || memcmp(&e, want, sizeof(e)))
		abort();
	scx_reader__free(r);
}

/*
 * The input as one NDJSON line: the canonical-layout path, the flat fast
 * path and jsmn agree on everything.
 */
static void differential(const char *line, size_t n)
{
	static struct scx_json_doc d1, d2;
	struct scx_header h1 = { 0 }, h2 = { 0 };
	struct scx_trailer t1 = { 0 }, t2 = { 0 };
	struct scx_event e0, e1, e2;
	char m1[256], m2[256];
	size_t c1 = 0, c2 = 0;

	if (memchr(line, '\n', n))
		return;
	memset(&e1, 0, sizeof(e1));
	memset(&e2, 0, sizeof(e2));
	bool canon = scx_ndjson_canon(line, n, &e0) == SCX_LINE_EVENT;
	scx_ndjson_no_canon = true; /* r1: the flat path, r2: jsmn */
	scx_ndjson_no_fast = false;
	int r1 = scx_ndjson_parse(&d1, line, n, &e1, &h1, &t1, m1, sizeof(m1), &c1);
	scx_ndjson_no_fast = true;
	int r2 = scx_ndjson_parse(&d2, line, n, &e2, &h2, &t2, m2, sizeof(m2), &c2);
	if (canon && (r1 != SCX_LINE_EVENT || memcmp(&e0, &e1, sizeof(e0))))
		abort(); /* what the canonical path takes, the flat path reads alike */
	scx_ndjson_no_fast = scx_ndjson_no_canon = false;
	if (r1 != r2 || (r1 == SCX_LINE_EVENT && memcmp(&e1, &e2, sizeof(e1))))
		abort();
	/* the same error, though the column may differ when jsmn stops earlier */
	if (r1 < 0 && strncmp(m1, m2, strcspn(m2, "(")))
		abort();
	scx_header_free(&h1);
	scx_header_free(&h2);
	scx_trailer_free(&t1);
	scx_trailer_free(&t2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scx_reader *r = scx_reader__mem(data, size, "fuzz");
	struct scx_event e;
	char bin[SCX_BIN_FILE_HDR + 4096];
	size_t max = scx_ndjson_event_max();
	char *line = malloc(max);
	int k, n = 0;

	/* every line of the input (the first 64), and the input whole */
	const char *p = (const char *)data, *end = p + size, *nl;
	for (int lines = 0; lines < 64 && (nl = memchr(p, '\n', end - p)); lines++, p = nl + 1)
		differential(p, nl - p);
	differential((const char *)data, size);
	scx_reader__header(r);
	while ((k = scx_reader__next(r, &e)) > 0 && n++ < 10000) {
		size_t l;
		if (k != SCX_READ_EVENT) {
			scx_reader__line(r, &l);
			if (scx_reader__doc(r) && scx_ksnap_is(scx_reader__doc(r)))
				ksnap_round_trip(scx_reader__doc(r));
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
