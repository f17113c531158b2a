// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON reader against its predecessor, in the same run: every line of
 * FILE parsed by scx_json_parse() (one pass) and by scx_json_parse_ref()
 * (jsmn, a counting pass when the token array is too small, then the
 * grammar checks), then the numbers of every line, gathered into one array,
 * read with scx_json_double() and with strtod(); the four take turns, REPS
 * times, and each keeps its best CPU time.
 *   json FILE [REPS]
 * prints "<what> MB/s" lines and the ratios.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json/json-int.h"
#include "core/util.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct line {
	const char *s;
	size_t n;
};

/* CPU time of one pass over every line with parse(). */
static double time_parse(struct scx_json_doc *d, const struct line *l, size_t nl,
			 int (*parse)(struct scx_json_doc *, const char *, size_t))
{
	double t0 = cpu_now();

	for (size_t i = 0; i < nl; i++)
		if (parse(d, l[i].s, l[i].n))
			scx_die(1, "line %zu: %s at byte %zu", i + 1, d->err, d->err_off);
	return cpu_now() - t0;
}

/*
 * Every number token of every line, gathered into one JSON array, so that
 * the conversions are timed in one loop and not between parses.
 */
static void gather_numbers(const struct line *l, size_t nl, struct scx_buf *arr)
{
	struct scx_json_doc d = { 0 };

	scx_buf_add(arr, "[", 1);
	for (size_t i = 0; i < nl; i++) {
		scx_json_parse(&d, l[i].s, l[i].n);
		for (int j = 0; j < d.ntok; j++) {
			const jsmntok_t *tk = &d.tok[j];

			/* strtod's side copies them into a 64-byte buffer */
			if (tk->type != JSMN_PRIMITIVE || tk->end - tk->start >= 64 ||
			    !scx_json_is_number(d.js + tk->start, tk->end - tk->start))
				continue;
			if (arr->len > 1)
				scx_buf_add(arr, ",", 1);
			scx_buf_add(arr, d.js + tk->start, tk->end - tk->start);
		}
	}
	scx_buf_add(arr, "]", 1);
	scx_json_free(&d);
}

static double sum; /* of every number read: keeps the conversions alive */

/* CPU time of one conversion of every element of the array d. */
static double time_numbers(const struct scx_json_doc *d, bool with_strtod)
{
	double t0 = cpu_now();
	char buf[64];

	for (int j = 1; j < d->ntok; j++) {
		const jsmntok_t *tk = &d->tok[j];
		int n = tk->end - tk->start;
		double v = 0;

		if (with_strtod) {
			memcpy(buf, d->js + tk->start, n);
			buf[n] = 0;
			v = strtod(buf, NULL);
		} else {
			scx_json_double(d, j, &v);
		}
		sum += v;
	}
	return cpu_now() - t0;
}

static double min(double a, double b)
{
	return a < b ? a : b;
}

int main(int argc, char **argv)
{
	int reps = argc > 2 ? atoi(argv[2]) : 3;
	struct line *l = NULL;
	size_t nl = 0, cap = 0, bytes = 0, nums;
	char *text;
	FILE *f;
	long len;

	scx_set_prog("json");
	if (argc < 2)
		scx_die(2, "usage: json FILE [REPS]");
	if (!(f = fopen(argv[1], "rb")) || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0)
		scx_die(1, "cannot read '%s': %s", argv[1], strerror(errno));
	rewind(f);
	text = scx_xmalloc(len + 1);
	if (fread(text, 1, len, f) != (size_t)len)
		scx_die(1, "cannot read '%s'", argv[1]);
	fclose(f);
	for (char *p = text, *e; p < text + len; p = e + 1) {
		if (!(e = memchr(p, '\n', text + len - p)))
			e = text + len;
		if (e == p)
			continue;
		if (nl == cap)
			l = scx_xrealloc(l, (cap = cap ? cap * 2 : 1024) * sizeof(*l));
		l[nl++] = (struct line){ p, (size_t)(e - p) };
		bytes += e - p;
	}
	struct scx_json_doc dn = { 0 }, dr = { 0 }, nd = { 0 };
	struct scx_buf arr = { 0 };
	double one = 1e30, ref = 1e30, fast = 1e30, slow = 1e30;

	gather_numbers(l, nl, &arr);
	if (scx_json_parse(&nd, arr.data, arr.len))
		scx_die(1, "numbers: %s at byte %zu", nd.err, nd.err_off);
	nums = nd.ntok - 1;
	/* the two sides alternate, so that both see the same machine */
	for (int k = 0; k < reps; k++) {
		one = min(one, time_parse(&dn, l, nl, scx_json_parse));
		ref = min(ref, time_parse(&dr, l, nl, scx_json_parse_ref));
		fast = min(fast, time_numbers(&nd, false));
		slow = min(slow, time_numbers(&nd, true));
	}

	printf("lines %zu bytes %zu\n", nl, bytes);
	printf("one-pass %.1f MB/s\n", bytes / one / 1e6);
	printf("reference %.1f MB/s\n", bytes / ref / 1e6);
	printf("ratio %.2f\n", ref / one);
	printf("numbers %zu scx_json_double %.1f M/s strtod %.1f M/s ratio %.2f\n", nums,
	       nums / fast / 1e6, nums / slow / 1e6, slow / fast);
	if (sum == 12345.678)
		printf("\n");
	scx_json_free(&dn);
	scx_json_free(&dr);
	scx_json_free(&nd);
	scx_buf_free(&arr);
	free(l);
	free(text);
	return 0;
}
