// SPDX-License-Identifier: GPL-2.0
/* sched_ext's sysfs state and counters (see scx_sysfs.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/scx_sysfs.h"
#include "core/util.h"

/* The whole file into buf (NUL-terminated, cut at bufsz - 1); -errno. */
static int slurp(const char *dir, const char *name, char *buf, size_t bufsz)
{
	char path[4096];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, bufsz - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

/* One word, the first line of the file without its newline. */
static int read_word(const char *dir, const char *name, char *out, size_t outsz)
{
	char buf[256];
	int err = slurp(dir, name, buf, sizeof(buf));

	if (err)
		return err;
	buf[strcspn(buf, "\n")] = '\0';
	/* a longer word is cut to what out holds */
	snprintf(out, outsz, "%.*s", (int)strnlen(buf, outsz - 1), buf);
	return 0;
}

/* A decimal counter; -1 in *v when the file does not exist. */
static int read_num(const char *dir, const char *name, int64_t *v, char *err, size_t errsz)
{
	char buf[64], *end;
	int e = slurp(dir, name, buf, sizeof(buf));
	long long n;

	*v = -1;
	if (e == -ENOENT)
		return 0;
	if (e) {
		snprintf(err, errsz, "%s/%s: %s", dir, name, strerror(-e));
		return -EINVAL;
	}
	errno = 0;
	n = strtoll(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || n < 0) {
		snprintf(err, errsz, "%s/%s: not a counter: '%.20s'", dir, name, buf);
		return -EINVAL;
	}
	*v = n;
	return 0;
}

/* root/events: "SCX_EV_NAME value" lines */
static int read_events(const char *dir, struct scx_stats *s, char *err, size_t errsz)
{
	char path[4096], line[256];
	unsigned lineno = 0;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/root/events", dir);
	f = fopen(path, "r");
	if (!f)
		return 0; /* before 6.15, or no scheduler loaded */
	s->has_events = true;
	while (fgets(line, sizeof(line), f)) {
		char name[SCX_STATS_NAME_LEN + 8], *end;
		unsigned long long v;
		const char *n;
		int len = 0;

		lineno++;
		if (line[strcspn(line, "\n")] != '\n' && !feof(f)) {
			snprintf(err, errsz, "%s:%u: line too long", path, lineno);
			ret = -EINVAL;
			break;
		}
		if (sscanf(line, "%55s %n", name, &len) != 1 || !len) {
			if (line[strspn(line, " \t\n")] == '\0')
				continue; /* blank */
			snprintf(err, errsz, "%s:%u: expected 'NAME VALUE'", path, lineno);
			ret = -EINVAL;
			break;
		}
		errno = 0;
		v = strtoull(line + len, &end, 10);
		if (errno || end == line + len || line[len] == '-' ||
		    end[strspn(end, " \t\n")] != '\0') {
			snprintf(err, errsz, "%s:%u: '%s' has no counter value", path, lineno,
				 name);
			ret = -EINVAL;
			break;
		}
		if (s->nr_events == SCX_STATS_MAX_EVENTS) {
			s->events_dropped++;
			continue;
		}
		n = strncmp(name, "SCX_EV_", 7) ? name : name + 7;
		snprintf(s->events[s->nr_events].name, SCX_STATS_NAME_LEN, "%.*s",
			 (int)strnlen(n, SCX_STATS_NAME_LEN - 1), n);
		s->events[s->nr_events++].value = v;
	}
	fclose(f);
	return ret;
}

int scx_sysfs__read(const char *dir, struct scx_stats *s, char *err, size_t errsz)
{
	int e;

	memset(s, 0, sizeof(*s));
	s->ts = scx_now_boot_ns();
	e = read_word(dir, "state", s->state, sizeof(s->state));
	if (e == -ENOENT || e == -ENOTDIR) {
		snprintf(err, errsz, "%s: no sched_ext in this kernel", dir);
		return -ENOENT;
	}
	if (e) {
		snprintf(err, errsz, "%s/state: %s", dir, strerror(-e));
		return -EINVAL;
	}
	if (read_num(dir, "enable_seq", &s->enable_seq, err, errsz) ||
	    read_num(dir, "nr_rejected", &s->nr_rejected, err, errsz) ||
	    read_num(dir, "switch_all", &s->switch_all, err, errsz) ||
	    read_num(dir, "hotplug_seq", &s->hotplug_seq, err, errsz))
		return -EINVAL;
	if (read_word(dir, "root/ops", s->ops, sizeof(s->ops)))
		s->ops[0] = '\0';
	return read_events(dir, s, err, errsz);
}

static uint64_t delta(uint64_t now, uint64_t prev)
{
	return now >= prev ? now - prev : now;
}

static int64_t delta_opt(int64_t now, int64_t prev)
{
	if (now < 0)
		return -1;
	return (int64_t)delta((uint64_t)now, prev < 0 ? 0 : (uint64_t)prev);
}

void scx_sysfs__delta(const struct scx_stats *now, const struct scx_stats *prev,
		      struct scx_stats *d)
{
	*d = *now;
	d->interval_ns = now->ts > prev->ts ? now->ts - prev->ts : 0;
	d->enable_seq = delta_opt(now->enable_seq, prev->enable_seq);
	d->nr_rejected = delta_opt(now->nr_rejected, prev->nr_rejected);
	d->hotplug_seq = delta_opt(now->hotplug_seq, prev->hotplug_seq);
	d->events_dropped = delta(now->events_dropped, prev->events_dropped);
	for (unsigned i = 0; i < now->nr_events; i++) {
		uint64_t before = 0;

		for (unsigned j = 0; j < prev->nr_events; j++)
			if (!strcmp(prev->events[j].name, now->events[i].name))
				before = prev->events[j].value;
		d->events[i].value = delta(now->events[i].value, before);
	}
}

int scx_sysfs__next(const char *dir, struct scx_stats *prev, struct scx_stats *rec, char *err,
		    size_t errsz)
{
	struct scx_stats now;
	int e = scx_sysfs__read(dir, &now, err, errsz);

	if (e)
		return e;
	scx_sysfs__delta(&now, prev, rec);
	*prev = now;
	return 0;
}
