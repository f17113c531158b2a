// SPDX-License-Identifier: GPL-2.0
/* Report tables and their three renderings (report.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "agg/table.h"

struct scx_table *scx_table_new(const char *report, const char *name, const char *const *cols)
{
	struct scx_table *t = scx_xcalloc(1, sizeof(*t));
	static const struct {
		const char *k;
		uint8_t kind;
	} kinds[] = {
		{ "s", SCX_COL_STR },	  { "i", SCX_COL_INT }, { "u", SCX_COL_UINT },
		{ "n", SCX_COL_NUM },	  { "ns", SCX_COL_NS }, { "pct", SCX_COL_PCT },
		{ "dist", SCX_COL_DIST },
	};

	t->report = report;
	t->name = name;
	for (; *cols && t->ncols < SCX_TABLE_MAX_COLS; cols++) {
		struct scx_col *c = &t->cols[t->ncols++];
		const char *p = strchr(*cols, ':'), *q;
		size_t kl;

		/* column names live in static storage or in the caller's buffer: copy */
		c->name = strndup(*cols, p ? (size_t)(p - *cols) : strlen(*cols));
		if (!p)
			continue;
		q = strchr(p + 1, ':');
		kl = q ? (size_t)(q - p - 1) : strlen(p + 1);
		for (size_t i = 0; i < SCX_ARRAY_SIZE(kinds); i++)
			if (strlen(kinds[i].k) == kl && !strncmp(kinds[i].k, p + 1, kl))
				c->kind = kinds[i].kind;
		if (q && !strcmp(q + 1, "key"))
			c->flags |= SCX_COL_KEY;
	}
	return t;
}

static void free_cells(struct scx_table *t, unsigned from, unsigned to)
{
	for (unsigned r = from; r < to; r++) {
		for (unsigned c = 0; c < t->ncols; c++) {
			union scx_cell *x = &t->cells[r * t->ncols + c];

			if (t->cols[c].kind == SCX_COL_STR)
				free((char *)x->s);
			else if (t->cols[c].kind == SCX_COL_DIST)
				free(x->dist);
		}
	}
}

void scx_table_free(struct scx_table *t)
{
	while (t) {
		struct scx_table *next = t->next;

		free_cells(t, 0, t->nrows);
		for (unsigned c = 0; c < t->ncols; c++)
			free((char *)t->cols[c].name);
		free(t->cells);
		free(t);
		t = next;
	}
}

unsigned scx_table_row(struct scx_table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->cells = scx_xrealloc(t->cells, (size_t)t->cap * t->ncols * sizeof(*t->cells));
	}
	memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof(*t->cells));
	return t->nrows++;
}

static union scx_cell *cell(struct scx_table *t, unsigned r, unsigned c)
{
	return &t->cells[r * t->ncols + c];
}

void scx_table_str(struct scx_table *t, unsigned r, unsigned c, const char *s)
{
	free((char *)cell(t, r, c)->s);
	cell(t, r, c)->s = scx_xstrdup(s ? s : "");
}

void scx_table_int(struct scx_table *t, unsigned r, unsigned c, int64_t v)
{
	cell(t, r, c)->i = v;
}
void scx_table_uint(struct scx_table *t, unsigned r, unsigned c, uint64_t v)
{
	cell(t, r, c)->u = v;
}
void scx_table_num(struct scx_table *t, unsigned r, unsigned c, double v)
{
	cell(t, r, c)->d = v;
}

void scx_table_dist(struct scx_table *t, unsigned r, unsigned c, const struct scx_dist *d)
{
	if (!cell(t, r, c)->dist)
		cell(t, r, c)->dist = scx_xmalloc(sizeof(*d));
	*cell(t, r, c)->dist = *d;
}

void scx_table_hist(struct scx_table *t, unsigned r, unsigned c, const struct scx_hist *h)
{
	struct scx_dist d;

	scx_hist_dist(h, &d);
	scx_table_dist(t, r, c, &d);
}

