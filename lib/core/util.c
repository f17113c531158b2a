// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

const char *scx_prog = "scx";
int scx_verbose;

void scx_set_prog(const char *argv0)
{
	const char *s = argv0 ? strrchr(argv0, '/') : NULL;

	scx_prog = s ? s + 1 : (argv0 ? argv0 : "scx");
}

static void vwarn(const char *fmt, va_list ap)
{
	int saved = errno;
	char line[4096];
	int n = snprintf(line, sizeof(line), "%s: ", scx_prog);

	if (n > 0 && (size_t)n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	/* one write, so lines from concurrent tools in a pipeline do not interleave */
	size_t len = strlen(line);
	if (len < sizeof(line) - 1)
		line[len++] = '\n';
	else
		line[sizeof(line) - 2] = '\n', len = sizeof(line) - 1;
	if (write(STDERR_FILENO, line, len) < 0) {
		/* nothing left to report to */
	}
	errno = saved;
}

void scx_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void scx_debug(int level, const char *fmt, ...)
{
	va_list ap;

	if (scx_verbose < level)
		return;
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void scx_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(code);
}

int scx_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*v = x;
	return 0;
}

int scx_parse_i64(const char *s, int64_t *v)
{
	char *end;

	if (!s || !*s || *s == ' ')
		return -EINVAL;
	errno = 0;
	long long x = strtoll(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*v = x;
	return 0;
}

static int parse_scaled(const char *s, const char *const *units, const double *scale, double dflt,
			uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == ' ')
		return -EINVAL;
	errno = 0;
	double x = strtod(s, &end);
	if (errno == ERANGE || end == s || isnan(x) || x < 0)
		return -EINVAL;
	double mult = dflt;
	if (*end) {
		mult = 0;
		for (int i = 0; units[i]; i++)
			if (!strcmp(end, units[i])) {
				mult = scale[i];
				break;
			}
		if (!mult)
			return -EINVAL;
	}
	x *= mult;
	if (x >= 18446744073709551615.0)
		return -ERANGE;
	*out = (uint64_t)(x + 0.5);
	return 0;
}

int scx_parse_duration(const char *s, uint64_t *ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s", "m", "h", NULL };
	static const double scale[] = {
		1, 1e3, 1e6, 1e9, 60e9, 3600e9,
	};

	return parse_scaled(s, units, scale, 1e9, ns);
}

int scx_parse_size(const char *s, uint64_t *bytes)
{
	static const char *const units[] = { "K", "k", "KiB", "M", "MiB", "G", "GiB", "B", NULL };
	static const double scale[] = {
		1024.0, 1024.0, 1024.0, 1048576.0, 1048576.0, 1073741824.0, 1073741824.0, 1,
	};

	return parse_scaled(s, units, scale, 1, bytes);
}

int scx_parse_cpulist(const char *s, uint8_t *mask, unsigned nbits)
{
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	while (*p) {
		char *end;
		errno = 0;
		unsigned long a = strtoul(p, &end, 10), b;
		if (end == p || errno)
			return -EINVAL;
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			b = strtoul(p, &end, 10);
			if (end == p || errno || b < a)
				return -EINVAL;
			p = end;
		}
		if (b >= nbits)
			return -ERANGE;
		for (unsigned long c = a; c <= b; c++)
			mask[c / 8] |= 1u << (c % 8);
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

int scx_split_list(const char *s, int (*fn)(const char *item, size_t len, void *ctx), void *ctx)
{
	while (s && *s) {
		const char *c = strchr(s, ',');
		size_t n = c ? (size_t)(c - s) : strlen(s);
		if (n) {
			int err = fn(s, n, ctx);
			if (err)
				return err;
		}
		s = c ? c + 1 : NULL;
	}
	return 0;
}

const char *scx_fmt_ns(uint64_t ns, char *buf, size_t size)
{
	if (ns < 1000)
		snprintf(buf, size, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.2fms", ns / 1e6);
	else
		snprintf(buf, size, "%.2fs", ns / 1e9);
	return buf;
}

static uint64_t now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t scx_now_mono_ns(void)
{
	return now(CLOCK_MONOTONIC);
}
uint64_t scx_now_boot_ns(void)
{
	return now(CLOCK_BOOTTIME);
}

void *scx_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		scx_die(SCX_EXIT_FAIL, "out of memory (%zu bytes)", n);
	return p;
}

void *scx_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		scx_die(SCX_EXIT_FAIL, "out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *scx_xcalloc_aligned(size_t align, size_t n)
{
	void *p;

	if (posix_memalign(&p, align, n ? n : 1))
		scx_die(SCX_EXIT_FAIL, "out of memory (%zu bytes)", n);
	memset(p, 0, n);
	return p;
}

void *scx_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		scx_die(SCX_EXIT_FAIL, "out of memory (%zu bytes)", n);
	return q;
}

char *scx_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		scx_die(SCX_EXIT_FAIL, "out of memory");
	return p;
}

static bool (*write_stop)(void);

void scx_write_set_stop(bool (*stop)(void))
{
	write_stop = stop;
}

void scx_output_interruptible(int fd, bool (*stop)(void))
{
	struct stat st;
	int fl;

	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode) || (fl = fcntl(fd, F_GETFL)) < 0)
		return;
	if (!fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		scx_write_set_stop(stop);
}

int scx_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	uint64_t give_up = 0;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && write_stop) {
				struct pollfd pfd = { .fd = fd, .events = POLLOUT };

				if (write_stop() && !give_up)
					give_up =
						scx_now_mono_ns() + SCX_WRITE_GRACE_MS * 1000000ull;
				if (give_up && scx_now_mono_ns() >= give_up)
					return -ETIMEDOUT;
				poll(&pfd, 1, 100); /* short: the stop may come from a deadline */
				continue;
			}
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

bool scx_same_file(const char *a, const char *b)
{
	struct stat x, y;

	if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-"))
		return false;
	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

void scx_buf_add_printable(struct scx_buf *b, const char *s, size_t n)
{
	scx_buf_reserve(b, n + 1);
	for (size_t i = 0; i < n; i++)
		b->data[b->len++] = scx_printable((unsigned char)s[i]);
	b->data[b->len] = 0;
}

char *scx_printable_copy(char *dst, size_t size, const char *s)
{
	size_t i = 0;

	if (!size)
		return dst;
	for (; s[i] && i + 1 < size; i++)
		dst[i] = scx_printable((unsigned char)s[i]);
	dst[i] = 0;
	return dst;
}

void scx_buf_reserve(struct scx_buf *b, size_t extra)
{
	if (b->len + extra <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra)
		cap *= 2;
	b->data = scx_xrealloc(b->data, cap);
	b->cap = cap;
}

void scx_buf_add(struct scx_buf *b, const void *p, size_t n)
{
	if (!n) /* p may be NULL then: an empty buffer's data */
		return;
	scx_buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void scx_buf_addstr(struct scx_buf *b, const char *s)
{
	scx_buf_add(b, s, strlen(s));
}

void scx_buf_printf(struct scx_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	scx_buf_reserve(b, 64);
	va_start(ap, fmt);
	n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		scx_buf_reserve(b, n + 1);
		va_start(ap, fmt);
		vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += n;
}

void scx_buf_free(struct scx_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
