/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Protobuf wire format, by hand: the hot Perfetto messages (bundles, compact
 * sched, track events) are decoded straight from the buffer without the
 * allocations of protobuf-c's unpack, and the writer encodes bundles the same
 * way.  Every decoder checks bounds; none of them trusts a length.
 */
#ifndef SCX_PERFETTO_WIRE_H
#define SCX_PERFETTO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

struct pb {
	const uint8_t *p, *end;
};

/* One decoded field: v for scalars, s for length-delimited payloads. */
struct pb_field {
	uint32_t num;
	uint32_t wt;
	uint64_t v;
	struct pb s;
};

static inline int pb_varint(struct pb *b, uint64_t *v)
{
	const uint8_t *p = b->p;
	uint64_t r = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (p >= b->end)
			return -1;
		uint8_t c = *p++;
		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			b->p = p;
			*v = r;
			return 0;
		}
	}
	return -1;
}

/* Next field of a message: 1 read, 0 end of message, -1 malformed (b->p at the bad byte). */
static inline int pb_next(struct pb *b, struct pb_field *f)
{
	uint64_t tag, len;
	const uint8_t *start = b->p;

	if (b->p >= b->end)
		return 0;
	if (pb_varint(b, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
		goto bad;
	f->num = tag >> 3;
	f->wt = tag & 7;
	switch (f->wt) {
	case PB_VARINT:
		if (pb_varint(b, &f->v))
			goto bad;
		return 1;
	case PB_I64:
		if (b->end - b->p < 8)
			goto bad;
		memcpy(&f->v, b->p, 8);
		b->p += 8;
		return 1;
	case PB_I32: {
		uint32_t x;
		if (b->end - b->p < 4)
			goto bad;
		memcpy(&x, b->p, 4);
		f->v = x;
		b->p += 4;
		return 1;
	}
	case PB_LEN:
		if (pb_varint(b, &len) || len > (uint64_t)(b->end - b->p))
			goto bad;
		f->s.p = b->p;
		f->s.end = b->p + len;
		b->p += len;
		return 1;
	default: /* groups are never used by Perfetto */
		goto bad;
	}
bad:
	b->p = start;
	return -1;
}

/* ---- encoding: into a caller-sized buffer; callers reserve the room ----- */

#define PB_VARINT_MAX 10

static inline uint8_t *pb_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline unsigned pb_varint_len(uint64_t v)
{
	unsigned n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline uint8_t *pb_put_tag(uint8_t *p, uint32_t num, uint32_t wt)
{
	return pb_put_varint(p, (uint64_t)num << 3 | wt);
}

static inline uint8_t *pb_put_u64(uint8_t *p, uint32_t num, uint64_t v)
{
	return pb_put_varint(pb_put_tag(p, num, PB_VARINT), v);
}

/* int32/int64 fields: negative values sign-extend to ten bytes, as protobuf does. */
static inline uint8_t *pb_put_i64(uint8_t *p, uint32_t num, int64_t v)
{
	return pb_put_u64(p, num, (uint64_t)v);
}

static inline uint8_t *pb_put_bytes(uint8_t *p, uint32_t num, const void *s, size_t n)
{
	p = pb_put_varint(pb_put_tag(p, num, PB_LEN), n);
	memcpy(p, s, n);
	return p + n;
}

static inline uint8_t *pb_put_str(uint8_t *p, uint32_t num, const char *s, size_t max)
{
	return pb_put_bytes(p, num, s, strnlen(s, max));
}

#endif
