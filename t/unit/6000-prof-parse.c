// SPDX-License-Identifier: GPL-2.0
/*
 * scx-prof's pure parts: perf.script lines (real ones from the fixtures and
 * hand-made edge cases), page sizes, filters, perf.jsonl writing and strict
 * reading, hints (writer, dropped warning, reader, time join), the serde-style
 * pretty printer, comm stems and the scx_mitosis validator.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/prof.h"
#include "tap.h"

static char sbuf[8][512];

static const char *S(int i, struct scx_str s)
{
	snprintf(sbuf[i], sizeof(sbuf[i]), "%.*s", (int)s.n, s.p);
	return sbuf[i];
}

static int parse(const char *line, struct prof_sample *s, const char **why)
{
	return prof_script_parse(line, strlen(line), s, why);
}

static void test_lines(void)
{
	struct prof_sample s;
	const char *why;
	int r;

	r = parse(
		"      appworker1   30289/30295     788.451250:     7e0000000000 "
		"/workload.slice/workload-tw-8d3f1c2a-5e7b-4a19-9c60-2b4e7f0d1a3c.0.allotment.slice"
		"     556b4d1da2c9 worker (/opt/memwork/bin/memwork)       161db4000 4K",
		&s, &why);
	is_int(r, PROF_LINE_OK, "real line parses");
	is_str(S(0, s.comm), "appworker1", "comm trimmed");
	is_int(s.pid, 30289, "pid is perf's first number");
	is_int(s.tid, 30295, "tid is perf's second number");
	is_str(S(0, s.time), "788.451250", "time without ':'");
	is_str(S(0, s.addr), "7e0000000000", "addr");
	is_str(S(0, s.cgroup),
	       "/workload.slice/workload-tw-8d3f1c2a-5e7b-4a19-9c60-2b4e7f0d1a3c.0.allotment.slice",
	       "cgroup");
	is_str(S(0, s.ip), "556b4d1da2c9", "ip");
	is_str(S(0, s.sym), "worker", "sym");
	is_str(S(0, s.dso), "/opt/memwork/bin/memwork", "dso");
	is_str(S(0, s.phys), "161db4000", "phys_addr");
	is_int(s.page_size, 4096, "4K page");
	is_int(prof_sample_filter(&s), PROF_KEEP, "kept");

	r = parse("       io worker   30289/30299     788.453327:     7e0000001040 /w.slice     "
		  "556b4d1da2c9 worker (/opt/memwork/bin/memwork)       136961040 2M",
		  &s, &why);
	is_int(r, PROF_LINE_OK, "comm with a space");
	is_str(S(0, s.comm), "io worker", "comm keeps its space");
	is_int(s.page_size, 2 << 20, "2M page");

	r = parse("        a 1/2 b   100/200     1.000001:     1000 / ffff f (x) 10 1G", &s, &why);
	is_int(r, PROF_LINE_OK, "comm holding a N/N token");
	is_str(S(0, s.comm), "a 1/2 b", "comm is everything before the real PID/TID");
	is_int(s.pid, 100, "pid after the comm's N/N");
	is_int(s.page_size, 1ULL << 30, "1G page");

	r = parse(
		"          :30329   30323/30329     789.474116:                0 / ffffffff813a4413 "
		"finish_task_switch.isra.0 ([kernel.kallsyms])               0 N/A",
		&s, &why);
	is_int(r, PROF_LINE_OK, ":PID comm parses");
	is_str(S(0, s.comm), ":30329", ":PID comm");
	is_str(S(0, s.dso), "[kernel.kallsyms]", "kernel dso");
	is_int(s.page_size, 0, "N/A is 0");
	is_int(prof_sample_filter(&s), PROF_SKIP_NO_PHYS, "phys 0 skipped");

	r = parse(
		"         swapper       0/0         641.136479:                0 / ffffffff821f4dab "
		"pv_native_safe_halt ([kernel.kallsyms])          1000 N/A",
		&s, &why);
	is_int(prof_sample_filter(&s), PROF_SKIP_COMM, "swapper filtered");
	r = parse("            perf   1/2     1.0:     1 / 2 f (d) 1000 4K", &s, &why);
	is_int(prof_sample_filter(&s), PROF_SKIP_COMM, "perf filtered");
	r = parse("       perf-exec   1/2     1.0:     1 / 2 f (d) 1000 4K", &s, &why);
	is_int(prof_sample_filter(&s), PROF_KEEP, "perf-exec is not perf");

	r = parse("  app 1/2 3.0: 7000 /cg 4000 std::vector<int>::push_back(int const&) "
		  "[clone .cold] (/usr/lib/libfoo.so) 123000 4K",
		  &s, &why);
	is_int(r, PROF_LINE_OK, "C++ symbol");
	is_str(S(0, s.sym), "std::vector<int>::push_back(int const&) [clone .cold]",
	       "C++ symbol with parentheses and spaces");
	is_str(S(0, s.dso), "/usr/lib/libfoo.so", "dso after a C++ symbol");
	is_str(S(0, s.phys), "123000", "phys after a C++ symbol");

	r = parse("  app 1/2 3.0: 7000 /cg 4000 worker (/opt/app (deleted)) 5000 4K", &s, &why);
	is_int(r, PROF_LINE_OK, "(deleted) dso");
	is_str(S(0, s.dso), "/opt/app (deleted)", "dso keeps (deleted)");
	is_str(S(0, s.sym), "worker", "sym before a (deleted) dso");
	is_str(S(0, s.phys), "5000", "phys after a (deleted) dso");

	r = parse("  app 1/2 3.0: 7000 /cg 4000 [unknown] ([unknown]) 5000 4K", &s, &why);
	is_str(S(0, s.sym), "[unknown]", "[unknown] sym");

	r = parse("  app 1/2 3.0: 7000 unknown 4000 f (d) 5000 8192", &s, &why);
	is_int(r, PROF_LINE_OK, "unknown cgroup");
	is_str(S(0, s.cgroup), "unknown", "cgroup 'unknown'");
	is_int(s.page_size, 8192, "bare page size");
	r = parse("  app 1/2 3.0: 7000 /cg 4000 f (d) 5000 4X", &s, &why);
	ok(r == PROF_LINE_BAD && why && !strcmp(why, "bad data page size"),
	   "a junk page size makes the line unparseable, not parsed");

	r = parse("       perf-exec   13114/13114    1067.551793:     556177efb0c0 [unknown] "
		  "(/usr/bin/perf) /     7fc690a2cf90 _dl_fixup "
		  "(/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)       1299340c0 4K",
		  &s, &why);
	is_int(r, PROF_LINE_OK, "page-fault line with the data address' sym (dso)");
	is_str(S(0, s.cgroup), "/", "page-fault cgroup found after the data sym");
	is_str(S(0, s.ip), "7fc690a2cf90", "page-fault ip");
	is_str(S(0, s.sym), "_dl_fixup", "page-fault sym is the ip's");
	is_str(S(0, s.phys), "1299340c0", "page-fault phys");

	r = parse(
		"      appworker2 13338/13342  1077.836707:     7e0000200000     563bdf1482c9 worker "
		"(/opt/memwork/bin/memwork)       12aa00000 2M",
		&s, &why);
	is_int(r, PROF_LINE_NO_CGROUP, "perf 6.1 line without cgroup is recognised");

	is_int(parse("   \t  ", &s, &why), PROF_LINE_BLANK, "blank line");
	is_int(parse("", &s, &why), PROF_LINE_BLANK, "empty line");
	is_int(parse("just some words here", &s, &why), PROF_LINE_BAD, "no PID/TID");
	ok(why && strstr(why, "PID/TID"), "reason names PID/TID (%s)", why);
	is_int(parse("comm 1/2 3.0:", &s, &why), PROF_LINE_BAD, "no addr");
	is_int(parse("comm 1/2 3.0: 1000", &s, &why), PROF_LINE_BAD, "no cgroup");
	is_int(parse("comm 1/2 3.0: 1000 /cg", &s, &why), PROF_LINE_BAD, "no ip");
	is_int(parse("comm 1/2 3.0: 1000 /cg 12", &s, &why), PROF_LINE_OK, "no tail still parses");
	is_int(prof_sample_filter(&s), PROF_SKIP_NO_PHYS, "no tail: no phys_addr");
	is_int(parse("comm 1/x 3.0: 1000 /cg 12 f (d) 1 4K", &s, &why), PROF_LINE_BAD,
	       "bad id token");
	is_int(parse("comm 99999999999/1 3.0: 1000 /cg 12 f (d) 1 4K", &s, &why), PROF_LINE_BAD,
	       "pid overflow");
	is_int(parse("comm 1/2 3.0: 1000 /cg 12 f (d 1 4K", &s, &why), PROF_LINE_OK,
	       "unbalanced dso parses");
	is_int(prof_sample_filter(&s), PROF_SKIP_NO_PHYS, "unbalanced dso: no phys_addr");
	is_int(parse("comm 1/2 3.0: 1000 /cg 12 f d) 1 4K", &s, &why), PROF_LINE_OK,
	       "dso without '(' parses");
	is_int(prof_sample_filter(&s), PROF_SKIP_NO_PHYS, "dso without '(': no phys_addr");
}

static void test_page_size(void)
{
	is_int(prof_page_size("4K", 2), 4096, "4K");
	is_int(prof_page_size("4k", 2), 4096, "4k");
	is_int(prof_page_size("2M", 2), 2 << 20, "2M");
	is_int(prof_page_size("1G", 2), 1 << 30, "1G");
	is_int(prof_page_size("N/A", 3), 0, "N/A");
	is_int(prof_page_size("n/a", 3), 0, "n/a");
	is_int(prof_page_size("", 0), 0, "empty");
	is_int(prof_page_size("65536", 5), 65536, "bare number");
	ok(prof_page_size("4X", 2) == PROF_PAGE_BAD, "garbage");
	ok(prof_page_size("K", 1) == PROF_PAGE_BAD, "unit alone");
	ok(prof_page_size("99999999999999999999G", 21) == PROF_PAGE_BAD, "overflow");
	ok(prof_page_size("3K", 2) == PROF_PAGE_BAD, "not a power of two");
	ok(prof_page_size("0", 1) == PROF_PAGE_BAD, "zero");
}

static void test_jsonl(void)
{
	struct prof_sample s;
	struct prof_rec r;
	struct scx_buf b = { 0 }, scratch = { 0 };
	const char *why;
	size_t off;
	uint64_t hint = 640;

	parse("  a\"b\\c\x01 1/2 3.0: 7000 /cg 4000 f\xff (d\xc3\xa9) 5000 4K", &s, &why);
	prof_jsonl_write(&b, &s, NULL);
	scx_buf_add(&b, "", 1);
	is_str(b.data,
	       "{\"comm\":\"a\\\"b\\\\c\\u0001\",\"tid\":2,\"pid\":1,\"time\":\"3.0\","
	       "\"addr\":\"7000\",\"cgroup\":\"/cg\",\"ip\":\"4000\",\"sym\":\"f\xef\xbf\xbd\","
	       "\"dso\":\"d\xc3\xa9\",\"phys_addr\":\"5000\",\"data_page_size\":4096}\n",
	       "serde-style escapes, raw UTF-8, U+FFFD for invalid bytes");
	scx_buf_reset(&b);
	prof_jsonl_write(&b, &s, &hint);
	ok(prof_rec_parse(b.data, b.len - 1, &r, &scratch, &off, &why) == 0,
	   "written line reads back");
	is_str(S(0, r.comm), "a\"b\\c\x01", "escaped comm unescaped");
	is_int(r.pid, 1, "pid");
	is_int(r.tid, 2, "tid");
	is_int(r.page_size, 4096, "page size");
	ok(r.has_hint && r.hint == 640, "hint read back");
	is_str(S(1, r.dso), "d\xc3\xa9", "UTF-8 dso");
	{
		/* JSON allows a lone surrogate escape; it is no character: U+FFFD */
		static const char lone[] =
			"{\"comm\":\"a\\ud800b\",\"tid\":2,\"pid\":1,\"time\":\"3.0\","
			"\"addr\":\"7000\",\"cgroup\":\"/cg\",\"ip\":\"4000\",\"sym\":\"\\udc00\","
			"\"dso\":\"d\",\"phys_addr\":\"5000\",\"data_page_size\":4096}";

		ok(!prof_rec_parse(lone, strlen(lone), &r, &scratch, &off, &why),
		   "lone surrogates parse");
		is_str(S(0, r.comm),
		       "a\xef\xbf\xbd"
		       "b",
		       "a lone high surrogate is U+FFFD");
		is_str(S(1, r.sym), "\xef\xbf\xbd", "a lone low one too");
	}

