#!/usr/bin/env bash
# GPU benchmarks, each a ratio measured side by side in one run, for a GPU
# machine that has CUDA and a self-contained gplace-run (docs/gpu.md) but no
# MLIR:
#   bench/gpu.sh path/to/gplace-run [N]
# 1. GEMM N^3 (default 4096) in f32, tf32 and bf16 through gplace-run against
#    cuBLAS called directly (goal: >= 0.9);
# 2. dispatch: a chain of 10,000 tiny elementwise ops on GPU:0, us per op
#    (goal: <= 5);
# 3. copies host->GPU (pinned input), GPU->host and GPU->GPU (with two GPUs)
#    against cudaMemcpy's bandwidth (goal: >= 0.8).
# gplace-run times are per iteration: (t(1+K) - t(1)) / K, best of 3.
set -eu
run=${1:?usage: bench/gpu.sh path/to/gplace-run [N]}
n=${2:-4096}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -O2 "$here/gemm_cublas.cpp" -I/usr/local/cuda/include \
    -L/usr/local/cuda/lib64 -lcublas -lcudart -o "$tmp/cublas"

seconds() { local s e; s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
best() { local b=1e9 t; for _ in 1 2 3; do t=$(seconds "$@"); b=$(echo "if ($t < $b) $t else $b" | bc -l); done; echo "$b"; }
per_iteration() { # K command...
  local k=$1; shift
  local one many
  one=$(best "$@" --iterations=1)
  many=$(best "$@" --iterations=$((k + 1)))
  echo "($many - $one) / $k" | bc -l
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
  g=$(per_iteration 20 "$run" "$tmp/gemm.mlir" $flags)
  c=$("$tmp/cublas" gemm "$n" "$mode" 20)
  tflops() { echo "2 * $n^3 / $1 / 10^12" | bc -l; }
  printf "| GEMM %s³ %s | %.2f TFLOP/s | %.2f TFLOP/s (cublasGemmEx) | %.2f |\n" \
    "$n" "$mode" "$(tflops "$g")" "$(tflops "$c")" "$(echo "$c / $g" | bc -l)"
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
d=$(per_iteration 20 "$run" "$tmp/chain.mlir" --input=4xf32=1,2,3,4)
printf "| dispatch, 10000 elementwise ops on GPU:0 | %.2f µs/op | | |\n" \
  "$(echo "$d / 10000 * 10^6" | bc -l)"

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
gbps() { echo "$bytes / $1 / 10^9" | bc -l; }
if [ -f "$tmp/big.npy" ]; then
  t=$(per_iteration 10 "$run" "$tmp/h2d.mlir" "--input=@$tmp/big.npy")
  b=$("$tmp/cublas" copy $mib h2d 5)
  printf "| copy host→GPU %s MiB | %.1f GB/s | %.1f GB/s (cudaMemcpy) | %.2f |\n" "$mib" "$(gbps "$t")" "$b" "$(echo "$(gbps "$t") / $b" | bc -l)"
fi
t=$(per_iteration 10 "$run" "$tmp/d2h.mlir")
b=$("$tmp/cublas" copy $mib d2h 5)
printf "| copy GPU→host %s MiB (+ a neg kernel) | %.1f GB/s | %.1f GB/s (cudaMemcpy) | %.2f |\n" "$mib" "$(gbps "$t")" "$b" "$(echo "$(gbps "$t") / $b" | bc -l)"
if "$run" --list-devices | grep -q 'device:GPU:1: device_type: GPU, .*compute capability: [0-9]'; then
  cat > "$tmp/peer.mlir" <<MLIR
func.func @main() -> tensor<1xf32> {
  %a = gplace.constant dense<1.0> : tensor<${elements}xf32> {device = "/gpu:0"}
  %b = gplace.neg %a {device = "/gpu:0"} : tensor<${elements}xf32>
  %s = gplace.slice %b begin = [0] size = [1] {device = "/gpu:1"} : tensor<${elements}xf32> -> tensor<1xf32>
  return %s : tensor<1xf32>
}
MLIR
  t=$(per_iteration 10 "$run" "$tmp/peer.mlir")
  b=$("$tmp/cublas" copy $mib peer 5)
  printf "| copy GPU:0→GPU:1 %s MiB (+ a neg kernel) | %.1f GB/s | %.1f GB/s (cudaMemcpyPeer) | %.2f |\n" "$mib" "$(gbps "$t")" "$b" "$(echo "$(gbps "$t") / $b" | bc -l)"
fi
