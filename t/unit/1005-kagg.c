// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel aggregation, without a kernel: the bucket function of
 * bpf/aggregate.h is lib/core/hist's, the slots the programs fill fold into
 * a kernel snapshot, the snapshot survives its JSON form, and the histogram
 * rebuilt from it is the one lib/core/hist builds from the same values,
 * bucket for bucket, with the same count, sum, min, max and quantiles.
 * Bad records are refused with the key and byte offset.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bpf/aggregate.h"
#include "capture/kagg.h"
#include "core/hist.h"
#include "core/util.h"
#include "stream/ksnap.h"
#include "tap.h"

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* A value of about 2^bits. */
static uint64_t rnd_bits(unsigned bits)
{
	return bits ? (rnd() >> (64 - bits)) | (1ull << (bits - 1)) : 0;
}

static void bucket_layout(void)
{
	unsigned bad = 0, clamped_ok = 1;

	for (unsigned bits = 0; bits <= 37; bits++) {
		for (unsigned k = 0; k < 2000; k++) {
			uint64_t v = rnd_bits(bits) - (k & 1);

			if (v >> 37)
				continue;
			if (kagg_bucket(v) != scx_hist_index(v))
				bad++;
		}
		/* both edges of every octave */
		if (bits && bits < 38) {
			uint64_t lo = 1ull << (bits - 1), hi = (1ull << bits) - 1;

			bad += kagg_bucket(lo) != scx_hist_index(lo);
			bad += hi >> 37 ? 0 : kagg_bucket(hi) != scx_hist_index(hi);
		}
	}
	is_int(bad, 0, "kagg_bucket() is scx_hist_index() below 2^37 ns");
	is_int(kagg_bucket((1ull << 37) - 1), KAGG_NR_BUCKETS - 1,
	       "2^37 - 1 ns is the last bucket");
	for (unsigned bits = 38; bits <= 64; bits++)
		clamped_ok &= kagg_bucket(rnd_bits(bits)) == KAGG_NR_BUCKETS - 1;
	ok(clamped_ok, "larger values are clamped to the last bucket");
	is_int(KAGG_NR_BUCKETS - 1 < SCX_HIST_NR_BUCKETS, 1, "the kernel's buckets are hist's");
}

static bool same_hist(const struct scx_hist *a, const struct scx_hist *b, const char *what)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < SCX_HIST_NR_BUCKETS; i++)
		bad += scx_hist_bucket_count(a, i) != scx_hist_bucket_count(b, i);
	is_int(bad, 0, "%s: every bucket count agrees", what);
	ok(a->count == b->count && a->sum == b->sum && a->min == b->min && a->max == b->max,
	   "%s: count %llu/%llu sum %llu/%llu min %llu/%llu max %llu/%llu", what,
	   (unsigned long long)a->count, (unsigned long long)b->count, (unsigned long long)a->sum,
	   (unsigned long long)b->sum, (unsigned long long)a->min, (unsigned long long)b->min,
	   (unsigned long long)a->max, (unsigned long long)b->max);
	for (double q = 0; q <= 1.0; q += 0.125)
		if (scx_hist_quantile(a, q) != scx_hist_quantile(b, q))
			return ok(0, "%s: quantile %.3f differs", what, q);
	return ok(1, "%s: quantiles agree", what);
}

/*
 * Fill two CPUs' slots with the kernel's own code, fold, encode, decode,
 * rebuild: the histograms must be those of the values themselves.  n is
 * the values per CPU (a few stay in hist's inline form, many spill).
 */
