"""Checks the Chrome trace and the bench JSON of `onnxcc bench --profile`.

Usage: check_trace.py TRACE.json BENCH.json RUNS NODE...

Every event has the fields of ONNX Runtime's profiler; there are RUNS
"Session" events and each NODE has a "Node" event in every run, inside it;
the bench JSON lists the nodes sorted by time, with RUNS calls each at least.
"""
import json
import sys

trace_path, bench_path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
nodes = sys.argv[4:]
events = json.load(open(trace_path))
assert isinstance(events, list) and events, "the trace is not an array of events"
for e in events:
    assert set(e) == {"cat", "name", "ph", "ts", "dur", "pid", "tid", "args"}, e
    assert e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= 0, e
sessions = [e for e in events if e["cat"] == "Session"]
assert len(sessions) == runs, len(sessions)
node_events = [e for e in events if e["cat"] == "Node"]
assert all("op_name" in e["args"] for e in node_events), node_events
for name in nodes:
    mine = [e for e in node_events if e["name"] == name]
    assert len(mine) >= runs, (name, len(mine))
# A node's event lies within its run (the marks are in run()), to rounding.
for e in node_events:
    assert any(s["ts"] - 0.01 <= e["ts"] and e["ts"] + e["dur"] <= s["ts"] + s["dur"] + 0.01
               for s in sessions), e
profile = json.load(open(bench_path))["profile"]
assert {p["node"] for p in profile} >= set(nodes), profile
times = [p["total_ms"] for p in profile]
assert times == sorted(times, reverse=True), times
assert all(p["calls"] >= runs for p in profile), profile
assert 0 < sum(p["share"] for p in profile) <= 1.0001, profile
print("%d runs, the nodes named, sorted by time" % runs)