void scx_table_unknown(struct scx_table *t, unsigned r, unsigned c)
{
	static const struct scx_dist unknown = { .count = SCX_CELL_UNKNOWN };

	switch (t->cols[c].kind) {
	case SCX_COL_INT:
		cell(t, r, c)->i = INT64_MIN;
		break;
	case SCX_COL_UINT:
	case SCX_COL_NS:
		cell(t, r, c)->u = SCX_CELL_UNKNOWN;
		break;
	case SCX_COL_NUM:
	case SCX_COL_PCT:
		cell(t, r, c)->d = NAN;
		break;
	case SCX_COL_DIST:
		scx_table_dist(t, r, c, &unknown);
		break;
	}
}

/* Whether x, a cell of column col, holds a figure the input cannot give. */
static bool cell_unknown(const struct scx_col *col, const union scx_cell *x)
{
	switch (col->kind) {
	case SCX_COL_INT:
		return x->i == INT64_MIN;
	case SCX_COL_UINT:
	case SCX_COL_NS:
		return x->u == SCX_CELL_UNKNOWN;
	case SCX_COL_NUM:
	case SCX_COL_PCT:
		return isnan(x->d);
	case SCX_COL_DIST:
		return x->dist && x->dist->count == SCX_CELL_UNKNOWN;
	default:
		return false;
	}
}

void scx_table_append(struct scx_table **head, struct scx_table *tb)
{
	while (*head)
		head = &(*head)->next;
	*head = tb;
}

void scx_table_limit(struct scx_table *t, unsigned limit)
{
	if (!limit || t->nrows <= limit)
		return;
	free_cells(t, limit, t->nrows);
	t->omitted += t->nrows - limit;
	t->nrows = limit;
}

static double sort_key(const struct scx_table *t, unsigned r, unsigned c)
{
	const union scx_cell *x = &t->cells[r * t->ncols + c];

	if (cell_unknown(&t->cols[c], x))
		return NAN; /* sorts last */
	switch (t->cols[c].kind) {
	case SCX_COL_INT:
		return (double)x->i;
	case SCX_COL_UINT:
	case SCX_COL_NS:
		return (double)x->u;
	case SCX_COL_NUM:
	case SCX_COL_PCT:
		return x->d;
	case SCX_COL_DIST:
		return x->dist ? (double)x->dist->max : 0;
	default:
		return 0;
	}
}

struct sort_row {
	double key;
	unsigned i;
};

static _Thread_local const struct scx_table *sort_table; /* for cmp_sort_row */

/* Rows r and q by their key columns (OpenMetrics labels), in column order. */
static int cmp_keys(const struct scx_table *t, unsigned r, unsigned q)
{
	for (unsigned c = 0; c < t->ncols; c++) {
		const union scx_cell *x = &t->cells[r * t->ncols + c],
				     *y = &t->cells[q * t->ncols + c];
		int d;

		if (!(t->cols[c].flags & SCX_COL_KEY))
			continue;
		switch (t->cols[c].kind) {
		case SCX_COL_STR:
			d = strcmp(x->s ? x->s : "", y->s ? y->s : "");
			break;
		case SCX_COL_INT:
			d = x->i < y->i ? -1 : x->i > y->i;
			break;
		case SCX_COL_UINT:
		case SCX_COL_NS:
			d = x->u < y->u ? -1 : x->u > y->u;
			break;
		default:
			d = 0;
			break;
		}
		if (d)
			return d;
	}
	return 0;
}

/*
 * Descending value, then ascending key columns, then ascending row: ties
 * come out in one order whatever order the rows were added in (the agg
 * tables add them in hash-table order).
 */
static int cmp_sort_row(const void *a, const void *b)
{
	const struct sort_row *x = a, *y = b;
	int d;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	if ((d = cmp_keys(sort_table, x->i, y->i)))
		return d;
	return x->i < y->i ? -1 : x->i > y->i;
}