static void round_trip(unsigned n, const char *what)
{
	struct kagg_slot *slots = scx_xcalloc(2, sizeof(*slots));
	struct scx_hist want[2][KH__COUNT], got;
	struct scx_ksnap k = { 0 }, back = { 0 };
	struct scx_json_doc d = { 0 };
	struct scx_buf b = { 0 };
	char err[256], name[96];

	for (unsigned c = 0; c < 2; c++)
		for (unsigned h = 0; h < KH__COUNT; h++)
			scx_hist_init(&want[c][h]);
	/*
	 * As the programs do: a woken task's delay goes to KH_WAKE_LAT only,
	 * a preempted one's to KH_RQ_DELAY only, and the record's rq_delay
	 * is both (bpf/aggregate.h).
	 */
	for (unsigned c = 0; c < 2; c++)
		for (unsigned h = 0; h < KH__COUNT; h++)
			for (unsigned i = 0; i < n; i++) {
				uint64_t v = rnd_bits(rnd() % 36);

				kagg_hist_add(&slots[c], h, v);
				scx_hist_add(&want[c][h], v);
				if (h == KH_WAKE_LAT)
					scx_hist_add(&want[c][KH_RQ_DELAY], v);
			}
	slots[1].c[KC_SWITCHES] = 12345;
	scx_kagg_fold_slots(slots, 2, &k);
	k.seq = 7;
	k.start_ns = 1000;
	k.end_ns = 2000;
	k.end_skew_ns = 17;
	k.late_intervals = 5;
	k.dropped_tasks = 3;
	k.cpus[1].c[SCX_KS_WC_LOSS_NS] = 99;
	ok(slots[0].h[0].count == 0 && slots[0].h[0].used == 0 && slots[1].c[KC_SWITCHES] == 0,
	   "%s: folding empties the slots", what);
	{
		unsigned nz = 0;

		for (unsigned c = 0; c < 2; c++)
			for (unsigned h = 0; h < KH__COUNT; h++)
				for (unsigned i = 0; i < KAGG_NR_BUCKETS; i++)
					nz += slots[c].b[h][i] != 0;
		is_int(nz, 0, "%s: ... every bucket of them", what);
	}
	scx_ksnap_to_json(&b, &k);
	ok(!scx_json_parse(&d, b.data, b.len) && scx_ksnap_is(&d),
	   "%s: the record is JSON of its type", what);
	ok(!scx_ksnap_from_json(&d, &back, err, sizeof(err)), "%s: decodes (%s)", what, err);
	ok(back.seq == 7 && back.start_ns == 1000 && back.end_ns == 2000 &&
		   back.end_skew_ns == 17 && back.late_intervals == 5 && back.dropped_tasks == 3 &&
		   back.nr_cpus == 2 && back.cpus[1].c[SCX_KS_SWITCHES] == 12345 &&
		   back.cpus[1].c[SCX_KS_WC_LOSS_NS] == 99,
	   "%s: header and counters survive", what);
	for (unsigned c = 0; c < 2 && back.nr_cpus == 2; c++)
		for (unsigned h = 0; h < KH__COUNT; h++) {
			scx_hist_init(&got);
			scx_ksnap_hist_to(&back.cpus[c].h[h], &got);
			snprintf(name, sizeof(name), "%s: cpu %u %s", what, c,
				 scx_ksnap_hist_names[h]);
			same_hist(&got, &want[c][h], name);
			/* and merged into a histogram holding events already */
			scx_hist_add(&got, 5000);
			scx_hist_add(&want[c][h], 5000);
			snprintf(name, sizeof(name), "%s: cpu %u %s + an event", what, c,
				 scx_ksnap_hist_names[h]);
			same_hist(&got, &want[c][h], name);
			scx_hist_free(&got);
			scx_hist_free(&want[c][h]);
		}
	scx_json_free(&d);
	scx_buf_free(&b);
	scx_ksnap_free(&k);
	scx_ksnap_free(&back);
	free(slots);
}

static void refuses(const char *json, const char *want, const char *what)
{
	struct scx_json_doc d = { 0 };
	struct scx_ksnap k = { 0 };
	char err[256] = "";
	int rc = -1;

	if (!scx_json_parse(&d, json, strlen(json)))
		rc = scx_ksnap_from_json(&d, &k, err, sizeof(err));
	ok(rc < 0 && strstr(err, want), "refuses %s: '%s'", what, err);
	scx_json_free(&d);
	scx_ksnap_free(&k);
}

#define HDR \
	"{\"type\":\"kernel_snapshot\",\"seq\":0,\"start_ns\":1,\"end_ns\":2,\"dropped_tasks\":0," \
	"\"dropped_cpu\":0,\"missed\":0,\"cpus\":"
