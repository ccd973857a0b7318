#!/usr/bin/env bash
# Runs on a GPU machine from an unpacked kit (utils/gpu-kit.sh): lists the
# devices, runs the lit tests (the cuda-gpu ones included) with the kit's
# tools, then bench/gpu.sh.
#   gpu-kit/run-gpu-tests.sh [--no-bench]
set -u
kit=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$kit/.." && pwd)
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
"$kit/bin/gplace-run" --list-devices
mkdir -p "$kit/test"
cat > "$kit/test/lit.site.cfg.py" <<PY
config.llvm_tools_dir = "$kit/bin"
config.gplace_obj_root = "$kit"
config.gplace_src_root = "$src"
config.python_executable = "$(command -v python3)"
config.cxx_compiler = "$(command -v c++ || echo c++)"
config.cmake_command = "$(command -v cmake || echo cmake)"
config.cmake_generator = "Ninja"
config.gplace_have_mpi = "OFF"
config.gplace_have_dnnl = "$([ -f "$kit/lib/libdnnl.so.2" ] && echo ON || echo OFF)"
config.gplace_have_onnx = "OFF"
config.gplace_sanitize = ""
config.gplace_jemalloc = ""
import lit.llvm
lit.llvm.initialize(lit_config, config)
lit_config.load_config(config, "$src/test/lit.cfg.py")
PY
# Every lit test but those that need what the kit does not carry (placement
# policy plugins, the unit tests).
skip=$(cd "$src/test" && grep -rlE '%plugins|%cmake|gplace-unittests|gplace-fuzz|HELP-HIDDEN' --include='*.mlir' --include='*.test' . |
  sed 's|^\./||' | paste -sd'|' -)
LIT_FILTER_OUT="${skip:-^$}" python3 "$kit/lit/lit.py" -sv "$kit/test"
status=$?
[ "${1:-}" = --no-bench ] && exit $status
GPLACE_BENCH_CUBLAS=$kit/bin/gplace-bench-cublas "$src/bench/gpu.sh" "$kit/bin/gplace-run" || status=1
exit $status
