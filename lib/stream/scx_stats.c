// SPDX-License-Identifier: GPL-2.0
/* The sched_ext state record (scx_stats.h): its JSON form, its checks, its sums. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "stream/scx_stats.h"

#define REC "scx_stats" /* the record in error messages */

static void kint_opt(struct scx_jw *w, const char *key, int64_t v)
{
	if (v >= 0)
		scx_jw_kint(w, key, v);
}

void scx_stats_json_fields(struct scx_jw *w, const struct scx_stats *s)
{
	scx_jw_kuint(w, "ts", s->ts);
	scx_jw_kuint(w, "interval_ns", s->interval_ns);
	scx_jw_kstr(w, "state", s->state);
	scx_jw_kstr(w, "ops", s->ops);
	kint_opt(w, "switch_all", s->switch_all);
	kint_opt(w, "enable_seq", s->enable_seq);
	kint_opt(w, "nr_rejected", s->nr_rejected);
	kint_opt(w, "hotplug_seq", s->hotplug_seq);
	if (s->has_events) {
		scx_jw_key(w, "events");
		scx_jw_obj_begin(w);
		for (unsigned i = 0; i < s->nr_events; i++) {
			/*
			 * scx_jw_key() takes keys that need no escaping; a name
			 * read back from a stream might: the separator from an
			 * empty key, then the name escaped in its place.
			 */
			scx_jw_key(w, "");
			w->out->len -= 3;
			scx_json_escape(w->out, s->events[i].name,
					strnlen(s->events[i].name, SCX_STATS_NAME_LEN));
			scx_buf_addstr(w->out, ":");
			scx_jw_uint(w, s->events[i].value);
		}
		scx_jw_obj_end(w);
	}
	scx_jw_kuint(w, "events_dropped", s->events_dropped);
}

void scx_stats_to_json(struct scx_buf *b, const struct scx_stats *s)
{
	struct scx_jw w;

	scx_jw_init(&w, b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "type", SCX_STATS_TYPE);
	scx_stats_json_fields(&w, s);
	scx_jw_obj_end(&w);
}

static void text_count(struct scx_buf *b, const char *name, int64_t v)
{
	if (v >= 0)
		scx_buf_printf(b, " %s %lld", name, (long long)v);
}

void scx_stats_text(struct scx_buf *b, const struct scx_stats *s)
{
	scx_buf_printf(b, "sched_ext: %s%s%.*s", s->state[0] ? s->state : "?", s->ops[0] ? " " : "",
		       (int)strnlen(s->ops, sizeof(s->ops)), s->ops);
	text_count(b, "switch_all", s->switch_all);
	scx_buf_addstr(b, " |");
	text_count(b, "loads", s->enable_seq);
	text_count(b, "rejected", s->nr_rejected);
	text_count(b, "hotplugs", s->hotplug_seq);
	if (!s->has_events) {
		scx_buf_addstr(b, " | no root/events");
		return;
	}
	scx_buf_addstr(b, " | events");
	for (unsigned i = 0; i < s->nr_events; i++)
		scx_buf_printf(b, " %.*s %llu", (int)strnlen(s->events[i].name, SCX_STATS_NAME_LEN),
			       s->events[i].name, (unsigned long long)s->events[i].value);
	if (s->events_dropped)
		scx_buf_printf(b, " (+%llu not kept)", (unsigned long long)s->events_dropped);
}

bool scx_stats_is(const struct scx_json_doc *d)
{
	int t = d->ntok > 0 && d->tok[0].type == JSMN_OBJECT ? scx_json_get(d, 0, "type") : -1;

	return t >= 0 && scx_json_eq(d, t, SCX_STATS_TYPE);
}

/* An optional counter: -1 when absent, an error when not a whole number from 0. */
static int get_opt(const struct scx_json_doc *d, int obj, const char *key, int64_t *v, char *err,
		   size_t errsz)
{
	int i = scx_json_get(d, obj, key);
	char what[64];

	*v = -1;
	if (i < 0 || (!scx_json_int(d, i, v) && *v >= 0))
		return 0;
	snprintf(what, sizeof(what), "\"%s\" is not a count", key);
	return scx_json_rec_err(d, i, REC, err, errsz, what);
}

static int get_str(const struct scx_json_doc *d, int obj, const char *key, char *buf, size_t size,
		   char *err, size_t errsz)
{
	int i = scx_json_get(d, obj, key);
	char what[64];

	buf[0] = '\0';
	if (i >= 0 && scx_json_is_str(d, i) && scx_json_str(d, i, buf, size) >= 0)
		return 0;
	snprintf(what, sizeof(what), "missing or bad \"%s\"", key);
	return scx_json_rec_err(d, i >= 0 ? i : obj, REC, err, errsz, what);
}