#define H0 "{\"count\":0,\"sum\":0,\"min\":0,\"max\":0,\"clamped\":0,\"b\":[]}"
#define CNT \
	"\"switches\":1,\"voluntary\":1,\"involuntary\":0,\"slices\":1,\"wakeups\":0," \
	"\"wakeups_new\":0,\"migrations\":0,\"migr_cross_llc\":0,\"migr_cross_node\":0," \
	"\"busy_ns\":0,\"idle_ns\":0,\"rq_depth_ns\":0,\"rq_depth_max\":0,\"wc_loss_ns\":0"
#define CPU0(wl) "{\"cpu\":0," CNT ",\"wake_lat\":" wl ",\"rq_delay\":" H0 ",\"slice\":" H0 "}"

static void bad_input(void)
{
	struct scx_json_doc d = { 0 };
	struct scx_ksnap k = { 0 };
	char err[256] = "";
	const char *good =
		HDR "[" CPU0("{\"count\":3,\"sum\":300,\"min\":90,\"max\":110,\"clamped\":0,"
			     "\"b\":[90,1,100,2]}") "]}";

	ok(!scx_json_parse(&d, good, strlen(good)) &&
		   !scx_ksnap_from_json(&d, &k, err, sizeof(err)) && k.nr_cpus == 1 &&
		   k.cpus[0].h[0].nr == 2,
	   "a hand-written record decodes (%s)", err);
	scx_json_free(&d);
	scx_ksnap_free(&k);
	refuses(HDR "[" CPU0("{\"count\":4,\"sum\":300,\"min\":90,\"max\":110,\"clamped\":0,"
			     "\"b\":[90,1,100,2]}") "]}",
		"do not add up to \"count\"", "a wrong count");
	refuses(HDR "[" CPU0("{\"count\":3,\"sum\":300,\"min\":90,\"max\":110,\"clamped\":0,"
			     "\"b\":[100,1,90,2]}") "]}",
		"out of order", "unsorted buckets");
	refuses(HDR "[" CPU0("{\"count\":3,\"sum\":300,\"min\":90,\"max\":110,\"clamped\":0,"
			     "\"b\":[99999,3]}") "]}",
		"out of range", "a bucket past the layout");
	refuses(HDR "[" CPU0("{\"count\":1,\"sum\":1,\"min\":1,\"max\":1,\"clamped\":0,"
			     "\"b\":[1]}") "]}",
		"pairs", "an odd bucket list");
	refuses(HDR "[" CPU0(H0) "," CPU0(H0) "]}", "twice", "a cpu twice");
	refuses(HDR "[{\"cpu\":0}]}", "\"switches\"", "a missing counter");
	refuses(HDR "[{\"cpu\":-1}]}", "\"cpu\"", "a negative cpu");
	refuses("{\"type\":\"kernel_snapshot\",\"seq\":0,\"start_ns\":5,\"end_ns\":2,\"dropped_tasks\":0,"
		"\"dropped_cpu\":0,\"missed\":0,\"cpus\":[]}",
		"before", "time running backwards");
	refuses(HDR "{}}", "byte 110", "cpus not an array, with its byte offset");
	refuses("{\"type\":\"kernel_snapshot\",\"seq\":0,\"start_ns\":1,\"end_ns\":2,"
		"\"end_skew_ns\":-1,\"dropped_tasks\":0,\"dropped_cpu\":0,\"missed\":0,\"cpus\":[]}",
		"\"end_skew_ns\"", "a negative boundary skew");
	refuses("{\"type\":\"kernel_snapshot\",\"seq\":0,\"start_ns\":1,\"end_ns\":2,"
		"\"late_intervals\":\"x\",\"dropped_tasks\":0,\"dropped_cpu\":0,\"missed\":0,"
		"\"cpus\":[]}",
		"\"late_intervals\"", "a late count that is no number");
}

/*
 * Records scx-events wrote (t/data) decode and encode to the same bytes, so
 * the writer and reader agree on the record as shipped, not only on what
 * they make of each other.  Those records predate "end_skew_ns", which the
 * writer adds (0 when absent) before "dropped_tasks".
 */