void scx_table_sort_desc(struct scx_table *t, unsigned col)
{
	/* pair tables reach 65536 rows: n log n, never n squared */
	struct sort_row *perm = scx_xmalloc(t->nrows * sizeof(*perm) + 1);
	union scx_cell *nc;

	for (unsigned i = 0; i < t->nrows; i++) {
		perm[i].key = sort_key(t, i, col);
		if (perm[i].key != perm[i].key)
			perm[i].key = -HUGE_VAL; /* NaN sorts last, and compares */
		perm[i].i = i;
	}
	sort_table = t;
	qsort(perm, t->nrows, sizeof(*perm), cmp_sort_row);
	nc = scx_xmalloc((size_t)t->cap * t->ncols * sizeof(*nc) + 1);
	for (unsigned i = 0; i < t->nrows; i++)
		memcpy(&nc[i * t->ncols], &t->cells[perm[i].i * t->ncols], t->ncols * sizeof(*nc));
	free(t->cells);
	t->cells = nc;
	free(perm);
}

/* ---- NDJSON ---------------------------------------------------------------------- */

void scx_table_jw_dist(struct scx_jw *w, const struct scx_dist *d)
{
	scx_jw_obj_begin(w);
	scx_jw_kuint(w, "count", d ? d->count : 0);
	if (d && d->count) {
		scx_jw_kuint(w, "min", d->min);
		scx_jw_key(w, "avg");
		scx_jw_num(w, round(d->avg * 10) / 10);
		scx_jw_kuint(w, "p50", d->p50);
		scx_jw_kuint(w, "p90", d->p90);
		scx_jw_kuint(w, "p99", d->p99);
		scx_jw_kuint(w, "p999", d->p999);
		scx_jw_kuint(w, "max", d->max);
	}
	scx_jw_obj_end(w);
}

static void json_cell(struct scx_jw *w, const struct scx_col *col, const union scx_cell *x)
{
	if (cell_unknown(col, x)) {
		scx_jw_null(w);
		return;
	}
	switch (col->kind) {
	case SCX_COL_STR:
		scx_jw_str(w, x->s ? x->s : "");
		break;
	case SCX_COL_INT:
		scx_jw_int(w, x->i);
		break;
	case SCX_COL_UINT:
	case SCX_COL_NS:
		scx_jw_uint(w, x->u);
		break;
	case SCX_COL_NUM:
	case SCX_COL_PCT:
		scx_jw_num(w, x->d);
		break;
	case SCX_COL_DIST:
		scx_table_jw_dist(w, x->dist);
		break;
	}
}

void scx_report_json(struct scx_buf *b, const struct scx_table *list,
		     const struct scx_report_ctx *c)
{
	struct scx_jw w;

	if (!list)
		return;
	scx_jw_init(&w, b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "type", "report");
	scx_jw_kstr(&w, "report", list->report);
	scx_jw_kuint(&w, "seq", c->seq);
	scx_jw_kuint(&w, "start_ns", c->start_ns);
	scx_jw_kuint(&w, "end_ns", c->end_ns);
	scx_jw_key(&w, "tables");
	scx_jw_obj_begin(&w);
	for (const struct scx_table *t = list; t; t = t->next) {
		scx_jw_key(&w, t->name);
		scx_jw_obj_begin(&w);
		scx_jw_key(&w, "rows");
		scx_jw_arr_begin(&w);
		for (unsigned r = 0; r < t->nrows; r++) {
			scx_jw_obj_begin(&w);
			for (unsigned k = 0; k < t->ncols; k++) {
				scx_jw_key(&w, t->cols[k].name);
				json_cell(&w, &t->cols[k], &t->cells[r * t->ncols + k]);
			}
			scx_jw_obj_end(&w);
		}
		scx_jw_arr_end(&w);
		scx_jw_kuint(&w, "omitted", t->omitted);
		scx_jw_obj_end(&w);
	}
	scx_jw_obj_end(&w);
	scx_jw_obj_end(&w);
	scx_buf_add(b, "\n", 1);
}

/* ---- text ------------------------------------------------------------------------ */

#define MAXW 80

static void fmt_num(char *buf, size_t n, double d)
{
	if (fabs(d) >= 1e6 || (d != 0 && fabs(d) < 0.01))
		snprintf(buf, n, "%.3g", d);
	else if (d == floor(d))
		snprintf(buf, n, "%.0f", d);
	else
		snprintf(buf, n, "%.2f", d);
}