#define BAD(line, what) \
	do { \
		why = NULL; \
		ok(prof_rec_parse(line, strlen(line), &r, &scratch, &off, &why) == -EINVAL && why, \
		   "rejects %s (%s)", what, why ? why : ""); \
	} while (0)
	BAD("", "an empty line");
	BAD("{}", "an empty object");
	BAD("[1]", "an array");
	BAD("{\"comm\":\"a\",\"tid\":1,\"pid\":1,\"time\":\"1\",\"addr\":\"1\",\"cgroup\":\"/\","
	    "\"ip\":\"1\",\"sym\":\"s\",\"dso\":\"d\",\"phys_addr\":\"1\"}",
	    "a missing key");
	BAD("{\"comm\":\"a\",\"tid\":-1,\"pid\":1,\"time\":\"1\",\"addr\":\"1\",\"cgroup\":\"/\","
	    "\"ip\":\"1\",\"sym\":\"s\",\"dso\":\"d\",\"phys_addr\":\"1\",\"data_page_size\":1}",
	    "a negative tid");
	BAD("{\"comm\":\"a\",\"tid\":4294967296,\"pid\":1,\"time\":\"1\",\"addr\":\"1\",\"cgroup\":"
	    "\"/\",\"ip\":\"1\",\"sym\":\"s\",\"dso\":\"d\",\"phys_addr\":\"1\",\"data_page_size\":1}",
	    "a tid above u32");
	BAD("{\"comm\":1,\"tid\":1,\"pid\":1,\"time\":\"1\",\"addr\":\"1\",\"cgroup\":\"/\","
	    "\"ip\":\"1\",\"sym\":\"s\",\"dso\":\"d\",\"phys_addr\":\"1\",\"data_page_size\":1}",
	    "a number comm");
	BAD("{\"comm\":\"a\",\"comm\":\"b\",\"tid\":1,\"pid\":1,\"time\":\"1\",\"addr\":\"1\","
	    "\"cgroup\":\"/\",\"ip\":\"1\",\"sym\":\"s\",\"dso\":\"d\",\"phys_addr\":\"1\","
	    "\"data_page_size\":1}",
	    "a duplicate key");
	BAD("{\"comm\":\"a\",\"tid\":1.5,\"pid\":1,\"time\":\"1\",\"addr\":\"1\",\"cgroup\":\"/\","
	    "\"ip\":\"1\",\"sym\":\"s\",\"dso\":\"d\",\"phys_addr\":\"1\",\"data_page_size\":1}",
	    "a fractional tid");
	BAD("{\"comm\":\"a\" \"tid\":1}", "a missing comma");
	BAD("{\"comm\":\"a\\x\"}", "a bad escape");
	BAD("{\"comm\":\"a}", "an unterminated string");
	BAD("{\"comm\":\"a\"} x", "trailing text");
	{
		const char *ok_line = "{\"x\":[1,{\"y\":null}],\"comm\":\"a\",\"tid\":1,\"pid\":2,"
				      "\"time\":\"1\",\"addr\":\"1\",\"cgroup\":\"/\",\"ip\":\"1\","
				      "\"sym\":\"s\",\"dso\":\"d\",\"phys_addr\":\"1\","
				      "\"data_page_size\":1,\"extra\":true}";

		ok(!prof_rec_parse(ok_line, strlen(ok_line), &r, &scratch, &off, &why),
		   "extra keys (nested too) are ignored");
		is_int(r.pid, 2, "pid beside extra keys");
	}
	scx_buf_free(&b);
	scx_buf_free(&scratch);
}