static void same_bytes(const char *name)
{
	const char *src = getenv("SCX_SRC");
	struct scx_json_doc d = { 0 };
	struct scx_ksnap k = { 0 };
	struct scx_buf b = { 0 };
	char path[4200], err[256] = "", *line = NULL;
	size_t cap = 0;
	unsigned n = 0, same = 0;
	ssize_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/t/data/%s", src ? src : ".", name);
	f = fopen(path, "r");
	if (!ok(f, "open %s", path))
		return;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			len--;
		if (scx_json_parse(&d, line, (size_t)len) || !scx_ksnap_is(&d))
			continue;
		n++;
		scx_buf_reset(&b);
		if (!scx_ksnap_from_json(&d, &k, err, sizeof(err))) {
			const char *skew = ",\"end_skew_ns\":0",
				   *at = strstr(line, ",\"dropped_tasks\"");
			size_t head = at ? (size_t)(at - line) : 0, ns = strlen(skew);

			scx_ksnap_to_json(&b, &k);
			same += at && !strstr(line, "end_skew_ns") && b.len == (size_t)len + ns &&
				!memcmp(b.data, line, head) && !memcmp(b.data + head, skew, ns) &&
				!memcmp(b.data + head + ns, at, (size_t)len - head);
		}
	}
	ok(n && same == n, "%s: %u of %u snapshots re-encode to their bytes (%s)", name, same, n,
	   err);
	fclose(f);
	free(line);
	scx_json_free(&d);
	scx_ksnap_free(&k);
	scx_buf_free(&b);
}

/* Keys in another order than the writer's read the same (the reader's lookup falls back). */
static void any_key_order(void)
{
	const char *a = HDR "[" CPU0("{\"count\":3,\"sum\":300,\"min\":90,\"max\":110,"
				     "\"clamped\":1,\"b\":[90,1,100,2]}") "]}";
	const char *b = "{\"cpus\":[{\"slice\":" H0 ",\"rq_delay\":" H0 ",\"wake_lat\":"
			"{\"b\":[90,1,100,2],\"clamped\":1,\"max\":110,\"min\":90,\"sum\":300,"
			"\"count\":3},\"wc_loss_ns\":0,\"rq_depth_max\":0,\"rq_depth_ns\":0,"
			"\"idle_ns\":0,\"busy_ns\":0,\"migr_cross_node\":0,\"migr_cross_llc\":0,"
			"\"migrations\":0,\"wakeups_new\":0,\"wakeups\":0,\"slices\":1,"
			"\"involuntary\":0,\"voluntary\":1,\"switches\":1,\"cpu\":0}],"
			"\"missed\":0,\"dropped_cpu\":0,\"dropped_tasks\":0,\"end_ns\":2,"
			"\"start_ns\":1,\"seq\":0,\"type\":\"kernel_snapshot\"}";
	struct scx_json_doc d = { 0 };
	struct scx_ksnap x = { 0 }, y = { 0 };
	struct scx_buf bx = { 0 }, by = { 0 };
	char err[256] = "";

	ok(!scx_json_parse(&d, a, strlen(a)) && !scx_ksnap_from_json(&d, &x, err, sizeof(err)) &&
		   !scx_json_parse(&d, b, strlen(b)) &&
		   !scx_ksnap_from_json(&d, &y, err, sizeof(err)),
	   "both orders decode (%s)", err);
	scx_ksnap_to_json(&bx, &x);
	scx_ksnap_to_json(&by, &y);
	ok(bx.len && bx.len == by.len && !memcmp(bx.data, by.data, bx.len) &&
		   y.cpus[0].h[0].clamped == 1 && y.cpus[0].c[SCX_KS_SWITCHES] == 1,
	   "keys in reverse order read as the writer's order does");
	scx_json_free(&d);
	scx_ksnap_free(&x);
	scx_ksnap_free(&y);
	scx_buf_free(&bx);
	scx_buf_free(&by);
}

/*
 * rq_delay folds from its two halves when either is empty: min, max,
 * count, sum and clamped come from the half that has values.
 */
