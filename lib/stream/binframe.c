// SPDX-License-Identifier: GPL-2.0
/*
 * Binary frames (man/scx.7): records of u16 kind, u16 flags, u32 length and
 * a payload.  An event payload is ts (u64), cpu (i32), then the kind's fields
 * in table order: integers little-endian at their natural width, strings as a
 * u8 length and the bytes up to the first NUL.  Trailing fields may be left
 * out (a switch without sched_ext data or cgroup ids stops before dsq_id, a
 * wakeup without a cgroup id before it) and read as their
 * defaults; bytes after the last known field are fields of a newer version
 * and are skipped.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "stream/stream-int.h"

static inline void put16(char *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static inline void put32(char *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static inline void put64(char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static inline uint32_t get32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static inline uint64_t get64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

void scx_bin_rec_hdr(char *out, unsigned kind, uint32_t len)
{
	put16(out, kind);
	put16(out + 2, 0);
	put32(out + 4, len);
}

size_t scx_bin_event_max(void)
{
	size_t max = 0;

	for (unsigned t = 1; t < SCX_EV__COUNT; t++) {
		const struct scx_ev_desc *d = scx_ev_desc(t);
		size_t n = SCX_BIN_REC_HDR + 12;
		for (unsigned i = 0; i < d->nr_fields; i++)
			n += d->fields[i].kind == SCX_F_STR ? 1 + d->fields[i].size : 8;
		if (n > max)
			max = n;
	}
	return max;
}

size_t scx_bin_format_event(char *out, const struct scx_event *e)
{
	const struct scx_ev_desc *d = scx_ev_desc(e->type);
	char *o = out + SCX_BIN_REC_HDR;
	unsigned n;

	if (!d)
		return 0;
	n = scx_event_nr_fields(e, d);
	put64(o, e->ts);
	put32(o + 8, (uint32_t)e->cpu);
	o += 12;
	for (unsigned i = 0; i < n; i++) {
		const struct scx_field *f = &d->fields[i];
		const char *p = (const char *)e + f->offset;
		uint32_t v32;
		uint64_t v64;
		size_t l;

		switch (f->kind) {
		case SCX_F_I32:
		case SCX_F_U32:
			memcpy(&v32, p, 4);
			put32(o, v32);
			o += 4;
			break;
		case SCX_F_I64:
		case SCX_F_U64:
			memcpy(&v64, p, 8);
			put64(o, v64);
			o += 8;
			break;
		case SCX_F_STR:
			l = strnlen(p, f->size);
			*o++ = (char)l;
			memcpy(o, p, l);
			o += l;
			break;
		}
	}
	scx_bin_rec_hdr(out, e->type, o - out - SCX_BIN_REC_HDR);
	return o - out;
}

/*
 * Switches and wakeups are most of any stream: their usual layouts (every
 * field; a switch without sched_ext data) are decoded with a length check
 * per string and straight-line copies, a third of the table walk's time.
 * Anything else (short, newer or bad records) returns false and goes through
 * the table; t/unit/0003-stream.c checks that both agree.
 */
static inline bool get_comm(const char **pp, const char *end, size_t after, char *dst)
{
	const char *p = *pp;
	size_t l;

	if (p >= end)
		return false;
	l = (unsigned char)*p;
	if (l > SCX_COMM_LEN || (size_t)(end - p) < 1 + l + after)
		return false;
	memcpy(dst, p + 1, l);
	*pp = p + 1 + l;
	return true;
}

#define SW_EXT_BYTES (8 + 8 + 4 + 8 + 8 + 8 + 4) /* dsq_id .. layer_id; cgroups: 16 more */

