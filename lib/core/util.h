/* SPDX-License-Identifier: GPL-2.0 */
/* Messages, exit codes and small parsers shared by every tool. */
#ifndef SCX_UTIL_H
#define SCX_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes of every tool. */
#define SCX_EXIT_OK 0
#define SCX_EXIT_FAIL 1	 /* runtime failure, bad input */
#define SCX_EXIT_USAGE 2 /* bad command line */

extern const char *scx_prog; /* "scx-agg": prefix of every message */
extern int scx_verbose;	     /* -v count */

void scx_set_prog(const char *argv0);

/* "scx-agg: <msg>\n" on stderr.  errno is preserved. */
void scx_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* scx_warn() only when scx_verbose >= level */
void scx_debug(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* scx_warn() then exit(code) */
_Noreturn void scx_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Parsers return 0 or -EINVAL / -ERANGE; they never print.
 * Durations: "30" (seconds), "1.5s", "250ms", "100us", "10ns", "2m", "1h".
 */
int scx_parse_duration(const char *s, uint64_t *ns);
int scx_parse_u64(const char *s, uint64_t *v); /* decimal or 0x hex */
int scx_parse_i64(const char *s, int64_t *v);
/* Sizes: "4096", "64K", "4M", "1G" (binary units) */
int scx_parse_size(const char *s, uint64_t *bytes);
/*
 * CPU list "0-3,8,10-11" into a bitmap of 'nbits' bits (bytes of 8 cpus);
 * -ERANGE when a cpu is >= nbits.
 */
int scx_parse_cpulist(const char *s, uint8_t *mask, unsigned nbits);
/* Split "a,b,c"; calls fn for each non-empty item; stops at fn's error. */
int scx_split_list(const char *s, int (*fn)(const char *item, size_t len, void *ctx), void *ctx);

/* Human units: "1.23ms", "4.5GHz"-like; buf of >= 16 bytes.  */
const char *scx_fmt_ns(uint64_t ns, char *buf, size_t size);

/* Monotonic and boottime clocks in ns. */
uint64_t scx_now_mono_ns(void);
uint64_t scx_now_boot_ns(void);

/* malloc/calloc/realloc that die with a message on failure. */
void *scx_xmalloc(size_t n);
void *scx_xcalloc(size_t n, size_t size);
void *scx_xrealloc(void *p, size_t n);
/* Zeroed n bytes at a multiple of align (a power of two); free() releases. */
void *scx_xcalloc_aligned(size_t align, size_t n);
char *scx_xstrdup(const char *s);

/* Write all of buf to fd, retrying on EINTR and short writes; 0 or -errno. */
int scx_write_all(int fd, const void *buf, size_t len);
/*
 * For a non-blocking output (a pipe or FIFO whose reader may stall):
 * scx_write_all() waits for room while stop() is false, and once it is
 * true gives the reader SCX_WRITE_GRACE_MS more, then fails with -ETIMEDOUT.
 * Without a stop function EAGAIN is returned as is.
 */
#define SCX_WRITE_GRACE_MS 1000
void scx_write_set_stop(bool (*stop)(void));
/*
 * A reader that opened a pipe or FIFO and then stopped reading would block
 * write() beyond the reach of a producer's stop conditions (signals restart
 * it).  If fd is a pipe or FIFO, make it non-blocking and give stop() to
 * scx_write_all() as above; other outputs are left as they are.
 */
void scx_output_interruptible(int fd, bool (*stop)(void));
/* Both paths name one existing file (an output that would truncate its input). */
bool scx_same_file(const char *a, const char *b);

/* A view into a text (a line, a JSON token); not NUL-terminated. */
struct scx_str {
	const char *p;
	size_t n;
};

static inline bool scx_str_eq(struct scx_str s, const char *lit)
{
	size_t n = __builtin_strlen(lit);

	return s.n == n && !__builtin_memcmp(s.p, lit, n);
}

/* A growable byte buffer. */
struct scx_buf {
	char *data;
	size_t len, cap;
};
void scx_buf_reserve(struct scx_buf *b, size_t extra);
void scx_buf_add(struct scx_buf *b, const void *p, size_t n);
void scx_buf_addstr(struct scx_buf *b, const char *s);
void scx_buf_printf(struct scx_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void scx_buf_free(struct scx_buf *b);
static inline void scx_buf_reset(struct scx_buf *b)
{
	b->len = 0;
}

/*
 * Text from input data (comms, hostnames, kernel strings of a traced
 * machine) on its way to a terminal: printable ASCII as it is, any other
 * byte '?', so no control byte, escape sequence or partial UTF-8 sequence
 * reaches the terminal.  Every tool prints such text through these.
 */
static inline char scx_printable(unsigned char c)
{
	return c >= 32 && c < 127 ? (char)c : '?';
}
void scx_buf_add_printable(struct scx_buf *b, const char *s, size_t n);
/* s (NUL-terminated) into dst, at most size - 1 bytes and a NUL, each scx_printable. */
char *scx_printable_copy(char *dst, size_t size, const char *s);

/* Marsaglia's xorshift64 (13, 7, 17): reproducible inputs for tests and
 * benchmarks; *state must not be 0. */
static inline uint64_t scx_xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

#define SCX_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SCX_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SCX_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
