// SPDX-License-Identifier: GPL-2.0
/*
 * scx-prof library throughput on one core (thread CPU time, median of REPS):
 *   prof process FILE REPS   perf.script -> perf.jsonl lines, M lines/s
 *   prof extract FILE REPS   perf.jsonl -> groups + config, M records/s
 * FILE is read into memory first and fed in 1 MB chunks, as the tool reads it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prof/prof.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct scx_buf in = { 0 }, out = { 0 }, warn = { 0 };
	const size_t chunk = 1 << 20;
	char buf[65536], err[256];
	size_t n, lines = 0;
	double t[64];
	int reps;
	FILE *f;

	if (argc != 4 || (reps = atoi(argv[3])) < 1 || reps > 64) {
		fprintf(stderr, "usage: prof process|extract FILE REPS\n");
		return 2;
	}
	f = fopen(argv[2], "r");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)))
		scx_buf_add(&in, buf, n);
	fclose(f);
	for (size_t i = 0; i < in.len; i++)
		lines += in.data[i] == '\n';
	for (int r = 0; r < reps; r++) {
		double t0 = cpu_now();

		if (!strcmp(argv[1], "process")) {
			struct prof_process p = { 0 };

			for (size_t off = 0; off < in.len; off += chunk) {
				prof_process__feed(&p, in.data + off, SCX_MIN(chunk, in.len - off),
						   &out);
				scx_buf_reset(&out); /* written to the file here */
			}
			prof_process__finish(&p, &out);
			prof_process__free(&p);
		} else {
			struct prof_extract_opts o = { .threshold = 5.0 };
			struct prof_extract *x = prof_extract__new(&o, err, sizeof(err));

			for (size_t off = 0; off < in.len; off += chunk)
				if (prof_extract__feed(x, in.data + off,
						       SCX_MIN(chunk, in.len - off)))
					return fprintf(stderr, "%s\n", prof_extract__error(x)), 1;
			prof_extract__finish(x);
			scx_buf_reset(&out);
			prof_extract__config(x, &out, &warn);
			prof_extract__free(x);
		}
		t[r] = cpu_now() - t0;
	}
	qsort(t, (size_t)reps, sizeof(t[0]), dcmp);
	printf("%s: %zu lines, %zu bytes, median %.3f s, %.2fM lines/s, %.0f MB/s\n", argv[1],
	       lines, in.len, t[reps / 2], (double)lines / t[reps / 2] / 1e6,
	       (double)in.len / t[reps / 2] / 1e6);
	scx_buf_free(&in);
	scx_buf_free(&out);
	scx_buf_free(&warn);
	return 0;
}