int scx_stats_from_json(const struct scx_json_doc *d, struct scx_stats *s, char *err, size_t errsz)
{
	if (!scx_stats_is(d)) {
		memset(s, 0, sizeof(*s));
		return scx_json_rec_err(d, 0, REC, err, errsz, "not an scx_stats record");
	}
	return scx_stats_from_json_obj(d, 0, s, err, errsz);
}

int scx_stats_from_json_obj(const struct scx_json_doc *d, int o, struct scx_stats *s, char *err,
			    size_t errsz)
{
	int obj, i;

	memset(s, 0, sizeof(*s));
	if (o < 0 || o >= d->ntok || d->tok[o].type != JSMN_OBJECT)
		return scx_json_rec_err(d, o < 0 || o >= d->ntok ? -1 : o, REC, err, errsz,
					"not an object");
	if (scx_json_rec_uint(d, o, "ts", &s->ts, REC, err, errsz) ||
	    scx_json_rec_uint(d, o, "interval_ns", &s->interval_ns, REC, err, errsz) ||
	    scx_json_rec_uint(d, o, "events_dropped", &s->events_dropped, REC, err, errsz) ||
	    get_str(d, o, "state", s->state, sizeof(s->state), err, errsz) ||
	    get_str(d, o, "ops", s->ops, sizeof(s->ops), err, errsz) ||
	    get_opt(d, o, "switch_all", &s->switch_all, err, errsz) ||
	    get_opt(d, o, "enable_seq", &s->enable_seq, err, errsz) ||
	    get_opt(d, o, "nr_rejected", &s->nr_rejected, err, errsz) ||
	    get_opt(d, o, "hotplug_seq", &s->hotplug_seq, err, errsz))
		return -EINVAL;
	obj = scx_json_get(d, o, "events");
	if (obj < 0)
		return 0;
	if (d->tok[obj].type != JSMN_OBJECT)
		return scx_json_rec_err(d, obj, REC, err, errsz, "\"events\" is not an object");
	s->has_events = true;
	i = obj + 1;
	for (int k = 0; k < d->tok[obj].size; k++, i = scx_json_next(d, i + 1)) {
		struct scx_stats_counter *c;
		char name[SCX_STATS_NAME_LEN] = "";
		uint64_t v;
		int len = scx_json_str(d, i, name, sizeof(name));

		if (len <= 0 || len >= SCX_STATS_NAME_LEN || strlen(name) != (size_t)len)
			return scx_json_rec_err(
				d, i, REC, err, errsz,
				"an event counter's name is empty, too long or holds a NUL");
		if (scx_json_uint(d, i + 1, &v))
			return scx_json_rec_err(d, i + 1, REC, err, errsz,
						"an event counter is not a count");
		if (scx_stats_event(s, name))
			return scx_json_rec_err(d, i, REC, err, errsz,
						"an event counter appears twice");
		if (s->nr_events == SCX_STATS_MAX_EVENTS) {
			s->events_dropped++;
			continue;
		}
		c = &s->events[s->nr_events++];
		memcpy(c->name, name, sizeof(name));
		c->value = v;
	}
	return 0;
}

const struct scx_stats_counter *scx_stats_event(const struct scx_stats *s, const char *name)
{
	for (unsigned i = 0; i < s->nr_events; i++)
		if (!strncmp(s->events[i].name, name, SCX_STATS_NAME_LEN))
			return &s->events[i];
	return NULL;
}

static void add_opt(int64_t *dst, int64_t v)
{
	if (v < 0)
		return;
	*dst = *dst < 0 ? v : *dst + v;
}

void scx_stats_merge(struct scx_stats *dst, const struct scx_stats *src)
{
	if (!dst->ts) {
		*dst = *src;
		return;
	}
	dst->ts = src->ts;
	dst->interval_ns += src->interval_ns;
	memcpy(dst->state, src->state, sizeof(dst->state));
	memcpy(dst->ops, src->ops, sizeof(dst->ops));
	dst->switch_all = src->switch_all;
	add_opt(&dst->enable_seq, src->enable_seq);
	add_opt(&dst->nr_rejected, src->nr_rejected);
	add_opt(&dst->hotplug_seq, src->hotplug_seq);
	dst->has_events |= src->has_events;
	dst->events_dropped += src->events_dropped;
	for (unsigned i = 0; i < src->nr_events; i++) {
		struct scx_stats_counter *c =
			(struct scx_stats_counter *)scx_stats_event(dst, src->events[i].name);

		if (c) {
			c->value += src->events[i].value;
		} else if (dst->nr_events == SCX_STATS_MAX_EVENTS) {
			dst->events_dropped++;
		} else {
			dst->events[dst->nr_events++] = src->events[i];
		}
	}
}
