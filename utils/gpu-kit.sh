#!/usr/bin/env bash
# Packs what the GPU tests and benchmarks need on a GPU machine that has CUDA
# but no MLIR or LLVM (docs/gpu.md, "Running on a GPU machine"):
#   utils/gpu-kit.sh [build-static] [kit.tar.gz]
# The kit holds the self-contained gplace-run (GPLACE_STATIC_TOOLS), the
# self-contained gplace-opt when it builds, the cuBLAS/cudaMemcpy baseline of
# bench/gpu.sh, LLVM's FileCheck, not, count and split-file with the shared
# libraries it needs, and lit. On the GPU machine, in a checkout:
#   utils/gpu-kit.sh --unpack kit.tar.gz && gpu-kit/run-gpu-tests.sh
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --unpack ]; then
  rm -rf "$src/gpu-kit" && mkdir -p "$src/gpu-kit"
  tar -xzf "${2:?usage: utils/gpu-kit.sh --unpack kit.tar.gz}" -C "$src/gpu-kit"
  exit 0
fi
build=${1:-$src/build-static}
out=${2:-$src/gpu-kit.tar.gz}
llvm=/usr/lib/llvm-19
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -G Ninja -S "$src" -B "$build" -DMLIR_DIR=$llvm/lib/cmake/mlir \
    -DGPLACE_STATIC_TOOLS=ON -DGPLACE_STATIC_WITH_DNNL=ON \
    -DGPLACE_BUILD_TESTS=OFF
fi
cmake --build "$build" -j2 --target gplace-run
kit=$(mktemp -d)
trap 'rm -rf "$kit"' EXIT
mkdir -p "$kit/bin" "$kit/lib"
cmake --build "$build" -j2 --target gplace-opt || true # optional
cp "$build/bin/gplace-run" "$llvm/bin/FileCheck" "$llvm/bin/not" \
  "$llvm/bin/count" "$llvm/bin/split-file" "$kit/bin/"
[ -x "$build/bin/gplace-opt" ] && cp "$build/bin/gplace-opt" "$kit/bin/"
for lib in $(ldd "$llvm/bin/FileCheck" | awk '/=> \// { print $3 }'); do
  case $(basename "$lib") in
    libc.so*|libm.so*|libgcc_s.so*|libstdc++.so*) ;; # the machine has these
    *) cp -L "$lib" "$kit/lib/" ;;
  esac
done
# oneDNN (GPLACE_STATIC_WITH_DNNL) and what it loads, for the CPU's
# convolutions: Debian's libdnnl, libgomp and libOpenCL.
for lib in $(ldd "$build/bin/gplace-run" | awk '/=> \// { print $3 }'); do
  case $(basename "$lib") in
    libc.so*|libm.so*|libgcc_s.so*|libstdc++.so*) ;;
    *) cp -L "$lib" "$kit/lib/" ;;
  esac
done
g++ -O2 "$src/bench/gemm_cublas.cpp" -I/usr/local/cuda/include \
  -L/usr/local/cuda/lib64 -lcublas -lcudart_static -ldl -lpthread -lrt \
  -Wl,-rpath,/usr/local/cuda/lib64 -o "$kit/bin/gplace-bench-cublas"
cp -r "$llvm/build/utils/lit" "$kit/lit"
find "$kit/lit" -name __pycache__ -prune -exec rm -rf {} +
cp "$src/utils/run-gpu-tests.sh" "$kit/"
tar -czf "$out" -C "$kit" .
ls -l "$out"
