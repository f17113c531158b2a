// SPDX-License-Identifier: GPL-2.0
/* The number formats of scx-top's cells (topview.h). */
#include <stdint.h>
#include <stdio.h>

#include "top/topview.h"

/* ---- number formats --------------------------------------------------------- */

/*
 * v with 'dec' (0-2) decimals and a unit, into buf (>= 32 bytes).  Frames
 * format thousands of numbers and printf's exact float conversion was most
 * of the render time, so common values take this integer path.
 */
const char *top_fmt_fixed(double v, int dec, const char *unit, char *buf, size_t size)
{
	static const unsigned scale[] = { 1, 10, 100 };
	char tmp[24];
	uint64_t x, ip;
	size_t n = 0, len = 0;

	if (!(v >= 0) || v >= 1e15 || size < 32) {
		snprintf(buf, size, "%.*f%s", dec, v, unit);
		return buf;
	}
	x = (uint64_t)(v * scale[dec] + 0.5);
	ip = x / scale[dec];
	do {
		tmp[n++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	while (n)
		buf[len++] = tmp[--n];
	if (dec) {
		unsigned fp = (unsigned)(x % scale[dec]);

		buf[len++] = '.';
		if (dec == 2)
			buf[len++] = (char)('0' + fp / 10);
		buf[len++] = (char)('0' + fp % 10);
	}
	while (*unit && len < size - 1)
		buf[len++] = *unit++;
	buf[len] = 0;
	return buf;
}

static const char *fmt3(double v, const char *unit, char *buf, size_t size)
{
	return top_fmt_fixed(v, v < 9.995 ? 2 : v < 99.95 ? 1 : 0, unit, buf, size);
}

const char *top_fmt_rate(double v, char *buf, size_t size)
{
	if (v < 0.05)
		snprintf(buf, size, "0");
	else if (v < 9.95)
		top_fmt_fixed(v, 1, "", buf, size);
	else if (v < 9999.5)
		top_fmt_fixed(v, 0, "", buf, size);
	else if (v < 999.5e3)
		fmt3(v / 1e3, "k", buf, size);
	else if (v < 999.5e6)
		fmt3(v / 1e6, "M", buf, size);
	else
		fmt3(v / 1e9, "G", buf, size);
	return buf;
}

const char *top_fmt_ns(double ns, char *buf, size_t size)
{
	if (ns < 999.5)
		top_fmt_fixed(ns, 0, "ns", buf, size);
	else if (ns < 999.5e3)
		fmt3(ns / 1e3, "us", buf, size);
	else if (ns < 999.5e6)
		fmt3(ns / 1e6, "ms", buf, size);
	else
		fmt3(ns / 1e9, "s", buf, size);
	return buf;
}