static void test_hints(void)
{
	struct prof_hint_rec h = { 4235, 4234, 640, 882892114731ULL }, g;
	struct scx_buf b = { 0 };
	struct prof_hints *hs = prof_hints__new();
	const char *why;
	uint64_t v, ns;

	prof_hint_write(&b, &h);
	scx_buf_add(&b, "", 1);
	is_str(b.data, "{\"pid\":4235,\"tgid\":4234,\"hints\":640,\"timestamp\":882892114731}\n",
	       "hint writer: the recorded format");
	ok(!prof_hint_parse(b.data, b.len - 2, &g, &why) && g.pid == 4235 && g.tgid == 4234 &&
		   g.hints == 640 && g.ts == 882892114731ULL,
	   "hint reads back");
	ok(prof_hint_parse("{\"pid\":1}", 9, &g, &why) == -EINVAL, "incomplete hint rejected");
	scx_buf_reset(&b);
	prof_hints_dropped_msg(&b, 3);
	scx_buf_add(&b, "", 1);
	is_str(b.data,
	       "warning: 3 hint updates were dropped because the ring buffer was full; "
	       "hints.jsonl is incomplete (try a larger --hints-ring-mb)",
	       "dropped warning");
	scx_buf_reset(&b);
	prof_hints_dropped_msg(&b, 1);
	scx_buf_add(&b, "", 1);
	ok(strstr(b.data, "1 hint update was dropped") != NULL, "dropped warning, singular");

	ok(prof_time_ns((struct scx_str){ "788.448576", 10 }, &ns) && ns == 788448576000ULL,
	   "perf time to ns");
	ok(prof_time_ns((struct scx_str){ "1.123456789", 11 }, &ns) && ns == 1123456789ULL,
	   "ns precision time");
	ok(!prof_time_ns((struct scx_str){ "1.x", 3 }, &ns), "bad time");

	/* thread 10: hint 1 at t=100, 2 at t=200 (added out of order), 3 also at t=200 later */
	prof_hints__add(hs, &(struct prof_hint_rec){ 10, 10, 2, 200 });
	prof_hints__add(hs, &(struct prof_hint_rec){ 10, 10, 1, 100 });
	prof_hints__add(hs, &(struct prof_hint_rec){ 11, 10, 7, 50 });
	prof_hints__add(hs, &(struct prof_hint_rec){ 10, 10, 3, 200 });
	ok(!prof_hints__lookup(hs, 10, 99, &v), "no hint before the first update");
	ok(prof_hints__lookup(hs, 10, 100, &v) && v == 1, "hint at its own timestamp");
	ok(prof_hints__lookup(hs, 10, 150, &v) && v == 1, "latest hint before the sample");
	ok(prof_hints__lookup(hs, 10, 1000, &v) && v == 3, "same timestamp: the later write wins");
	ok(prof_hints__lookup(hs, 11, 60, &v) && v == 7, "another thread's hint");
	ok(!prof_hints__lookup(hs, 12, 1000, &v), "thread without hints");
	prof_hints__free(hs);
	scx_buf_free(&b);
}

