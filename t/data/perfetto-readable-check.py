#!/usr/bin/env python3
# Check what scx-perfetto --readable wrote against the event stream it came
# from.  Usage: perfetto-readable-check.py DECODED.txt EVENTS.ndjson
#
# DECODED.txt is the trace as protoc --decode=perfetto.protos.Trace prints it.
# From the events this script works out on its own which waits there were
# (wakeup or preemption -> switch-in), who woke whom and the run queue depth
# of each cpu, then checks the trace says the same:
#  - every flow id begins once (a "wakeup" instant on the waker's thread, at
#    the wakeup) and ends once (a "switch-in" instant on the woken thread, at
#    a sched_switch to it);
#  - the waiting slices are exactly the waits, and wait_ns = end - begin;
#  - the run queue depth and DSQ depth counters take the values of the stream.
# Prints "flows F waits W rq-samples R dsq-samples D" and exits 1 on the
# first mismatches (listed on stderr).  With --dump first, it prints what the
# trace holds instead (one wait, flow or counter sample a line), unchecked.
import json
import re
import sys

PREEMPTED = 0x100
SEQ_READABLE = 4


def parse_text(text):
    """protoc's text format -> nested dicts of lists."""
    root = {}
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        m = re.match(r'^([\w.]+) \{$', line)
        if m:
            child = {}
            stack[-1].setdefault(m.group(1), []).append(child)
            stack.append(child)
            continue
        m = re.match(r'^([\w.]+): (.*)$', line)
        if not m:
            sys.exit("cannot parse line: " + line)
        v = m.group(2)
        if v.startswith('"'):
            v = bytes(v[1:-1], "utf-8").decode("unicode_escape")
        else:
            try:
                v = int(v)
            except ValueError:
                pass
        stack[-1].setdefault(m.group(1), []).append(v)
    return root


def one(d, k, default=None):
    v = d.get(k)
    return v[0] if v else default


def expected(events):
    """Waits, flows and depth samples worked out from the stream."""
    waiting = {}
    waits = []
    depth = {}
    rq = {}
    dsq = {}

    def move(cpu, d, dirty):
        depth[cpu] = max(0, depth.get(cpu, 0) + d)
        if cpu not in dirty:
            dirty.append(cpu)

    for e in events:
        t = e["type"]
        ts = e["ts"]
        dirty = []
        if t == "sched_switch":
            nxt, prev = e["next_pid"], e["prev_pid"]
            if nxt > 0 and nxt in waiting:
                w = waiting.pop(nxt)
                waits.append((nxt, w["start"], ts, w["waker"], w["why"], e["cpu"]))
                move(w["cpu"], -1, dirty)
            if (prev > 0 and prev != nxt and e["prev_state"] & ~PREEMPTED == 0
                    and prev not in waiting):
                waiting[prev] = dict(start=ts, cpu=e["cpu"], why="preempted", waker=0)
                move(e["cpu"], 1, dirty)
            if "dsq_id" in e:
                dsq.setdefault(e["dsq_id"], []).append((ts, e["dsq_depth"]))
        elif t in ("sched_waking", "sched_wakeup", "sched_wakeup_new"):
            pid = e["pid"]
            tc = e["target_cpu"] if e["target_cpu"] >= 0 else e["cpu"]
            if pid <= 0:
                pass
            elif pid not in waiting:
                why = "new task" if t == "sched_wakeup_new" else "wakeup"
                waiting[pid] = dict(start=ts, cpu=tc, why=why, waker=max(e["waker_pid"], 0))
                move(tc, 1, dirty)
            elif t == "sched_wakeup" and waiting[pid]["why"] != "preempted" \
                    and waiting[pid]["cpu"] != tc:
                move(waiting[pid]["cpu"], -1, dirty)
                move(tc, 1, dirty)
                waiting[pid]["cpu"] = tc
        elif t == "sched_migrate_task":
            w = waiting.get(e["pid"])
            if w and w["cpu"] != e["dest_cpu"]:
                move(w["cpu"], -1, dirty)
                move(e["dest_cpu"], 1, dirty)
                w["cpu"] = e["dest_cpu"]
        elif t == "scx_dsq_insert":
            dsq.setdefault(e["dsq_id"], []).append((ts, e["depth"]))
        elif t == "sched_process_free":
            w = waiting.pop(e["pid"], None)
            if w:
                move(w["cpu"], -1, dirty)
        for cpu in dirty:
            rq.setdefault(cpu, []).append((ts, depth[cpu]))
    return waits, rq, dsq


