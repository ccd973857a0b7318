"""Checks a timeline in Chrome's trace event format and prints its tracks.

    check_trace.py FILE [--runs N]

Checks what Perfetto's JSON importer, chrome://tracing and TensorBoard need:
an object with a "traceEvents" list (and "displayTimeUnit" "ms"); every
event has name, ph, ts, pid and tid; a complete event (ph "X") has a
category, a duration >= 0 and args; metadata events (ph "M") name each
process and each track (thread) that holds slices; slices of one track do
not overlap (each ends before the next starts). With --runs N, a measured
trace (gplace-run --trace) has N "run" slices and every other slice's
args.run is one of them. Then prints, sorted, for FileCheck:

    process <pid>: <name>
    track <pid>/<tid>: <name>
    slice <category> <name> on <track name>   (each distinct one once)

Exits 1 with a message on the first problem.
"""

import json
import sys


def fail(message):
    print("check_trace: " + message)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    runs = None
    if len(args) == 3 and args[1] == "--runs":
        runs = int(args[2])
        args = args[:1]
    if len(args) != 1:
        fail("usage: check_trace.py FILE [--runs N]")
    with open(args[0]) as f:
        trace = json.load(f)
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        fail("no traceEvents list")
    if trace.get("displayTimeUnit") != "ms":
        fail("displayTimeUnit is not ms")
    processes, tracks, slices = {}, {}, []
    for event in trace["traceEvents"]:
        for key in ("name", "ph", "ts", "pid", "tid"):
            if key not in event:
                fail("an event without %s: %r" % (key, event))
        if not isinstance(event["ts"], (int, float)):
            fail("ts is not a number: %r" % event)
        if not isinstance(event["pid"], int) or not isinstance(event["tid"], int):
            fail("pid or tid is not an integer: %r" % event)
        if event["ph"] == "M":
            name = event["args"]["name"] if event["name"].endswith("_name") else None
            if event["name"] == "process_name":
                processes[event["pid"]] = name
            elif event["name"] == "thread_name":
                tracks[(event["pid"], event["tid"])] = name
            elif event["name"] not in ("process_sort_index", "thread_sort_index"):
                fail("unknown metadata event: %r" % event)
        elif event["ph"] == "X":
            if not isinstance(event.get("dur"), (int, float)) or event["dur"] < 0:
                fail("a slice without a duration >= 0: %r" % event)
            if not isinstance(event.get("cat"), str) or not isinstance(event.get("args"), dict):
                fail("a slice without cat or args: %r" % event)
            slices.append(event)
        else:
            fail("unexpected ph %r" % event["ph"])
    if not slices:
        fail("no slices")
    by_track = {}
    for event in slices:
        key = (event["pid"], event["tid"])
        if event["pid"] not in processes:
            fail("process %d has no process_name" % event["pid"])
        if key not in tracks:
            fail("track %d/%d has no thread_name" % key)
        by_track.setdefault(key, []).append(event)
    for key, events in by_track.items():
        events.sort(key=lambda e: e["ts"])
        for before, after in zip(events, events[1:]):
            # Times are printed to the nanosecond: allow its rounding.
            if after["ts"] < before["ts"] + before["dur"] - 0.002:
                fail("slices overlap on track %s: %r and %r" % (tracks[key], before, after))
    if runs is not None:
        run_slices = [e for e in slices if e["cat"] == "run"]
        if len(run_slices) != runs:
            fail("%d run slices, expected %d" % (len(run_slices), runs))
        for event in slices:
            if event["args"].get("run") not in range(runs):
                fail("a slice of no run: %r" % event)
    for pid in sorted(processes):
        print("process %d: %s" % (pid, processes[pid]))
    for key in sorted(by_track):
        print("track %d/%d: %s" % (key[0], key[1], tracks[key]))
    for line in sorted({"slice %s %s on %s" % (e["cat"], e["name"], tracks[(e["pid"], e["tid"])])
                        for e in slices if e["cat"] != "run"}):
        print(line)


main()