static void rq_delay_halves(void)
{
	static const struct {
		uint64_t woken[2], preempted[2];
		uint64_t count, sum, min, max;
		const char *what;
	} cases[] = {
		{ { 5, 900 }, { 0, 0 }, 2, 905, 5, 900, "woken half only" },
		{ { 0, 0 },
		  { 7, 1ull << 38 },
		  2,
		  7 + (1ull << 38),
		  7,
		  1ull << 38,
		  "preempted half only" },
		{ { 100, 0 }, { 3, 0 }, 2, 103, 3, 100, "both halves" },
	};

	for (unsigned i = 0; i < SCX_ARRAY_SIZE(cases); i++) {
		struct kagg_slot *sl = scx_xcalloc(1, sizeof(*sl));
		struct scx_ksnap k = { 0 };
		const struct scx_ksnap_hist *rq, *wl;

		for (unsigned j = 0; j < 2; j++) {
			if (cases[i].woken[j])
				kagg_hist_add(sl, KH_WAKE_LAT, cases[i].woken[j]);
			if (cases[i].preempted[j])
				kagg_hist_add(sl, KH_RQ_DELAY, cases[i].preempted[j]);
		}
		scx_kagg_fold_slots(sl, 1, &k);
		rq = &k.cpus[0].h[SCX_KSH_RQ_DELAY];
		wl = &k.cpus[0].h[SCX_KSH_WAKE_LAT];
		ok(rq->count == cases[i].count && rq->sum == cases[i].sum &&
			   rq->min == cases[i].min && rq->max == cases[i].max &&
			   rq->clamped == (cases[i].max >> 37 ? 1u : 0u),
		   "%s: rq_delay count %" PRIu64 " sum %" PRIu64 " min %" PRIu64 " max %" PRIu64,
		   cases[i].what, rq->count, rq->sum, rq->min, rq->max);
		is_int(wl->count, (cases[i].woken[0] != 0) + (cases[i].woken[1] != 0),
		       "%s: wake_lat holds the woken half only", cases[i].what);
		scx_ksnap_free(&k);
		free(sl);
	}
}

/*
 * A program the grace did not wait out (a vCPU stopped mid-program) leaves
 * a value in its bucket but not in the header, or the reverse.  The record
 * keeps the buckets, whole for any reader, and counts the values set right
 * in missed.  (check-scx, 2026-11-29: count 166 against buckets of 167,
 * and scx-agg refused the whole capture.)
 */
static void torn_values(void)
{
	struct kagg_slot *sl = scx_xcalloc(1, sizeof(*sl));
	struct scx_ksnap k = { 0 };
	struct scx_json_doc d = { 0 };
	struct scx_ksnap back = { 0 };
	struct scx_buf b = { 0 };
	const struct scx_ksnap_hist *sh, *wl;
	char err[256] = "";

	kagg_hist_add(sl, KH_SLICE, 1000);
	kagg_hist_add(sl, KH_SLICE, 2000);
	sl->h[KH_SLICE].count--; /* the second one's header update came after the read */
	kagg_hist_add(sl, KH_WAKE_LAT, 500);
	sl->h[KH_WAKE_LAT].count++; /* a header update whose bucket came after the read */
	scx_kagg_fold_slots(sl, 1, &k);
	sh = &k.cpus[0].h[SCX_KSH_SLICE];
	wl = &k.cpus[0].h[SCX_KSH_WAKE_LAT];
	ok(sh->count == 2 && wl->count == 1,
	   "torn: the counts are the buckets' (%" PRIu64 ", %" PRIu64 ")", sh->count, wl->count);
	/* slice 1, wake_lat 1, and rq_delay, which folds wake_lat in, 1 */
	is_int(k.missed, 3, "torn: the values set right are counted in missed");
	scx_ksnap_to_json(&b, &k);
	ok(!scx_json_parse(&d, b.data, b.len) && !scx_ksnap_from_json(&d, &back, err, sizeof(err)),
	   "torn: the record reads back (%s)", err);
	scx_json_free(&d);
	scx_ksnap_free(&back);
	scx_ksnap_free(&k);
	scx_buf_free(&b);
	free(sl);
}

int main(void)
{
	bucket_layout();
	round_trip(3, "inline");
	round_trip(5000, "spilled");
	rq_delay_halves();
	torn_values();
	bad_input();
	same_bytes("kagg-cgroups.ndjson");
	any_key_order();
	return done_testing();
}
