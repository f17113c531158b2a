#!/bin/sh
# golden.sh BUILD OUTDIR: run every tool on the test data in many modes and
# keep each output in OUTDIR, one file per invocation (stdout, stderr and the
# exit status).  Used to prove that a reshape changed no behaviour:
#
#   scripts/golden.sh .output /tmp/before   # on the old tree
#   scripts/golden.sh .output /tmp/after    # on the new tree
#   diff -r /tmp/before /tmp/after
#
# Outputs that carry the version string or a time are normalised.
set -u
B=$(cd "$1" && pwd)
OUT=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
D=$SRC/t/data
S=$SRC/../shared/testdata
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"

# run NAME CMD...: output of CMD in OUT/NAME.{out,err,rc}
run() {
	n=$1
	shift
	"$@" >"$OUT/$n.out" 2>"$OUT/$n.err"
	echo $? >"$OUT/$n.rc"
	sed -i -e "s|$W|W|g" -e "s|$SRC|SRC|g" "$OUT/$n.out" "$OUT/$n.err"
}
# pf NAME CMD...: a Perfetto trace, decoded with our proto; the clock
# snapshot (taken when the trace is written) and the version are blanked
pf() {
	n=$1
	shift
	"$@" 2>"$OUT/$n.err" | protoc --decode=perfetto.protos.Trace -I"$SRC/proto" \
		"$SRC/proto/perfetto_trace.proto" | awk '
		/^packet \{/ { clk = 0 }
		/clock_snapshot \{/ { clk = 1 }
		/tracing_service_version/ { next }
		clk && /timestamp:/ { sub(/[0-9]+/, "T") }
		{ print }' >"$OUT/$n.out"
	sed -i -e "s|$W|W|g" -e "s|$SRC|SRC|g" "$OUT/$n.err"
}
# bin NAME CMD...: binary output, kept as a hash
bin() {
	n=$1
	shift
	"$@" 2>"$OUT/$n.err" | sha256sum >"$OUT/$n.out"
	sed -i -e "s|$W|W|g" -e "s|$SRC|SRC|g" "$OUT/$n.err"
}

ndjson="agg-basic agg-cpu-outliers agg-mutual top-small top-small-ooo"
for f in $ndjson; do
	in=$D/$f.ndjson
	run "agg-$f-ndjson" "$B/scx-agg" -f ndjson -r all "$in"
	run "agg-$f-text" "$B/scx-agg" -H -r all -n 0 "$in"
	run "agg-$f-om" "$B/scx-agg" -f openmetrics -g all "$in"
	run "agg-$f-int" "$B/scx-agg" -f ndjson -I 1ms -g all "$in"
	run "agg-$f-int-text" "$B/scx-agg" -H -I 5ms -g cpu,llc,node,dsq -r dsq,outliers "$in"
	run "agg-$f-topo" "$B/scx-agg" -f ndjson --topology "$D/top-small.topo.json" "$in"
	pf "pf-$f" "$B/scx-perfetto" "$in"
	pf "pf-$f-nc" "$B/scx-perfetto" --no-compact "$in"
	pf "pf-$f-readable" "$B/scx-perfetto" --readable "$in"
	"$B/scx-perfetto" --deflate -o "$W/$f.d.pb" "$in" 2>/dev/null
	run "pf-$f-deflate-back" "$B/scx-perfetto" -i "$W/$f.d.pb"
	"$B/scx-perfetto" -o "$W/$f.pb" "$in" 2>/dev/null
	run "pf-$f-back" "$B/scx-perfetto" -i "$W/$f.pb"
	run "pf-$f-stat" "$B/scx-perfetto" -i "$W/$f.pb" --stat
	for v in cpu llc node proc dsq; do
		run "top-$f-$v" "$B/scx-top" -b -n 3 --no-config --view=$v -i "$in" --topology "$D/top-small.topo.json"
	done
	run "top-$f-bars" "$B/scx-top" -b -n 2 --no-config --mode bars --sort=-util -i "$in"
	bin "bin-$f" "$B/scx-perfetto" -i "$W/$f.pb" --format binary
done
run "agg-demo" "$B/scx-agg" -f ndjson -r all -g all "$D/events-demo.ndjson.zst"
run "top-demo" "$B/scx-top" -b -n 3 --no-config -i "$D/events-demo.ndjson.zst"
pf "pf-demo" "$B/scx-perfetto" "$D/events-demo.ndjson.zst"
for f in codec/*; do
	[ -f "$D/$f" ] || continue
	n=$(echo "$f" | tr / -)
	run "agg-$n" "$B/scx-agg" -f ndjson -r all "$D/$f"
done

traces="$D/perfetto-*.pb $D/perfetto-*.pb.gz $S/perfetto/handmade/*.pb* $S/perfetto/upstream/*.pb $S/perfetto/wprof-*.pb.zst"
for t in $traces; do
	[ -f "$t" ] || continue
	n=$(basename "$t")
	run "pfi-$n" "$B/scx-perfetto" -i "$t"
	run "pfi-$n-stat" "$B/scx-perfetto" -i "$t" --stat
	run "pfi-$n-raw" "$B/scx-perfetto" -i "$t" --raw-state --source=auto
	"$B/scx-perfetto" -i "$t" 2>/dev/null | "$B/scx-agg" -f ndjson -r all >"$OUT/pfi-$n-agg.out" 2>&1
	"$B/scx-perfetto" -i "$t" 2>/dev/null | "$B/scx-top" -b -n 2 --no-config >"$OUT/pfi-$n-top.out" 2>&1
done

# scx-prof
P=$S/scxprof
cp -r "$P/small" prof && chmod -R u+w prof
run "prof-process" "$B/scx-prof" process -v -i prof
run "prof-extract" "$B/scx-prof" extract -vv -i prof.out/perf.jsonl
[ -f prof.out/perf.jsonl ] && cp prof.out/perf.jsonl "$OUT/prof-perf.jsonl"
for v in "$P"/variants/*; do
	mkdir -p "var" && cp "$v" var/perf.script
	run "prof-var-$(basename "$v")" "$B/scx-prof" process -i var
	rm -rf var var.out
done

# scx-mcp: one session over a trace, every analysis
cp "$D/perfetto-handmade.pb" "$D/agg-basic.ndjson" .
{
	printf '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"g","version":"1"}}}\n'
	echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	echo '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
	echo '{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{}}'
	echo '{"jsonrpc":"2.0","id":3,"method":"prompts/list","params":{}}'
	echo '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"load_perfetto_trace","arguments":{"file_path":"perfetto-handmade.pb","trace_id":"a"}}}'
	echo '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"load_perfetto_trace","arguments":{"file_path":"agg-basic.ndjson","trace_id":"b"}}}'
	id=10
	for tid in a b; do
		for tool in get_trace_summary run_all_analyzers find_scheduling_bottlenecks detect_outliers \
			correlate_wakeup_to_schedule analyze_cpu_utilization analyze_process_runtime \
			analyze_wakeup_latency analyze_latency_breakdown analyze_migration_patterns \
			analyze_llc_locality analyze_task_states analyze_preemptions analyze_wakeup_chains \
			analyze_runqueue_depth analyze_fairness analyze_dsq analyze_dsq_latency analyze_irq \
			analyze_ipi analyze_cpu_frequency analyze_cpu_idle analyze_power_state discover_analyzers; do
			printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":{"trace_id":"%s"}}}\n' $id $tool $tid
			id=$((id + 1))
		done
		printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"query_trace_events","arguments":{"trace_id":"%s","limit":50}}}\n' $id $tid
		id=$((id + 1))
		printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_cpu_timeline","arguments":{"trace_id":"%s","cpu":0}}}\n' $id $tid
		id=$((id + 1))
		printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"query_trace","arguments":{"trace_id":"%s","aggregation":"count_by_type"}}}\n' $id $tid
		id=$((id + 1))
	done
	echo '{"jsonrpc":"2.0","id":900,"method":"tools/call","params":{"name":"list_traces","arguments":{}}}'
} >mcp.in
run "mcp-session" "$B/scx-mcp" --no-live -R "$W" <mcp.in
sed -i -E 's/"(serverInfo|version)":"[^"]*"/"\1":"V"/g; s/load_ms[^,]*,//g; s/[0-9.]+ ?ms\b/Nms/g' "$OUT/mcp-session.out"

# help and version of each tool
for t in agg events perfetto top mcp prof; do
	run "help-$t" "$B/scx-$t" --help
done
for c in record process extract; do
	run "help-prof-$c" "$B/scx-prof" $c --help
done
echo "golden: $(ls "$OUT" | wc -l) files in $OUT"
