// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON reader against its predecessor, in the same run: every line of
 * FILE parsed REPS times by scx_json_parse() (one pass) and by
 * scx_json_parse_ref() (jsmn, a counting pass when the token array is too
 * small, then the grammar checks); CPU time, best of REPS.  Then the numbers
 * of every line, gathered into one array, read with scx_json_double() and
 * with strtod().
 *   json FILE [REPS]
 * prints "<what> MB/s" lines and the ratios.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json-int.h"
#include "util.h"

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

/* Best CPU time of reps passes over every line with parse(). */
static double time_parse(const struct line *l, size_t nl, int reps,
			 int (*parse)(struct scx_json_doc *, const char *, size_t))
{
	struct scx_json_doc d = { 0 };
	double best = 1e30;

	for (int k = 0; k < reps; k++) {
		double t0 = cpu_now(), t;

		for (size_t i = 0; i < nl; i++)
			if (parse(&d, l[i].s, l[i].n))
				scx_die(1, "line %zu: %s at byte %zu", i + 1, d.err, d.err_off);
		t = cpu_now() - t0;
		best = t < best ? t : best;
	}
	scx_json_free(&d);
	return best;
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

/* Best CPU time of reps conversions of every element of the array d. */
static double time_numbers(const struct scx_json_doc *d, int reps, bool with_strtod)
{
	double best = 1e30, sum = 0;
	char buf[64];

	for (int k = 0; k < reps; k++) {
		double t0 = cpu_now(), t;

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
		t = cpu_now() - t0;
		best = t < best ? t : best;
	}
	return sum == 12345.678 ? 0 : best;	/* keep the sum alive */
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
	double one = time_parse(l, nl, reps, scx_json_parse);
	double ref = time_parse(l, nl, reps, scx_json_parse_ref);
	struct scx_buf arr = { 0 };
	struct scx_json_doc nd = { 0 };

	gather_numbers(l, nl, &arr);
	if (scx_json_parse(&nd, arr.data, arr.len))
		scx_die(1, "numbers: %s at byte %zu", nd.err, nd.err_off);
	nums = nd.ntok - 1;
	double fast = time_numbers(&nd, reps, false);
	double slow = time_numbers(&nd, reps, true);

	printf("lines %zu bytes %zu\n", nl, bytes);
	printf("one-pass %.1f MB/s\n", bytes / one / 1e6);
	printf("reference %.1f MB/s\n", bytes / ref / 1e6);
	printf("ratio %.2f\n", ref / one);
	printf("numbers %zu scx_json_double %.1f M/s strtod %.1f M/s ratio %.2f\n", nums,
	       nums / fast / 1e6, nums / slow / 1e6, slow / fast);
	scx_json_free(&nd);
	scx_buf_free(&arr);
	free(l);
	free(text);
	return 0;
}
