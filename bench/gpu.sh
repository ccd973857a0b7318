#!/usr/bin/env bash
# GPU benchmarks, each a ratio measured side by side in one run, for a GPU
# machine that has CUDA and a self-contained gplace-run (docs/gpu.md) but no
# MLIR:
#   bench/gpu.sh path/to/gplace-run [N]
# 1. GEMM N^3 (default 4096) in f32, tf32 and bf16 through gplace-run against
#    cuBLAS called directly (goal: >= 0.9);
# 2. dispatch: a chain of 10,000 tiny elementwise ops on GPU:0, us per op
#    (goal: <= 1 with CUDA graphs), with fusion off so that every op is a
#    launch, replayed as one CUDA graph (the default) and issued one by one
#    (--cuda-graphs=off), then fused;
#    fusion's speed-up on a memory-bound chain of 8 ops over 16M floats;
# 3. copies host->GPU (pinned input), GPU->host and GPU->GPU (with two GPUs)
#    against cudaMemcpy's bandwidth (goal: >= 0.8).
# gplace-run's times are per run, measured in the process (--print-timing):
# the best of the runs after the first. The baselines come from
# bench/gemm_cublas.cpp, built here with g++ unless $GPLACE_BENCH_CUBLAS names
# a prebuilt one. Arithmetic is done in awk (no bc needed).
set -eu
run=${1:?usage: bench/gpu.sh path/to/gplace-run [N]}
n=${2:-4096}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cublas=${GPLACE_BENCH_CUBLAS:-}
if [ -z "$cublas" ]; then
  g++ -O2 "$here/gemm_cublas.cpp" -I/usr/local/cuda/include \
      -L/usr/local/cuda/lib64 -lcublas -lcudart -o "$tmp/cublas"
  cublas=$tmp/cublas
fi

calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }
# best_run RUNS command... -> seconds: the best of the runs after the first.
best_run() {
  local k=$1; shift
  "$@" --iterations="$k" --print-timing 2>&1 >/dev/null |
    awk '/^timing:/ { for (i = 1; i <= NF; ++i) if ($i == "best") print $(i + 1) / 1000 }'
}

gemm_graph() { # N type
  local t="tensor<$1x$1x$2>"
  cat <<MLIR
func.func @main() -> tensor<1x1x$2> {
  %a = gplace.constant dense<1.0> : $t {device = "/gpu:0"}
  %c = gplace.matmul %a, %a {device = "/gpu:0"} : ($t, $t) -> $t
  %s = gplace.slice %c begin = [0, 0] size = [1, 1] {device = "/gpu:0"} : $t -> tensor<1x1x$2>
  return %s : tensor<1x1x$2>
}
MLIR
}

echo "| benchmark | gplace-run | baseline | ratio |"
echo "|---|---:|---:|---:|"
for mode in f32 tf32 bf16; do
  type=f32; flags=""
  [ "$mode" = bf16 ] && type=bf16
  [ "$mode" = tf32 ] && flags=--gpu-allow-tf32
  gemm_graph "$n" "$type" > "$tmp/gemm.mlir"
  g=$(best_run 21 "$run" "$tmp/gemm.mlir" $flags)
  c=$("$cublas" gemm "$n" "$mode" 20)
  printf "| GEMM %s³ %s | %.1f TFLOP/s | %.1f TFLOP/s (cublasGemmEx) | %.2f |\n" \
    "$n" "$mode" "$(calc "2 * $n ^ 3 / $g / 1e12")" \
    "$(calc "2 * $n ^ 3 / $c / 1e12")" "$(calc "$c / $g")"
done

{
  echo 'func.func @main(%x0: tensor<4xf32>) -> tensor<4xf32> {'
  echo '  %c = gplace.constant dense<1.0> : tensor<4xf32> {device = "/gpu:0"}'
  for i in $(seq 1 10000); do
    echo "  %x$i = gplace.add %x$((i - 1)), %c {device = \"/gpu:0\"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>"
  done
  echo '  return %x10000 : tensor<4xf32>'
  echo '}'
} > "$tmp/chain.mlir"
d=$(best_run 21 "$run" "$tmp/chain.mlir" --input=4xf32=1,2,3,4 --gpu-fusion=false)
o=$(best_run 21 "$run" "$tmp/chain.mlir" --input=4xf32=1,2,3,4 --gpu-fusion=false --cuda-graphs=off)
printf "| dispatch, 10000 elementwise ops on GPU:0, one launch each, replayed as a CUDA graph | %.2f µs/op | %.2f µs/op (--cuda-graphs=off) | %.2f |\n" \
  "$(calc "$d / 10000 * 1e6")" "$(calc "$o / 10000 * 1e6")" "$(calc "$o / $d")"