static bool parse_switch_fast(const char *p, const char *end, struct scx_ev_switch *sw)
{
	size_t rest;

	if (end - p < 9)
		return false;
	sw->prev_pid = (int32_t)get32(p);
	sw->prev_tgid = (int32_t)get32(p + 4);
	p += 8;
	if (!get_comm(&p, end, 4 + 8 + 4 + 4 + 1, sw->prev_comm))
		return false;
	sw->prev_prio = (int32_t)get32(p);
	sw->prev_state = (int64_t)get64(p + 4);
	sw->next_pid = (int32_t)get32(p + 12);
	sw->next_tgid = (int32_t)get32(p + 16);
	p += 20;
	if (!get_comm(&p, end, 4, sw->next_comm))
		return false;
	sw->next_prio = (int32_t)get32(p);
	p += 4;
	rest = end - p;
	if (!rest)
		return true;
	if (rest != SW_EXT_BYTES && rest != SW_EXT_BYTES + 16)
		return false;
	sw->dsq_id = get64(p);
	sw->dsq_lat_ns = get64(p + 8);
	sw->dsq_depth = get32(p + 16);
	sw->dsq_vtime = get64(p + 20);
	sw->slice_ns = get64(p + 28);
	sw->prev_slice_used_ns = get64(p + 36);
	sw->layer_id = (int32_t)get32(p + 44);
	if (rest > SW_EXT_BYTES) {
		sw->prev_cgroup = get64(p + 48);
		sw->next_cgroup = get64(p + 56);
	}
	return true;
}

static bool parse_wakeup_fast(const char *p, const char *end, struct scx_ev_wakeup *w)
{
	if (end - p < 9)
		return false;
	w->pid = (int32_t)get32(p);
	w->tgid = (int32_t)get32(p + 4);
	p += 8;
	if (!get_comm(&p, end, 16, w->comm) || (end - p != 16 && end - p != 24))
		return false;
	w->prio = (int32_t)get32(p);
	w->target_cpu = (int32_t)get32(p + 4);
	w->waker_pid = (int32_t)get32(p + 8);
	w->waker_tgid = (int32_t)get32(p + 12);
	if (end - p == 24)
		w->cgroup = get64(p + 16);
	return true;
}

static bool parse_fast(const char *p, size_t n, unsigned kind, struct scx_event *e)
{
	const char *end = p + n;

	if (n < 12)
		return false;
	scx_event_init_fast(e, kind);
	e->ts = get64(p);
	e->cpu = (int32_t)get32(p + 8);
	switch (kind) {
	case SCX_EV_SWITCH:
		return parse_switch_fast(p + 12, end, &e->sw);
	case SCX_EV_WAKING:
	case SCX_EV_WAKEUP:
	case SCX_EV_WAKEUP_NEW:
		return parse_wakeup_fast(p + 12, end, &e->wake);
	}
	return false;
}

int scx_bin_parse_event(const char *p, size_t n, unsigned kind, struct scx_event *e, char *err,
			size_t errsz)
{
	if (parse_fast(p, n, kind, e))
		return 0;
	return scx_bin_parse_event_table(p, n, kind, e, err, errsz);
}

int scx_bin_parse_event_table(const char *p, size_t n, unsigned kind, struct scx_event *e,
			      char *err, size_t errsz)
{
	const struct scx_ev_desc *d = scx_ev_desc(kind);
	const char *end = p + n;

	if (n < 12) {
		snprintf(err, errsz, "%s record too short (%zu bytes)", d->name, n);
		return -EINVAL;
	}
	scx_event_init_fast(e, kind);
	e->ts = get64(p);
	e->cpu = (int32_t)get32(p + 8);
	p += 12;
	for (unsigned i = 0; i < d->nr_fields && p < end; i++) {
		const struct scx_field *f = &d->fields[i];
		char *dst = (char *)e + f->offset;
		uint32_t v32;
		uint64_t v64;
		size_t l;

		switch (f->kind) {
		case SCX_F_I32:
		case SCX_F_U32:
			if (end - p < 4)
				goto cut;
			v32 = get32(p);
			memcpy(dst, &v32, 4);
			p += 4;
			break;
		case SCX_F_I64:
		case SCX_F_U64:
			if (end - p < 8)
				goto cut;
			v64 = get64(p);
			memcpy(dst, &v64, 8);
			p += 8;
			break;
		case SCX_F_STR:
			l = (unsigned char)*p;
			if (l > f->size) {
				snprintf(err, errsz, "%s.%s: string length %zu exceeds %u", d->name,
					 f->name, l, f->size);
				return -EINVAL;
			}
			if ((size_t)(end - p) < 1 + l)
				goto cut;
			memcpy(dst, p + 1, l);
			p += 1 + l;
			break;
		}
		continue;
cut:
		snprintf(err, errsz, "%s.%s: record ends inside the field", d->name, f->name);
		return -EINVAL;
	}
	return 0;
}