static char *slurp(const char *name, size_t *len)
{
	char path[4096];
	const char *src = getenv("SCX_SRC");
	struct scx_buf b = { 0 };
	char chunk[4096];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/t/data/%s", src ? src : ".", name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)))
		scx_buf_add(&b, chunk, n);
	fclose(f);
	scx_buf_add(&b, "", 1);
	*len = b.len - 1;
	return b.data;
}

static void test_mitosis(void)
{
	char err[512];
	size_t n;
	char *s;

	s = slurp("prof-expected/small.extract.mitosis-merged.json", &n);
	ok(s && !prof_mitosis_validate(s, n, err, sizeof(err)), "merged fixture is accepted");
	free(s);
	s = slurp("prof-expected/small.extract.mitosis.json", &n);
	ok(s && prof_mitosis_validate(s, n, err, sizeof(err)) == -EINVAL &&
		   strstr(err, "too many subcells: 10 > 8"),
	   "unmerged fixture: %s", err);
	free(s);
	s = slurp("prof-expected/small.extract.pr.json", &n);
	ok(s && prof_mitosis_validate(s, n, err, sizeof(err)) == -EINVAL &&
		   strstr(err, "invalid type: sequence"),
	   "pr fixture: %s", err);
	free(s);

#define V(json) prof_mitosis_validate(json, strlen(json), err, sizeof(err))
	ok(!V("[]"), "empty list");
	ok(!V("[{\"name\":\"a\",\"matches\":{\"CgroupContains\":\"x\"}},{\"name\":\"r\"}]"),
	   "absent matches is the final catch-all");
	ok(V("[{\"name\":\"a\",\"matches\":{}},{\"name\":\"r\",\"matches\":{}}]") == -EINVAL &&
		   strstr(err, "only the final catch-all"),
	   "catch-all not last: %s", err);
	ok(V("[{\"name\":\"a\",\"match\":{\"CgroupRegex\":\"x\"}},{\"name\":\"r\",\"matches\":{}}]") ==
		   -EINVAL,
	   "unknown 'match' key makes a catch-all: %s", err);
	ok(V("[{\"name\":\"a\",\"matches\":{\"CgroupRegex\":\"(\"}}]") == -EINVAL &&
		   strstr(err, "does not compile"),
	   "bad regex: %s", err);
	ok(V("[{\"name\":\"a\",\"matches\":{\"CgroupContains\":\"x\",\"CgroupRegex\":\"y\"}}]") ==
		   -EINVAL,
	   "two matchers: %s", err);
	ok(V("[{\"name\":\"a\",\"matches\":{\"Hint\":1}}]") == -EINVAL, "unknown matcher: %s", err);
	ok(V("[{\"name\":\"a\",\"subcells\":[{\"name\":\"x\",\"matches\":[[{\"CommPrefix\":"
	     "\"0123456789abcdef\"}]]}]}]") == -EINVAL &&
		   strstr(err, "longer than 15"),
	   "16-byte prefix: %s", err);
	ok(!V("[{\"name\":\"a\",\"subcells\":[{\"name\":\"x\",\"matches\":[[{\"CommPrefix\":"
	      "\"0123456789abcde\"}]]}]}]"),
	   "15-byte prefix");
	ok(V("[{\"name\":\"a\",\"subcells\":[{\"name\":\"x\",\"matches\":[[{\"CommPrefix\":"
	     "\"ab\\u0000c\"}]]}]}]") == -EINVAL &&
		   strstr(err, "CommPrefix holds a NUL"),
	   "NUL inside a prefix: %s", err);
	ok(V("[{\"name\":\"a\",\"subcells\":[{\"name\":\"x\",\"matches\":[[{\"CommPrefix\":\"a\"}],"
	     "[{\"CommPrefix\":\"b\"}],[{\"CommPrefix\":\"c\"}],[{\"CommPrefix\":\"d\"}],"
	     "[{\"CommPrefix\":\"e\"}]]}]}]") == -EINVAL &&
		   strstr(err, "OR groups"),
	   "5 OR groups: %s", err);
	ok(V("[{\"name\":\"a\",\"subcells\":[{\"name\":\"x\",\"matches\":[[{\"CommPrefix\":\"a\"},"
	     "{\"CommPrefix\":\"b\"},{\"CommPrefix\":\"c\"},{\"CommPrefix\":\"d\"},"
	     "{\"CommPrefix\":\"e\"}]]}]}]") == -EINVAL &&
		   strstr(err, "ANDs"),
	   "5 ANDs: %s", err);
	ok(V("[{\"name\":\"a\",\"subcells\":[{\"name\":\"x\",\"matches\":[[]]},"
	     "{\"name\":\"y\"}]}]") == -EINVAL &&
		   strstr(err, "more than one catch-all"),
	   "two catch-all subcells: %s", err);
	ok(V("[{\"name\":\"a\",\"subcells\":[{\"name\":\"1\",\"matches\":[[{\"CommPrefix\":\"1\"}]]},"
	     "{\"name\":\"2\",\"matches\":[[{\"CommPrefix\":\"2\"}]]},"
	     "{\"name\":\"3\",\"matches\":[[{\"CommPrefix\":\"3\"}]]},"
	     "{\"name\":\"4\",\"matches\":[[{\"CommPrefix\":\"4\"}]]},"
	     "{\"name\":\"5\",\"matches\":[[{\"CommPrefix\":\"5\"}]]},"
	     "{\"name\":\"6\",\"matches\":[[{\"CommPrefix\":\"6\"}]]},"
	     "{\"name\":\"7\",\"matches\":[[{\"CommPrefix\":\"7\"}]]},"
	     "{\"name\":\"8\",\"matches\":[[{\"CommPrefix\":\"8\"}]]}]}]") == -EINVAL &&
		   strstr(err, "too many subcells: 9 > 8"),
	   "8 subcells plus the default rest: %s", err);
	ok(V("{\"name\":\"a\"}") == -EINVAL, "not a list: %s", err);
	ok(V("[{\"name\":") == -EINVAL, "truncated JSON: %s", err);
	ok(V("[{\"matches\":{}}]") == -EINVAL, "no name: %s", err);
}

