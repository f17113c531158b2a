/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Report tables: what every scx-agg report produces, and how a table is
 * written as NDJSON, as an aligned human table, or as OpenMetrics text.
 * A report is a list of tables ("summary", "cpus", "threads"...), each with
 * typed columns, rows, and the count of rows left out by the limit.
 */
#ifndef SCX_REPORT_H
#define SCX_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/hist.h"
#include "core/util.h"

enum scx_col_kind {
	SCX_COL_STR,
	SCX_COL_INT,  /* int64 */
	SCX_COL_UINT, /* uint64 count */
	SCX_COL_NUM,  /* double */
	SCX_COL_NS,   /* uint64 ns; human: "1.2ms" */
	SCX_COL_PCT,  /* double, percent; human: "12.3%" */
	SCX_COL_DIST, /* struct scx_dist of ns */
};

#define SCX_COL_KEY 1 /* flag: identifies the row (OpenMetrics label) */

struct scx_col {
	const char *name; /* JSON key, snake_case */
	uint8_t kind;	  /* enum scx_col_kind */
	uint8_t flags;
};

union scx_cell {
	const char *s; /* owned by the table */
	int64_t i;
	uint64_t u;
	double d;
	struct scx_dist *dist; /* owned by the table */
};

#define SCX_TABLE_MAX_COLS 24

struct scx_table {
	const char *report; /* "wakeup-latency" */
	const char *name;   /* "summary", "cpus", ... */
	unsigned ncols;
	struct scx_col cols[SCX_TABLE_MAX_COLS];
	unsigned nrows, cap;
	union scx_cell *cells; /* nrows * ncols */
	uint64_t omitted;      /* rows left out by the limit */
	struct scx_table *next;
};

/* cols: "name:kind[:key]" strings, kind one of s i u n ns pct dist. */
struct scx_table *scx_table_new(const char *report, const char *name, const char *const *cols);
void scx_table_free(struct scx_table *t); /* the whole list */
/* Start a row; then set cells by column index.  Cells start 0 / "" / empty. */
unsigned scx_table_row(struct scx_table *t);
void scx_table_str(struct scx_table *t, unsigned row, unsigned col, const char *s);
void scx_table_int(struct scx_table *t, unsigned row, unsigned col, int64_t v);
void scx_table_uint(struct scx_table *t, unsigned row, unsigned col, uint64_t v);
void scx_table_num(struct scx_table *t, unsigned row, unsigned col, double v);
void scx_table_dist(struct scx_table *t, unsigned row, unsigned col, const struct scx_dist *d);
void scx_table_hist(struct scx_table *t, unsigned row, unsigned col, const struct scx_hist *h);
/*
 * A figure the input cannot give (its events are missing from the stream):
 * null in NDJSON, "-" in text, NaN in OpenMetrics, never 0.  Integer cells
 * hold SCX_CELL_UNKNOWN (a count or ns value no input reaches), numbers NaN,
 * distributions a count of SCX_CELL_UNKNOWN.  A NaN number is unknown too.
 */
#define SCX_CELL_UNKNOWN UINT64_MAX
void scx_table_unknown(struct scx_table *t, unsigned row, unsigned col);
/* Append tb to the list that starts at *head. */
void scx_table_append(struct scx_table **head, struct scx_table *tb);

/* Keep the first 'limit' rows (0 = all), counting the rest in omitted. */
void scx_table_limit(struct scx_table *t, unsigned limit);
/* Sort rows by a column, descending; ties by the key columns ascending, then in their order. */
void scx_table_sort_desc(struct scx_table *t, unsigned col);

struct scx_report_ctx {
	uint64_t seq, start_ns, end_ns;
};

struct scx_jw;
/*
 * A distribution as every NDJSON output of agg writes it, reports and
 * snapshots alike: {"count":N} and, when N > 0, min, avg (to 0.1 ns), p50,
 * p90, p99, p999 and max.  NULL is an empty one.
 */
void scx_table_jw_dist(struct scx_jw *w, const struct scx_dist *d);
/* One NDJSON line: {"type":"report","report":..,"tables":{..}} for a list. */
void scx_report_json(struct scx_buf *b, const struct scx_table *list,
		     const struct scx_report_ctx *c);
/* Aligned text with units, one block per table. */
void scx_report_text(struct scx_buf *b, const struct scx_table *list,
		     const struct scx_report_ctx *c);
/* OpenMetrics gauges scx_report_<report>_<table>_<column>{keys}. No "# EOF". */
void scx_report_openmetrics(struct scx_buf *b, const struct scx_table *list);

#endif
