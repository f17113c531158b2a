// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: any bytes through the stream reader into the aggregation
 * engine with every group, every report and every output format, at a tiny
 * interval so boundaries, gaps and out-of-order events are all exercised;
 * cgroup records name ids, and cgroups are folded and cut to a top 2.
 */
#include <stddef.h>
#include <stdint.h>

#include "agg/agg.h"
#include "agg/agg_ksnap.h"
#include "agg/prom.h"
#include "agg/table.h"
#include "stream/stream.h"
#include "core/util.h"

static struct scx_prom *prom; /* the cumulative exporter, per input */

static int emit(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	struct scx_buf *b = ctx;
	struct scx_report_ctx rc = { s->seq, s->start_ns, s->end_ns };

	scx_buf_reset(b);
	scx_agg_snap_json(b, s);
	scx_agg_snap_text(b, s);
	scx_agg_snap_openmetrics(b, s);
	scx_prom__add(prom, a, s);
	scx_prom__write(prom, b);
	for (unsigned i = 0; scx_agg_reports[i].name; i++) {
		struct scx_table *t;

		if (scx_agg__report(a, scx_agg_reports[i].name, &t))
			continue;
		scx_report_json(b, t, &rc);
		scx_report_text(b, t, &rc);
		scx_report_openmetrics(b, t);
		scx_table_free(t);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scx_reader *r = scx_reader__mem(data, size, "fuzz");
	struct scx_buf b = { 0 };
	struct scx_agg_opts o = {
		.interval_ns = 100000,
		.by = (1u << SCX_AGG_BY__COUNT) - 1,
		.emit = emit,
		.ctx = &b,
		.cgroup_top = 2,
		.cgroup_depth = 1,
	};
	struct scx_agg *a = NULL;
	struct scx_ksnap k = { 0 };
	struct scx_event e;
	char err[256];
	int st, n = 0;

	if (!r)
		return 0;
	prom = scx_prom__new(4);
	while ((st = scx_reader__next(r, &e)) != SCX_READ_END && st != SCX_READ_ERROR) {
		if (!a) {
			const struct scx_header *h = scx_reader__header(r);

			a = scx_agg__new(h ? h->topo : NULL, &o);
			if (!a)
				break;
		}
		if (st == SCX_READ_OTHER && scx_reader__doc(r)) {
			char path[SCX_CGROUP_PATH_MAX], why[256];
			uint64_t id;

			if (scx_cgroup_rec_parse(scx_reader__doc(r), &id, path, sizeof(path), why,
						 sizeof(why)) == 1)
				scx_agg__cgroup_name(a, id, path);
		}
		if (st == SCX_READ_EVENT && scx_agg__add(a, &e))
			break;
		/* kernel snapshots, as intervals of their own or in the engine's */
		if (st == SCX_READ_OTHER && scx_reader__doc(r) &&
		    scx_ksnap_is(scx_reader__doc(r)) &&
		    !scx_ksnap_from_json(scx_reader__doc(r), &k, err, sizeof(err)) &&
		    scx_agg__add_ksnap(a, &k, k.seq & 1))
			break;
		if (++n > 100000)
			break;
	}
	if (a) {
		scx_agg__note_lost(a, 1, 3);
		scx_agg__flush(a);
		scx_agg__free(a);
	}
	scx_reader__free(r);
	scx_ksnap_free(&k);
	scx_buf_free(&b);
	scx_prom__free(prom);
	return 0;
}
