/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the stream codecs, shared by stream.c (reader and writer
 * objects), ndjson.c, binframe.c and zio.c.  Not for tools: use stream.h.
 */
#ifndef SCX_STREAM_INT_H
#define SCX_STREAM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "json/json.h"
#include "stream/stream.h"
#include "stream/zio.h"

/*
 * scx_event_init() for the decoders: gcc turns its memset of the 200-byte
 * struct into "rep stos", whose start-up cost was a fifth of the binary
 * decode time; explicit unaligned 16-byte stores are cheap.
 */
static inline void scx_event_init_fast(struct scx_event *e, unsigned type)
{
	typedef uint64_t v2 __attribute__((vector_size(16), may_alias, aligned(8)));
	v2 *p = (v2 *)e, z = { 0, 0 };

	_Static_assert(sizeof(*e) % 16 == 0, "scx_event is a multiple of 16 bytes");
#pragma GCC unroll 16
	for (size_t i = 0; i < sizeof(*e) / 16; i++)
		p[i] = z;
	e->type = type;
	e->cpu = -1;
	if (type == SCX_EV_SWITCH) {
		e->sw.dsq_id = SCX_DSQ_NONE;
		e->sw.layer_id = -1;
	}
	if (type == SCX_EV_DSQ_INSERT)
		e->dsq.from_dsq_id = SCX_DSQ_NONE;
}

/* ---- binary frames (man/scx.7) ------------------------------------------- */

#define SCX_BIN_MAGIC "\x89SCX\r\n\x1a\n"
#define SCX_BIN_MAGIC_LEN 8
#define SCX_BIN_FILE_HDR 12	       /* magic + u32 version */
#define SCX_BIN_REC_HDR 8	       /* u16 kind, u16 flags, u32 length */
#define SCX_BIN_MAX_EVENT 4096	       /* payload cap of an event record */
#define SCX_BIN_MAX_RECORD (16u << 20) /* payload cap of any record */
#define SCX_MAX_LINE (16u << 20)       /* NDJSON line cap */

/* record kinds above the event kinds */
#define SCX_REC_HEADER 0x8001  /* payload: the header as a JSON object */
#define SCX_REC_TRAILER 0x8002 /* payload: the trailer as a JSON object */
#define SCX_REC_JSON 0x8003    /* payload: any other JSON object (passed through) */

/* Largest encoded event record (header included) and NDJSON line. */
size_t scx_bin_event_max(void);
size_t scx_ndjson_event_max(void);

/* Encode e as a whole record at out; returns bytes, 0 for an unknown type. */
size_t scx_bin_format_event(char *out, const struct scx_event *e);
/* Decode an event payload of record 'kind'; 0 or -EINVAL with err set. */
int scx_bin_parse_event(const char *p, size_t n, unsigned kind, struct scx_event *e, char *err,
			size_t errsz);
/* The same through the field table only (the fast paths must agree with it). */
int scx_bin_parse_event_table(const char *p, size_t n, unsigned kind, struct scx_event *e,
			      char *err, size_t errsz);
/* Record header at out. */
void scx_bin_rec_hdr(char *out, unsigned kind, uint32_t len);

/* ---- NDJSON --------------------------------------------------------------- */

/* One event line with its '\n' at out (room: scx_ndjson_event_max()); 0 if bad type. */
size_t scx_ndjson_format_event(char *out, const struct scx_event *e);
/* Header and trailer objects (no newline). */
void scx_header_to_json(struct scx_buf *b, const struct scx_header *h);
void scx_trailer_to_json(struct scx_buf *b, const struct scx_trailer *t);

enum scx_line {
	SCX_LINE_EVENT = 1,
	SCX_LINE_HEADER,
	SCX_LINE_TRAILER,
	SCX_LINE_OTHER,
	SCX_LINE_BLANK,
};

/*
 * Classify and decode one JSON object.  EVENT fills e; HEADER fills h (after
 * freeing what it held); TRAILER fills t likewise; OTHER is any object whose
 * "type" is not ours.  -EINVAL with err ("invalid JSON (column 12)") and
 * *col (byte offset in the line) on bad input.
 */
int scx_ndjson_parse(struct scx_json_doc *d, const char *line, size_t n, struct scx_event *e,
		     struct scx_header *h, struct scx_trailer *t, char *err, size_t errsz,
		     size_t *col);

/*
 * Tests and fuzzers: no_fast decodes every line the jsmn way, no_canon skips
 * only the canonical-layout path; all three paths must agree.
 */
extern bool scx_ndjson_no_fast;
extern bool scx_ndjson_no_canon;
/* The canonical-layout path alone: SCX_LINE_EVENT, or -1 for "not mine". */
int scx_ndjson_canon(const char *line, size_t n, struct scx_event *e);

/* The header's "topology" array at arr into *out (topo.c); -EINVAL + *bad_off. */
int scx_topo_from_json(const struct scx_json_doc *d, int arr, struct scx_topo **out,
		       size_t *bad_off);

#endif