f=$(best_run 21 "$run" "$tmp/chain.mlir" --input=4xf32=1,2,3,4)
printf "| same chain, fused | %.2f µs/op | | |\n" "$(calc "$f / 10000 * 1e6")"

# Fusion on a memory-bound chain: 8 elementwise ops over 16M floats; one
# launch per op reads and writes every intermediate, the fused kernel none.
big=16777216
{
  echo "func.func @main() -> tensor<1xf32> {"
  echo "  %x = gplace.constant dense<0.5> : tensor<${big}xf32> {device = \"/gpu:0\"}"
  prev=x
  i=0
  for op in mul add tanh sub exp add neg mul; do
    i=$((i + 1))
    case $op in
      tanh|exp|neg) echo "  %v$i = gplace.$op %$prev {device = \"/gpu:0\"} : tensor<${big}xf32>" ;;
      *) echo "  %v$i = gplace.$op %$prev, %x {device = \"/gpu:0\"} : (tensor<${big}xf32>, tensor<${big}xf32>) -> tensor<${big}xf32>" ;;
    esac
    prev=v$i
  done
  echo "  %s = gplace.slice %$prev begin = [0] size = [1] {device = \"/gpu:0\"} : tensor<${big}xf32> -> tensor<1xf32>"
  echo "  return %s : tensor<1xf32>"
  echo "}"
} > "$tmp/fusion.mlir"
u=$(best_run 21 "$run" "$tmp/fusion.mlir" --gpu-fusion=false)
f=$(best_run 21 "$run" "$tmp/fusion.mlir")
printf "| 8 elementwise ops over 16M f32, fused vs one launch each | %.3f ms | %.3f ms | %.2f |\n" \
  "$(calc "$f * 1e3")" "$(calc "$u * 1e3")" "$(calc "$u / $f")"

mib=256
elements=$((mib * 1024 * 256))
# A .npy input of 256 MiB of zeros: inputs are staged in pinned memory.
python3 - "$tmp/big.npy" "$elements" <<'PY' 2>/dev/null || true
import sys
path, n = sys.argv[1], int(sys.argv[2])
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    f.truncate(f.tell() + 4 * n)
PY
cat > "$tmp/h2d.mlir" <<MLIR
func.func @main(%x: tensor<${elements}xf32>) -> tensor<1xf32> {
  %s = gplace.slice %x begin = [0] size = [1] {device = "/gpu:0"} : tensor<${elements}xf32> -> tensor<1xf32>
  return %s : tensor<1xf32>
}
MLIR
cat > "$tmp/d2h.mlir" <<MLIR
func.func @main() -> tensor<${elements}xf32> {
  %a = gplace.constant dense<1.0> : tensor<${elements}xf32> {device = "/gpu:0"}
  %b = gplace.neg %a {device = "/gpu:0"} : tensor<${elements}xf32>
  return %b : tensor<${elements}xf32>
}
MLIR
bytes=$((mib * 1024 * 1024))
gbps() { calc "$bytes / $1 / 1e9"; }
if [ -f "$tmp/big.npy" ]; then
  t=$(best_run 11 "$run" "$tmp/h2d.mlir" "--input=@$tmp/big.npy")
  b=$("$cublas" copy $mib h2d 20)
  printf "| copy host→GPU %s MiB | %.1f GB/s | %.1f GB/s (cudaMemcpy) | %.2f |\n" "$mib" "$(gbps "$t")" "$b" "$(calc "$(gbps "$t") / $b")"
fi
t=$(best_run 11 "$run" "$tmp/d2h.mlir")
b=$("$cublas" copy $mib d2h 20)
printf "| copy GPU→host %s MiB (+ a neg kernel) | %.1f GB/s | %.1f GB/s (cudaMemcpy) | %.2f |\n" "$mib" "$(gbps "$t")" "$b" "$(calc "$(gbps "$t") / $b")"
if "$run" --list-devices | grep -q 'device:GPU:1: device_type: GPU, .*compute capability: [0-9]'; then
  cat > "$tmp/peer.mlir" <<MLIR
func.func @main() -> tensor<1xf32> {
  %a = gplace.constant dense<1.0> : tensor<${elements}xf32> {device = "/gpu:0"}
  %b = gplace.neg %a {device = "/gpu:0"} : tensor<${elements}xf32>
  %s = gplace.slice %b begin = [0] size = [1] {device = "/gpu:1"} : tensor<${elements}xf32> -> tensor<1xf32>
  return %s : tensor<1xf32>
}
MLIR
  t=$(best_run 11 "$run" "$tmp/peer.mlir")
  b=$("$cublas" copy $mib peer 20)
  printf "| copy GPU:0→GPU:1 %s MiB (+ a neg kernel) | %.1f GB/s | %.1f GB/s (cudaMemcpyPeer) | %.2f |\n" "$mib" "$(gbps "$t")" "$b" "$(calc "$(gbps "$t") / $b")"
fi
