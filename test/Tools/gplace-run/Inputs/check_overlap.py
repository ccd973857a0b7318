"""Prints how many kernels of a gplace-run --trace ran at once at most:
the slices of category "launch" (a kernel or a fused group) of the
measured process, by their start and duration (ts, dur in µs), and how
many slices there are.

Usage: check_overlap.py TRACE.json
"""
import json
import sys

events = json.load(open(sys.argv[1]))["traceEvents"]
# Starts before ends at the same instant: a slice that starts as another
# ends does not run beside it.
edges = []
for event in events:
    if event.get("ph") == "X" and event.get("cat") == "launch":
        start = round(event["ts"] * 1000)
        end = start + round(event["dur"] * 1000)
        edges += [(start, 1), (end, -1)]
edges.sort(key=lambda edge: (edge[0], edge[1]))
running = most = 0
for _, step in edges:
    running += step
    most = max(most, running)
print(f"launches: {len(edges) // 2}")
print(f"at most {most} at once")
