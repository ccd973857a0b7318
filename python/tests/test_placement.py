"""Program.placement's reasons (each op's device and the placement rule
that chose it) and Program.memory_plan's liveness lower bound, checked
against gplace-opt --gplace-print-memory-plan (docs/python.md)."""
import os
import re
import subprocess

import numpy as np
import pytest

import gplace

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"
GPU1 = "/job:localhost/replica:0/task:0/device:GPU:1"

# MatMul asks for GPU:1; its constant operand has no inputs (TensorFlow's
# heuristic: with its consumer); Relu asks for nothing (the default
# priority: GPU:0).
GRAPH = """
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = gplace.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32> {name = "w"}
  %y = gplace.matmul %x, %w {device = "/gpu:1", name = "MatMul"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %z = gplace.relu %y {name = "Relu"} : tensor<2x2xf32>
  return %z : tensor<2x2xf32>
}
"""

# A variable, its read and its update: one colocation group.
COUNTER = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = gplace.variable dense<[1.0, 2.0]> : tensor<2xf32> {name = "w"VARIABLE}
  %r = gplace.read %w {name = "read"READ} : !gplace.resource<tensor<2xf32>>
  %y = gplace.mul %x, %r {name = "mul"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %one = gplace.constant dense<1.0> : tensor<2xf32> {name = "one"}
  %t = gplace.assign_add %w, %one {name = "update"} : !gplace.resource<tensor<2xf32>>
  return %y : tensor<2xf32>
}
"""


def counter(variable_device="", read_device=""):
    def attr(device):
        return f', device = "{device}"' if device else ""
    return COUNTER.replace("VARIABLE", attr(variable_device)).replace(
        "READ", attr(read_device))


def test_placement_is_device_reason_and_rule():
    program = gplace.compile(GRAPH, emulate_gpus=2)
    placement = program.placement
    assert list(placement) == ["w", "MatMul", "Relu"]  # the log's order
    matmul = placement["MatMul"]
    assert isinstance(matmul, gplace.Placement)
    assert matmul.device == GPU1 and matmul.rule == "request"
    assert matmul.reason == "explicit request '/gpu:1'"
    device, reason, rule = matmul  # a namedtuple
    assert (device, reason, rule) == (GPU1, matmul.reason, "request")
    assert str(matmul) == f"{GPU1} (explicit request '/gpu:1')"
    relu = placement["Relu"]
    assert relu.device == GPU0 and relu.rule == "priority"
    assert "GPU before CPU" in relu.reason
    w = placement["w"]
    assert w.device == GPU1 and w.rule == "heuristic"
    assert "consumer 'MatMul'" in w.reason


def test_default_priority_without_gpu_kernel():
    # Integer ops have no GPU kernel (TensorFlow's registry): the default
    # priority takes the CPU and says why.
    program = gplace.compile("""
func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %y = gplace.add %x, %x {name = "add"} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %y : tensor<2xi32>
}
""", emulate_gpus=1)
    add = program.placement["add"]
    assert add.device == CPU and add.rule == "priority"
    assert "no GPU kernel" in add.reason and "i32" in add.reason


def test_soft_placement_reason_names_the_request():
    program = gplace.compile(GRAPH, allow_soft_placement=True)
    matmul = program.placement["MatMul"]
    assert matmul.device == CPU and matmul.rule == "soft-placement"
    assert matmul.reason.startswith("soft placement: requested '/gpu:1'")
    assert "no devices matching" in matmul.reason


def test_callable_policy_reason():
    def variables_on_cpu(op):
        return "/cpu:0" if op.is_variable else None

    program = gplace.compile(counter(), emulate_gpus=1,
                             policy=variables_on_cpu)
    placement = program.placement
    assert placement["w"].device == CPU
    assert placement["w"].rule == "policy"
    assert placement["w"].reason == \
        "placement policy 'python' returned '/cpu:0'"
    # The ops the policy was not asked about: the default rules.
    assert placement["mul"].rule == "priority"
    assert placement["mul"].device == GPU0


def test_named_policy_reason():
    program = gplace.compile(counter(), emulate_gpus=1,
                             policy="variables-on-cpu")
    w = program.placement["w"]
    assert w.device == CPU and w.rule == "policy"
    assert "placement policy 'variables-on-cpu'" in w.reason


def test_colocation_with_a_variable():
    program = gplace.compile(counter(variable_device="/cpu:0"),
                             emulate_gpus=1)
    placement = program.placement
    assert placement["w"].rule == "request"
    assert placement["w"].reason == "explicit request '/cpu:0'"
    for name in ("read", "update"):
        assert placement[name].device == CPU
        assert placement[name].rule == "colocation"
        assert placement[name].reason == "colocated with resource 'w'"


def test_colocation_overrides_the_consumers_request():
    # TensorFlow's EnsureCompatibilityAcrossResourceEdge: the read's own
    # request yields to its variable's, and the reason says so.
    program = gplace.compile(
        counter(variable_device="/cpu:0", read_device="/gpu:0"),
        emulate_gpus=1)
    read = program.placement["read"]
    assert read.device == CPU and read.rule == "colocation"
    assert read.reason.startswith("colocated with resource 'w'; ignoring "
                                  "device specification '/gpu:0'")


def test_device_scope_reason():
    program = gplace.compile("""
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> attributes {gplace.default_device = "/gpu:1"} {
  %y = gplace.relu %x {name = "Relu"} : tensor<2xf32>
  return %y : tensor<2xf32>
}
""", emulate_gpus=2)
    relu = program.placement["Relu"]
    assert relu.device == GPU1 and relu.rule == "request"
    assert relu.reason == "device scope '/gpu:1' (gplace.default_device)"


def test_auto_placement_reasons():
    program = gplace.compile("""