/* Text of sub-column sub (DIST columns have four: avg p50 p99 max). */
static void text_cell(char *buf, size_t n, const struct scx_col *col, const union scx_cell *x,
		      int sub)
{
	if (cell_unknown(col, x)) {
		snprintf(buf, n, "-");
		return;
	}
	switch (col->kind) {
	case SCX_COL_STR:
		scx_printable_copy(buf, n, x->s ? x->s : "");
		break; /* comms */
	case SCX_COL_INT:
		snprintf(buf, n, "%lld", (long long)x->i);
		break;
	case SCX_COL_UINT:
		snprintf(buf, n, "%llu", (unsigned long long)x->u);
		break;
	case SCX_COL_NUM:
		fmt_num(buf, n, x->d);
		break;
	case SCX_COL_PCT:
		snprintf(buf, n, "%.1f%%", x->d);
		break;
	case SCX_COL_NS:
		scx_fmt_ns(x->u, buf, n);
		break;
	case SCX_COL_DIST:
		if (!x->dist || !x->dist->count) {
			snprintf(buf, n, "-");
			break;
		}
		if (sub == 0)
			scx_fmt_ns((uint64_t)x->dist->avg, buf, n);
		else
			scx_fmt_ns(sub == 1 ? x->dist->p50 :
				   sub == 2 ? x->dist->p99 :
					      x->dist->max,
				   buf, n);
		break;
	}
}

void scx_report_text(struct scx_buf *b, const struct scx_table *list,
		     const struct scx_report_ctx *c)
{
	static const char *const dsub[] = { "avg", "p50", "p99", "max" };

	for (const struct scx_table *t = list; t; t = t->next) {
		unsigned w[SCX_TABLE_MAX_COLS * 4] = { 0 }, nsub = 0;
		char buf[MAXW + 8], head[MAXW * 2];

		scx_buf_printf(b, "\n%s%s%s", strcmp(t->report, "snapshot") ? t->report : "",
			       strcmp(t->report, "snapshot") ? ": " : "by ", t->name);
		if (t->omitted)
			scx_buf_printf(b, " (%llu more not shown)", (unsigned long long)t->omitted);
		scx_buf_addstr(b, "\n");
		/* widths: header and every cell */
		for (unsigned k = 0, s = 0; k < t->ncols; k++) {
			int n = t->cols[k].kind == SCX_COL_DIST ? 4 : 1;

			for (int j = 0; j < n; j++, s++) {
				if (n > 1)
					snprintf(head, sizeof(head), "%s.%s", t->cols[k].name,
						 dsub[j]);
				else
					snprintf(head, sizeof(head), "%s", t->cols[k].name);
				w[s] = strlen(head);
				for (unsigned r = 0; r < t->nrows; r++) {
					text_cell(buf, sizeof(buf), &t->cols[k],
						  &t->cells[r * t->ncols + k], j);
					w[s] = SCX_MAX(w[s], (unsigned)strlen(buf));
				}
			}
			nsub = s + n;
		}
		(void)nsub;
		for (int row = -1; row < (int)t->nrows; row++) {
			for (unsigned k = 0, s = 0; k < t->ncols; k++) {
				int n = t->cols[k].kind == SCX_COL_DIST ? 4 : 1;
				bool left = t->cols[k].kind == SCX_COL_STR;

				for (int j = 0; j < n; j++, s++) {
					if (row < 0 && n > 1)
						snprintf(buf, sizeof(buf), "%s.%s", t->cols[k].name,
							 dsub[j]);
					else if (row < 0)
						snprintf(buf, sizeof(buf), "%s", t->cols[k].name);
					else
						text_cell(buf, sizeof(buf), &t->cols[k],
							  &t->cells[row * t->ncols + k], j);
					scx_buf_printf(b, "%s%*s", s ? "  " : "",
						       left ? -(int)w[s] : (int)w[s], buf);
				}
			}
			/* no trailing blanks */
			while (b->len && b->data[b->len - 1] == ' ')
				b->len--;
			scx_buf_addstr(b, "\n");
		}
	}
	(void)c;
}

/* ---- OpenMetrics ------------------------------------------------------------------ */