def main():
    dump = sys.argv[1] == "--dump"
    if dump:
        del sys.argv[1]
    trace = parse_text(open(sys.argv[1]).read())
    events = []
    switches = set()
    for line in open(sys.argv[2]):
        e = json.loads(line)
        if e.get("type") in ("header", "trailer"):
            continue
        events.append(e)
        if e["type"] == "sched_switch":
            switches.add((e["ts"], e["next_pid"]))
    errors = []

    threads, counters, tes = {}, {}, []
    for p in trace.get("packet", []):
        if one(p, "trusted_packet_sequence_id") != SEQ_READABLE:
            if "track_event" in p and "scx.readable" in str(p["track_event"]):
                errors.append("a readable event outside sequence 4")
            continue
        for d in p.get("track_descriptor", []):
            if "thread" in d:
                if one(d, "50001") != 1:
                    errors.append("thread track %d without our marker" % one(d, "uuid"))
                threads[one(d, "uuid")] = one(d["thread"][0], "tid")
            elif "counter" in d:
                counters[one(d, "uuid")] = one(d, "name")
        for te in p.get("track_event", []):
            if one(te, "categories") != "scx.readable":
                errors.append("an event without the scx.readable category")
            tes.append((one(p, "timestamp"), te))
    tes.sort(key=lambda x: x[0])  # trace_processor sorts by time too

    def args(te):
        return {one(a, "name"): one(a, "uint_value", one(a, "string_value"))
                for a in te.get("debug_annotations", [])}

    # flows: one begin, one end each
    begins, ends = {}, {}
    open_slices, slices = {}, []
    rq_got, dsq_got = {}, {}
    for ts, te in tes:
        typ, trk = one(te, "type"), one(te, "track_uuid")
        for f in te.get("flow_ids", []):
            begins.setdefault(f, []).append((ts, trk, te))
        for f in te.get("terminating_flow_ids", []):
            ends.setdefault(f, []).append((ts, trk, te))
        if typ == "TYPE_SLICE_BEGIN":
            if trk in open_slices:
                errors.append("nested waiting slices on track %d at %d" % (trk, ts))
            open_slices[trk] = (ts, te)
        elif typ == "TYPE_SLICE_END":
            if trk not in open_slices:
                errors.append("an END with no BEGIN on track %d at %d" % (trk, ts))
                continue
            bts, bte = open_slices.pop(trk)
            slices.append((threads.get(trk), bts, ts, bte))
        elif typ == "TYPE_COUNTER":
            name = counters.get(trk, "?")
            m = re.match(r"run queue depth cpu(\d+)$", name)
            if m:
                rq_got.setdefault(int(m.group(1)), []).append((ts, one(te, "counter_value")))
            m = re.match(r"DSQ 0x([0-9a-f]+) depth$", name)
            if m:
                dsq_got.setdefault(int(m.group(1), 16), []).append(
                    (ts, one(te, "counter_value")))
    if open_slices:
        errors.append("%d slices never end" % len(open_slices))
    if dump:
        for tid, b, e, te in slices:
            a = args(te)
            print("wait %s %d %d %s wait_ns=%s reason=%s waker=%s" % (
                tid, b, e, one(te, "name"), a.get("wait_ns"), a.get("reason"),
                a.get("waker_tid")))
        for f in sorted(begins):
            for bts, btrk, _ in begins[f]:
                for ets, etrk, _ in ends.get(f, []):
                    print("flow %s %d -> %s %d" % (threads.get(btrk), bts, threads.get(etrk), ets))
        for cpu in sorted(rq_got):
            for ts, v in rq_got[cpu]:
                print("rq cpu%d %d %d" % (cpu, ts, v))
        for d in sorted(dsq_got):
            for ts, v in dsq_got[d]:
                print("dsq 0x%x %d %d" % (d, ts, v))
        return

    for f in set(begins) | set(ends):
        b, e = begins.get(f, []), ends.get(f, [])
        if len(b) != 1 or len(e) != 1:
            errors.append("flow %d: %d begins, %d ends" % (f, len(b), len(e)))
            continue
        (bts, btrk, bte), (ets, etrk, ete) = b[0], e[0]
        wakee = threads.get(etrk)
        if one(ete, "name") != "switch-in" or (ets, wakee) not in switches:
            errors.append("flow %d ends at %d on tid %s, not on a switch to it" % (f, ets, wakee))
        if one(bte, "name") != "wakeup" or args(bte).get("wakee_tid") != wakee:
            errors.append("flow %d begins at %d not on a wakeup of tid %s" % (f, bts, wakee))
        if bts > ets:
            errors.append("flow %d goes back in time" % f)

    # the writer takes events in time order (a reorder window), ties as they came
    waits, rq_want, dsq_want = expected(sorted(events, key=lambda e: e["ts"]))
    got = sorted((tid, b, e, args(te).get("reason")) for tid, b, e, te in slices)
    want = sorted((tid, b, e, why) for tid, b, e, waker, why, cpu in waits)
    if got != want:
        missing = [w for w in want if w not in got][:5]
        extra = [g for g in got if g not in want][:5]
        errors.append("waiting slices differ from the stream's waits: missing %s, extra %s"
                      % (missing, extra))
    for tid, b, e, te in slices:
        if args(te).get("wait_ns") != e - b:
            errors.append("slice of tid %s at %d: wait_ns %s, duration %d"
                          % (tid, b, args(te).get("wait_ns"), e - b))
    # flows: one per wait after a wakeup by a task
    want_flows = sorted((b, waker, tid, e) for tid, b, e, waker, why, cpu in waits
                        if why != "preempted" and waker and waker != tid)
    got_flows = sorted((b[0][0], threads.get(b[0][1]), threads.get(ends[f][0][1]), ends[f][0][0])
                       for f, b in begins.items() if f in ends)
    if got_flows != want_flows:
        errors.append("flows differ: want %d, got %d (first missing %s)" % (
            len(want_flows), len(got_flows),
            [w for w in want_flows if w not in got_flows][:3]))
    for cpu in set(rq_want) | set(rq_got):
        if rq_want.get(cpu, []) != rq_got.get(cpu, []):
            w, g = rq_want.get(cpu, []), rq_got.get(cpu, [])
            i = next((i for i in range(min(len(w), len(g))) if w[i] != g[i]), min(len(w), len(g)))
            errors.append("run queue depth cpu%d: sample %d: want %s, got %s"
                          % (cpu, i, w[i:i + 1], g[i:i + 1]))
    if dsq_want != dsq_got:
        errors.append("DSQ depth counters differ: want %s, got %s" % (dsq_want, dsq_got))

    for e in errors[:20]:
        print(e, file=sys.stderr)
    print("flows %d waits %d rq-samples %d dsq-samples %d" % (
        len(begins), len(slices), sum(map(len, rq_got.values())),
        sum(map(len, dsq_got.values()))))
    sys.exit(1 if errors else 0)


main()
