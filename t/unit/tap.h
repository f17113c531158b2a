/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP for C unit tests: ok(), is_int(), is_str(), done_testing().
 * A failure is said on stderr too, as t/lib.sh does, so that a plain (not
 * verbose) prove run, as in make check and CI, shows why it failed.
 */
#ifndef SCX_TAP_H
#define SCX_TAP_H

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
		fprintf(stderr, "# %s test %d failed: ", program_invocation_short_name, tap_n);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\n#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

/* A line of diagnosis after a failed check, on stdout and stderr. */
#define tap_diag(...) \
	do { \
		printf(__VA_ARGS__); \
		fprintf(stderr, __VA_ARGS__); \
	} while (0)

#define is_int(got, want, ...) \
	do { \
		long long g_ = (long long)(got), w_ = (long long)(want); \
		if (!ok(g_ == w_, __VA_ARGS__)) \
			tap_diag("#   got %lld, want %lld\n", g_, w_); \
	} while (0)

#define is_str(got, want, ...) \
	do { \
		const char *g_ = (got), *w_ = (want); \
		if (!ok(g_ && w_ && !strcmp(g_, w_), __VA_ARGS__)) \
			tap_diag("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", \
				 w_ ? w_ : "(null)"); \
	} while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
