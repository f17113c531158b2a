/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one libbpf print callback of the tree (the capture, scx-prof's hint
 * recorder, scx-mcp's profiler): libbpf's messages, debug included, reach
 * stderr with -v (scx_verbose >= 1) and nowhere otherwise (STYLE.md).
 *
 *	libbpf_set_print(scx_libbpf_print);
 */
#ifndef SCX_LIBBPF_PRINT_H
#define SCX_LIBBPF_PRINT_H

#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/util.h"

static inline int scx_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return scx_verbose >= 1 ? vfprintf(stderr, fmt, ap) : 0;
}

#endif