static void test_misc(void)
{
	struct scx_buf b = { 0 };

	is_int(prof_comm_stem("appworker12", 11), 9, "stem strips trailing digits");
	is_int(prof_comm_stem("netio-1", 7), 6, "stem of netio-1");
	is_int(prof_comm_stem("1234", 4), 4, "all digits: keep the comm");
	is_int(prof_comm_stem("gc-thread", 9), 9, "no digits");

	const char *in = "[{\"a\":[[]],\"b\":{},\"c\":[1,\"x,]\"]}]";

	ok(!prof_json_pretty(in, strlen(in), &b), "pretty prints");
	scx_buf_add(&b, "", 1);
	is_str(b.data,
	       "[\n  {\n    \"a\": [\n      []\n    ],\n    \"b\": {},\n    \"c\": [\n"
	       "      1,\n      \"x,]\"\n    ]\n  }\n]",
	       "serde_json pretty layout");
	scx_buf_reset(&b);
	ok(prof_json_pretty("[1", 2, &b) == -EINVAL, "unbalanced JSON rejected");
	scx_buf_free(&b);
}

/* the canonical-shape fast path and the general walker agree on every fixture line */
static void test_fast_vs_general(void)
{
	struct scx_buf scratch = { 0 }, alt = { 0 };
	size_t n, off, lines = 0, same = 0;
	char *s = slurp("prof-expected/small.perf.jsonl", &n), *p = s;
	const char *why;

	while (p && p < s + n) {
		char *nl = memchr(p, '\n', (size_t)(s + n - p));
		size_t len = (size_t)(nl - p);
		struct prof_rec a, b;

		scx_buf_reset(&alt);
		scx_buf_add(&alt, "{ ", 2); /* a space: not the canonical shape */
		scx_buf_add(&alt, p + 1, len - 1);
		if (!prof_rec_parse(p, len, &a, &scratch, &off, &why) &&
		    !prof_rec_parse(alt.data, alt.len, &b, &scratch, &off, &why) &&
		    a.pid == b.pid && a.tid == b.tid && a.page_size == b.page_size &&
		    a.comm.n == b.comm.n && !memcmp(a.comm.p, b.comm.p, a.comm.n) &&
		    a.cgroup.n == b.cgroup.n && !memcmp(a.cgroup.p, b.cgroup.p, a.cgroup.n) &&
		    a.dso.n == b.dso.n && !memcmp(a.dso.p, b.dso.p, a.dso.n) &&
		    a.phys.n == b.phys.n && !memcmp(a.phys.p, b.phys.p, a.phys.n))
			same++;
		lines++;
		p = nl + 1;
	}
	ok(lines == 92 && same == lines, "fast and general perf.jsonl paths agree (%zu of %zu)",
	   same, lines);
	free(s);
	scx_buf_free(&scratch);
	scx_buf_free(&alt);
}

int main(void)
{
	test_lines();
	test_page_size();
	test_jsonl();
	test_hints();
	test_mitosis();
	test_misc();
	test_fast_vs_general();
	return done_testing();
}
