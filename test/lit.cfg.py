# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "GPLACE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gplace_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "Unit", "lib", "Inputs"]

config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
llvm_config.use_default_substitutions()
# `not` and `count` at the start of a RUN line are found on PATH only.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

config.substitutions.append(("%gplace_src_root", config.gplace_src_root))
config.substitutions.append(("%examples",
                             os.path.join(config.gplace_src_root, "examples")))
config.substitutions.append(("%python", config.python_executable))
# For building out-of-tree plugins the way users do (Plugin/).
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cmake_generator", '"%s"' % config.cmake_generator))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%gplace_obj_root", config.gplace_obj_root))
config.substitutions.append(("%plugins",
                             os.path.join(config.gplace_obj_root, "lib")))

tool_dirs = [os.path.join(config.gplace_obj_root, "bin"),
             config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["gplace-opt", "gplace-run", "gplace-unittests",
                                    "gplace-fuzz-pipeline", "gplace-fuzz-npy",
                                    "gplace-fuzz-idx", "gplace-fuzz-checkpoint",
                                    "gplace-translate", "gplace-onnx-gen",
                                    "gplace-onnx-test", "gplace-fuzz-onnx"],
                                   tool_dirs)

# `onnx`: gplace was built with the ONNX importer (libonnx-dev), which
# gplace-translate, gplace-onnx-gen and gplace-onnx-test need.
# `onnx-testdata`: Debian's libonnx-testdata (ONNX's backend test cases) is
# installed, at %onnx_testdata.
if config.gplace_have_onnx in ("ON", "1", "TRUE"):
    config.available_features.add("onnx")
onnx_testdata = "/usr/include/onnx/backend/test/data"
if os.path.isdir(os.path.join(onnx_testdata, "node")):
    config.available_features.add("onnx-testdata")
config.substitutions.append(("%onnx_testdata", onnx_testdata))

# `jemalloc`: the tools were linked with jemalloc (gplace_link_allocator in
# cmake/GPlaceUtils.cmake).
if config.gplace_jemalloc:
    config.available_features.add("jemalloc")

# `dnnl`: gplace was built with oneDNN (libdnnl-dev), which runs conv2d and
# pooling on the CPU. `fashion-mnist`: Debian's dataset-fashion-mnist is
# installed (the CNN example's test trains on a slice of it).
import os
if config.gplace_have_dnnl in ("ON", "1", "TRUE"):
    config.available_features.add("dnnl")
if os.path.exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"):
    config.available_features.add("fashion-mnist")

import re
# `cpu-avx2`: the CPU has AVX2 and FMA (gplace-run then never runs
# OpenBLAS's Prescott kernels unless told to).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = set(re.findall(r"^flags\s*:(.*)$", cpuinfo.read(), re.M)[0].split())
    if {"avx2", "fma"} <= flags:
        config.available_features.add("cpu-avx2")
    # `cpu-avx512`: oneDNN's avx512_core kernels (Winograd's among them).
    # `cpu-avx512-bf16`: oneDNN can run bf16 natively (avx512_core_bf16).
    # ONEDNN_MAX_CPU_ISA below AVX-512 (passed through below) takes both
    # away.
    isa_cap = os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper()
    avx512_allowed = not (isa_cap and not isa_cap.startswith(
        ("AVX512", "AVX10", "ALL")))
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags and \
            avx512_allowed:
        config.available_features.add("cpu-avx512")
    if {"avx512f", "avx512bw", "avx512vl", "avx512_bf16"} <= flags and \
            avx512_allowed:
        config.available_features.add("cpu-avx512-bf16")
except (OSError, IndexError):
    pass

# `no-sanitizer`: the tools were built without AddressSanitizer, which
# reserves terabytes of address space and cannot start under `ulimit -v`.
if not config.gplace_sanitize:
    config.available_features.add("no-sanitizer")

# `mpi`: gplace-run was built with MPI and mpirun is on PATH: the cluster
# tests launch several gplace-run processes with %mpirun (Open MPI; as
# root it needs --allow-run-as-root, and --oversubscribe runs more ranks
# than cores). Open MPI's own allocations look like leaks to
# LeakSanitizer, so in sanitizer builds its ranks do not look for leaks.
import shutil
# The %mpirun jobs of the tests that run at once take turns (flock on one
# file of the build): two Open MPI 4.1 jobs started together on one host
# now and then end with "mpirun has exited due to process rank 1 with PID 0
# ... exiting improperly" after both ranks finished and finalized
# (open-mpi/ompi#12607, #9389: its runtime's bookkeeping, not the program),
# which failed cluster.test beside cluster-tcp.test in a CI run.
if (config.gplace_have_mpi in ("ON", "1", "TRUE") and shutil.which("mpirun")
        and shutil.which("flock")):
    config.available_features.add("mpi")
    mpirun = "flock %s mpirun --allow-run-as-root --oversubscribe" % (
        os.path.join(config.gplace_obj_root, "test", "mpirun.lock"))
    if config.gplace_sanitize:
        mpirun = "env ASAN_OPTIONS=detect_leaks=0 " + mpirun
    config.substitutions.append(("%mpirun", mpirun))

# `taskset-one-cpu`: %taskset1 runs a command on one of the CPUs this
# process may use, while it may use more (cluster-binding.test: a task
# bound as mpirun binds one).
if shutil.which("taskset") and hasattr(os, "sched_getaffinity"):
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) >= 2:
        config.available_features.add("taskset-one-cpu")
        config.substitutions.append(("%taskset1", "taskset -c %d" % allowed[0]))

# `cuda-gpu`: a CUDA GPU is visible (gplace-run found one). GPU tests in
# Execution/cuda/ require it; everywhere else they are unsupported.
import re
import subprocess
try:
    listing = subprocess.run(
        [os.path.join(config.gplace_obj_root, "bin", "gplace-run"),
         "--list-devices"], capture_output=True, text=True, timeout=120).stdout
    if re.search(r"^CUDA: [0-9]+ GPUs?: ", listing, re.M):
        config.available_features.add("cuda-gpu")
    # `no-cuda-driver`: libcuda.so.1 could not be opened.
    if re.search(r"^CUDA: no GPU \(libcuda\.so", listing, re.M):
        config.available_features.add("no-cuda-driver")
except (OSError, subprocess.SubprocessError):
    pass

# Every test but the GPU ones sees no CUDA GPU, so that device lists and
# placements are the same on machines with and without one;
# Execution/cuda/lit.local.cfg lifts this.
config.environment["CUDA_VISIBLE_DEVICES"] = ""

# lit clears HOME, where the GPU kernel cache lives by default: keep the
# cache in the build tree instead, shared by the tests of a run.
config.environment["GPLACE_KERNEL_CACHE_DIR"] = os.path.join(
    config.gplace_obj_root, "test", "kernel-cache")

# The libraries' instruction-set overrides pass through, so that the suite
# can be run here as a machine with other vector units would run it (CI
# may land on AVX2 without AVX-512):
#   ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell lit ...
for name in ("ONEDNN_MAX_CPU_ISA", "OPENBLAS_CORETYPE", "OMP_NUM_THREADS"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
