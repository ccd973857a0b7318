#!/usr/bin/env bash
# Cluster training over TCP by mpirun binding, in interleaved rounds:
#   bench/cluster_binding.sh path/to/gplace-run [ROUNDS]
# train.mlir's logistic regression (500 epochs of 4 steps), 4 emulated GPUs
# mirrored: one process, then 2 tasks x 2 emulated GPUs over TCP
# (`--mca btl tcp,self`) with mpirun's default binding (which gplace-run
# now undoes, docs/distributed.md), `--bind-to core` (the binding kept:
# what the default did before) and `--bind-to none`. Prints each sample's
# "then mean" step time in µs, then per side the median and best and their
# ratio against one process (one process's time over the side's).
set -eu
run=$(realpath "${1:?usage: bench/cluster_binding.sh path/to/gplace-run [ROUNDS]}")
rounds=${2:-9}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$here/../test/Tools/gplace-run/Inputs/make_idx.py" "$tmp"
args="$here/../test/Tools/gplace-run/Inputs/train.mlir --entry=train --init=init --input=@$tmp/x.idx --input=@$tmp/y.idx.gz --epochs=500 --shuffle=5 --print-timing"
cluster="--emulate-gpus=2 --cluster=worker:2 --replicate=devices=/job:worker/task:0/gpu:0,/job:worker/task:0/gpu:1,/job:worker/task:1/gpu:0,/job:worker/task:1/gpu:1"
mpi="mpirun --allow-run-as-root --oversubscribe -np 2 --mca btl tcp,self"
mean() { grep -o "then mean [0-9.]*" | awk '{print $3 * 1000}'; }
for r in $(seq "$rounds"); do
  echo "one $("$run" $args --emulate-gpus=4 --replicas=4 2>&1 | mean)"
  echo "default $($mpi "$run" $args $cluster 2>&1 | mean)"
  echo "core $($mpi --bind-to core "$run" $args $cluster 2>&1 | mean)"
  echo "none $($mpi --bind-to none "$run" $args $cluster 2>&1 | mean)"
done | tee "$tmp/samples.txt"
/usr/bin/python3 - "$tmp/samples.txt" <<'PY'
import statistics, sys
d = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    d.setdefault(k, []).append(float(v))
one = d["one"]
print("| side | step µs (median / best) | ratio vs 1 process (median / best) |")
print("|---|---:|---:|")
for k in ["one", "default", "core", "none"]:
    x = d[k]
    print("| %s | %.0f / %.0f | %.2f / %.2f |" % (
        k, statistics.median(x), min(x),
        statistics.median(one) / statistics.median(x), min(one) / min(x)))
PY