func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %x = gplace.matmul %a, %a {name = "left"} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = gplace.matmul %b, %b {name = "right"} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %x, %y : tensor<64x64xf32>, tensor<64x64xf32>
}
""", emulate_gpus=2, policy="auto")
    for op in program.placement.values():
        assert op.rule == "auto" and op.reason.startswith("auto: ")


def test_placement_matches_the_log(capfd):
    # The placement log (TensorFlow's format, unchanged) and .placement
    # agree on every op's device; a soft-placed op's log line ends with
    # the same reason.
    program = gplace.compile(GRAPH, allow_soft_placement=True,
                             log_device_placement=True)
    log = capfd.readouterr().err
    for name, op in program.placement.items():
        line = next(l for l in log.splitlines() if l.startswith(name + ": "))
        assert line.split("): ", 1)[1].startswith(op.device)
        if op.rule == "soft-placement":
            assert line.endswith(f"({op.reason})")


def build_dir():
    if os.environ.get("GPLACE_BUILD_DIR"):
        return os.environ["GPLACE_BUILD_DIR"]
    # build/python/gplace/__init__.py
    return os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(gplace.__file__))))


# Two towers and a variable on the CPU: buffers on three devices.
TOWERS = """
func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %v = gplace.variable dense<0.5> : tensor<16x16xf32> {name = "v", device = "/cpu:0"}
  %w = gplace.read %v : !gplace.resource<tensor<16x16xf32>>
  %a = gplace.matmul %x, %w {device = "/gpu:0"} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = gplace.relu %a {device = "/gpu:0"} : tensor<8x16xf32>
  %c = gplace.matmul %x, %w {device = "/gpu:1"} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %d = gplace.tanh %c {device = "/gpu:1"} : tensor<8x16xf32>
  %s = gplace.add %b, %d {device = "/cpu:0"} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}
"""


def test_memory_plan_liveness_bound_matches_print_memory_plan(tmp_path):
    program = gplace.compile(TOWERS, emulate_gpus=2)
    plan = program.memory_plan
    assert set(plan) == {CPU, GPU0, GPU1}
    for device in plan.values():
        assert 0 < device["liveness_bound_bytes"] <= device["peak_bytes"]
        assert device["liveness_bound_bytes"] >= device["persistent_bytes"]
    np.testing.assert_allclose(
        program.run(np.ones((8, 16), np.float32))[0],
        np.maximum(8.0, 0) + np.tanh(8.0), rtol=1e-6)

    opt = os.path.join(build_dir(), "bin", "gplace-opt")
    if not os.path.exists(opt):
        pytest.skip(f"no {opt}")
    source = tmp_path / "towers.mlir"
    source.write_text(TOWERS)
    done = subprocess.run(
        [opt, str(source), "--gplace-pipeline=devices=cpu:1,gpu:2",
         "--gplace-print-memory-plan", "-o", os.devnull],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    printed = {}
    for m in re.finditer(r"^Memory plan for (\S+): peak (\d+) bytes .*"
                         r"liveness lower bound (\d+) bytes", done.stderr,
                         re.M):
        printed[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    assert set(printed) == set(plan), done.stderr
    for name, device in plan.items():
        assert printed[name] == (device["peak_bytes"],
                                 device["liveness_bound_bytes"]), name