static void om_ident(struct scx_buf *b, const char *s)
{
	for (; *s; s++)
		scx_buf_printf(b, "%c",
			       (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ? *s : '_');
}

static void om_labels(struct scx_buf *b, const struct scx_table *t, unsigned r)
{
	bool first = true;

	scx_buf_addstr(b, "{");
	for (unsigned k = 0; k < t->ncols; k++) {
		const union scx_cell *x = &t->cells[r * t->ncols + k];
		char v[64];

		if (!(t->cols[k].flags & SCX_COL_KEY) && t->cols[k].kind != SCX_COL_STR)
			continue;
		if (!first)
			scx_buf_addstr(b, ",");
		first = false;
		om_ident(b, t->cols[k].name);
		scx_buf_addstr(b, "=");
		text_cell(v, sizeof(v), &t->cols[k], x, 0);
		scx_json_escape(b, v, strlen(v));
	}
	scx_buf_addstr(b, "}");
}

void scx_report_openmetrics(struct scx_buf *b, const struct scx_table *list)
{
	for (const struct scx_table *t = list; t; t = t->next) {
		for (unsigned k = 0; k < t->ncols; k++) {
			const struct scx_col *col = &t->cols[k];
			bool ns = col->kind == SCX_COL_NS || col->kind == SCX_COL_DIST;
			struct scx_buf name = { 0 };

			if (col->kind == SCX_COL_STR || (col->flags & SCX_COL_KEY) || !t->nrows)
				continue;
			scx_buf_addstr(&name, "scx_report_");
			om_ident(&name, t->report);
			scx_buf_addstr(&name, "_");
			om_ident(&name, t->name);
			scx_buf_addstr(&name, "_");
			om_ident(&name, col->name);
			if (ns && !(name.len > 3 && !memcmp(name.data + name.len - 3, "_ns", 3)))
				scx_buf_addstr(&name, "_seconds");
			else if (ns)
				name.len -= 3, scx_buf_addstr(&name, "_seconds");
			scx_buf_add(&name, "", 1);
			scx_buf_printf(b, "# TYPE %s %s\n", name.data,
				       col->kind == SCX_COL_DIST ? "summary" : "gauge");
			for (unsigned r = 0; r < t->nrows; r++) {
				const union scx_cell *x = &t->cells[r * t->ncols + k];

				if (col->kind == SCX_COL_DIST) {
					const struct scx_dist *d = x->dist;
					uint64_t qv[4];
					static const char *const q[] = {
						"0.5",
						"0.9",
						"0.99",
						"0.999",
					};

					if (!d || cell_unknown(col, x))
						continue;
					qv[0] = d->p50, qv[1] = d->p90, qv[2] = d->p99,
					qv[3] = d->p999;
					for (int i = 0; i < 4 && d->count; i++) {
						scx_buf_printf(b, "%s", name.data);
						om_labels(b, t, r);
						b->len--; /* reopen the label set */
						scx_buf_printf(b, "%squantile=\"%s\"} %.9g\n",
							       b->data[b->len - 1] == '{' ? "" :
											    ",",
							       q[i], qv[i] * 1e-9);
					}
					scx_buf_printf(b, "%s_count", name.data);
					om_labels(b, t, r);
					scx_buf_printf(b, " %llu\n", (unsigned long long)d->count);
					scx_buf_printf(b, "%s_sum", name.data);
					om_labels(b, t, r);
					scx_buf_printf(b, " %.9g\n", d->avg * d->count * 1e-9);
					continue;
				}
				scx_buf_printf(b, "%s", name.data);
				om_labels(b, t, r);
				if (cell_unknown(col, x)) {
					scx_buf_addstr(b, " NaN\n"); /* OpenMetrics' spelling */
					continue;
				}
				switch (col->kind) {
				case SCX_COL_INT:
					scx_buf_printf(b, " %lld\n", (long long)x->i);
					break;
				case SCX_COL_UINT:
					scx_buf_printf(b, " %llu\n", (unsigned long long)x->u);
					break;
				case SCX_COL_NS:
					scx_buf_printf(b, " %.9g\n", x->u * 1e-9);
					break;
				default:
					scx_buf_printf(b, " %.9g\n", x->d);
					break;
				}
			}
			scx_buf_free(&name);
		}
	}
}
