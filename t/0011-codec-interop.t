#!/bin/sh
# The stream codecs against outside implementations: jq and python3 read our
# NDJSON, the zstd and gzip command-line tools decode what we compress and we
# decode what they compress, and conversions through binary are lossless.
# bench/codec (built by make) drives the library: gen writes a stream, cat
# converts any stream to a given format and compression.
. "$(dirname "$0")/lib.sh"

codec=$SCX_BUILD/bench/codec

test_expect_success 'generate a stream' "
	'$codec' gen 3000 ndjson none a.ndjson &&
	test \$(wc -l < a.ndjson) = 3002
"

test_expect_success 'jq re-serialises every line to the same bytes' "
	jq -c . a.ndjson > jq.ndjson &&
	test_cmp a.ndjson jq.ndjson
"

test_expect_success 'python: header first, trailer counts match the events' "
	python3 - a.ndjson <<'PY'
import json, sys, collections
lines = [json.loads(l) for l in open(sys.argv[1], encoding='utf-8')]
h, t, ev = lines[0], lines[-1], lines[1:-1]
assert h['type'] == 'header' and h['version'] == 1 and h['clock'] == 'boottime', h
assert [c['cpu'] for c in h['topology']] == list(range(h['nr_cpus'])), h
assert t['type'] == 'trailer', t
counts = collections.Counter(e['type'] for e in ev)
assert counts == t['counts'], (counts, t['counts'])
assert all(list(e)[:3] == ['ts', 'cpu', 'type'] for e in ev)
assert all(a['ts'] <= b['ts'] for a, b in zip(ev, ev[1:]))
sw = [e for e in ev if e['type'] == 'sched_switch']
assert sw and all('dsq_id' not in e and e['prev_state'] in (1, 256) for e in sw)
PY
"

test_expect_success ZSTD 'zstd(1) decodes our zstd; we decode zstd(1)' "
	'$codec' gen 3000 ndjson zstd a.zst &&
	zstd -dcq a.zst > z.ndjson && test_cmp a.ndjson z.ndjson &&
	zstd -q -19 -c a.ndjson > cli.zst &&
	'$codec' cat cli.zst ndjson none back.ndjson && test_cmp a.ndjson back.ndjson
"

test_expect_success GZIP 'gzip(1) decodes our gzip; we decode gzip(1), members concatenated' "
	'$codec' gen 3000 binary gzip a.bin.gz &&
	gzip -dc a.bin.gz > a.bin &&
	'$codec' cat a.bin ndjson none g.ndjson && test_cmp a.ndjson g.ndjson &&
	head -n 1000 a.ndjson | gzip -c > part.gz &&
	tail -n +1001 a.ndjson | gzip -c >> part.gz &&
	'$codec' cat part.gz ndjson none back.ndjson && test_cmp a.ndjson back.ndjson
"

test_expect_success 'ndjson -> binary -> zstd binary -> ndjson is byte-identical' "
	'$codec' cat a.ndjson binary none b.bin &&
	'$codec' cat b.bin binary zstd b.bin.zst &&
	'$codec' cat b.bin.zst ndjson none c.ndjson &&
	test_cmp a.ndjson c.ndjson &&
	test \$(wc -c < b.bin) -lt \$(wc -c < a.ndjson)
"

# odd.ndjson: a comm with bytes 0xff and 0x01, a quote and a real e-acute; an
# exec whose comm holds an invalid UTF-8 sequence; a line that is not an event
test_expect_success 'comms that are not UTF-8 survive, other lines pass through' "
	'$codec' cat '$TDATA/codec/odd.ndjson' binary gzip odd.bin.gz &&
	'$codec' cat odd.bin.gz ndjson none odd2.ndjson &&
	test_cmp '$TDATA/codec/odd.ndjson' odd2.ndjson &&
	python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1], encoding=\"utf-8\")]' odd2.ndjson
"

test_expect_success 'a stream on stdin through a pipe' "
	cat a.zst | '$codec' cat - ndjson none pipe.ndjson &&
	test_cmp a.ndjson pipe.ndjson
"

test_expect_success 'truncated and corrupt input: exit 1 and the offset' "
	head -c 5000 b.bin > cut.bin &&
	test_exit_code 1 '$codec' cat cut.bin ndjson none x 2>err &&
	grep 'cut.bin: byte [0-9]*: truncated record' err &&
	head -c 300 a.zst > cut.zst &&
	test_exit_code 1 '$codec' cat cut.zst ndjson none x 2>err &&
	grep 'cut.zst: byte 300: truncated zstd stream' err &&
	sed '5s/\"cpu\":/\"cpu\":x/' a.ndjson > bad.ndjson &&
	test_exit_code 1 '$codec' cat bad.ndjson ndjson none x 2>err &&
	grep 'bad.ndjson: line 5: ' err &&
	: > empty &&
	test_exit_code 1 '$codec' cat empty ndjson none x 2>err &&
	grep 'empty: empty input' err
"

test_expect_success 'a stream cut at a record boundary: warning, events kept' "
	head -n 100 a.ndjson > head.ndjson &&
	'$codec' cat head.ndjson ndjson none h2.ndjson 2>err &&
	test_cmp head.ndjson h2.ndjson &&
	grep 'head.ndjson: byte [0-9]*: stream ends without a trailer' err
"

test_done
