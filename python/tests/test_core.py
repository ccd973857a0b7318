"""The core API of the gplace package (docs/python.md): devices, compile,
run, placement, memory plan, variables, checkpoints, policies, errors."""
import os

import numpy as np
import pytest

import gplace

MATMUL = """
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = gplace.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %y = gplace.matmul %x, %w {device = "/gpu:1", name = "MatMul"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
"""

# A variable w, incremented by 1 at each run; returns x * w before the
# increment is seen (the read comes first).
COUNTER = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = gplace.variable dense<[1.0, 2.0]> : tensor<2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<2xf32>>
  %y = gplace.mul %x, %r : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %one = gplace.constant dense<1.0> : tensor<2xf32>
  %t = gplace.assign_add %w, %one : !gplace.resource<tensor<2xf32>>
  return %y : tensor<2xf32>
}
"""


def test_list_devices_emulated():
    devices = gplace.list_devices(emulate_gpus=2)
    names = [d.name for d in devices]
    assert "/job:localhost/replica:0/task:0/device:CPU:0" in names
    gpus = [d for d in devices if d.device_type == "GPU"]
    assert len(gpus) == 2
    assert all(isinstance(d.memory_limit, int) for d in devices)
    assert [d.device_type for d in gplace.list_devices()] == ["CPU"]


def test_run_matmul_on_emulated_gpu():
    program = gplace.compile(MATMUL, emulate_gpus=2)
    x = np.array([[1, 2], [3, 4]], dtype=np.float32)
    (y,) = program.run(x)
    np.testing.assert_array_equal(y, x @ np.array([[5, 6], [7, 8]], np.float32))
    assert y.dtype == np.float32 and y.shape == (2, 2)
    assert program.placement["MatMul"].device.endswith("device:GPU:1")
    assert program.input_types == ["2x2xf32"]
    plan = program.memory_plan
    assert any(name.endswith("GPU:1") for name in plan)
    assert all(v["arena_bytes"] >= 0 for v in plan.values())
    # The plan's devices: GPU:1, which holds the constant weights (16
    # bytes) beside the matmul.
    gpu = plan["/job:localhost/replica:0/task:0/device:GPU:1"]
    assert gpu["persistent_bytes"] >= 16
    for v in plan.values():
        assert v["peak_bytes"] == v["arena_bytes"] + v["persistent_bytes"]


def test_run_many_times_and_lists():
    program = gplace.compile(MATMUL, emulate_gpus=2)
    for k in range(3):
        (y,) = program([[k, 0], [0, k]])  # a list takes the input's dtype
        np.testing.assert_array_equal(y, k * np.array([[5, 6], [7, 8]]))


def test_explicit_device_without_gpu_is_invalid_argument():
    with pytest.raises(gplace.InvalidArgumentError) as error:
        gplace.compile(MATMUL)
    assert "MatMul" in str(error.value)
    assert "/gpu:1" in str(error.value)
    # TensorFlow's answer to the same: soft placement puts it on the CPU.
    program = gplace.compile(MATMUL, allow_soft_placement=True)
    assert program.placement["MatMul"].device.endswith("device:CPU:0")


def test_parse_error_names_line():
    with pytest.raises(gplace.InvalidArgumentError) as error:
        gplace.compile("func.func @main() {\n  %x = gplace.nonsense\n}\n")
    assert "<string>:2" in str(error.value)
    assert isinstance(error.value, ValueError)


def test_deep_nesting_is_an_error_not_a_crash():
    # MLIR's parser recurses per bracket; the tools stop at 1000 levels.
    with pytest.raises(gplace.InvalidArgumentError) as error:
        gplace.compile("func.func @main() {\n  %x = " + "(" * 20000 + "\n}\n")
    assert "<string>:2:1007" in str(error.value)
    assert "nest deeper than 1000 levels" in str(error.value)


def test_plan_over_host_memory_is_resource_exhausted():
    # A petabyte constant: refused before anything is allocated, as
    # gplace-run's exit code 3 (TensorFlow's ResourceExhaustedError).
    source = (
        "func.func @main() -> tensor<262144x1073741824xf32> {\n"
        "  %c = gplace.constant dense<1.0> : tensor<262144x1073741824xf32>\n"
        "  return %c : tensor<262144x1073741824xf32>\n}\n")
    with pytest.raises(gplace.ResourceExhaustedError,
                       match="MiB of host memory"):
        gplace.compile(source)


def test_no_entry():
    with pytest.raises(gplace.InvalidArgumentError, match="nope"):
        gplace.compile(MATMUL, entry="nope", emulate_gpus=2)


def test_bad_inputs_are_value_errors():
    program = gplace.compile(MATMUL, emulate_gpus=2)
    with pytest.raises(ValueError, match="takes 1 input"):
        program.run()
    with pytest.raises(ValueError, match="2x2xf32, not 3xf32"):
        program.run(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="f32"):
        program.run(np.zeros((2, 2), np.float64))
    with pytest.raises(ValueError, match="input #0 must be 2x2xf32, not None"):
        program.run(None)


def test_variables_and_checkpoints(tmp_path):
    program = gplace.compile(COUNTER)
    x = np.array([10, 10], np.float32)
    np.testing.assert_array_equal(program.run(x)[0], [10, 20])
    np.testing.assert_array_equal(program.variables["w"], [2, 3])
    path = tmp_path / "ckpt.npz"
    program.save(path)
    program.variables["w"] = np.array([0, 0], np.float32)
    np.testing.assert_array_equal(program.run(x)[0], [0, 0])
    program.restore(path)
    np.testing.assert_array_equal(program.run(x)[0], [20, 30])
    assert list(program.variables) == ["w"]
    with np.load(path) as saved:
        np.testing.assert_array_equal(saved["w"], [2, 3])
    with pytest.raises(KeyError):
        program.variables["nope"]
    with pytest.raises(ValueError):
        program.variables["w"] = np.zeros(3, np.float32)
    with pytest.raises(gplace.InvalidArgumentError):
        program.restore(tmp_path / "missing.npz")


def test_callable_policy():
    seen = []

    def variables_on_cpu(op):
        seen.append((op.name, op.type))
        return "/cpu:0" if op.is_variable else "/gpu:0"

    program = gplace.compile(COUNTER, emulate_gpus=1, policy=variables_on_cpu)
    assert seen, "the policy was not called"
    placement = program.placement
    assert placement["mul"].device.endswith("GPU:0")  # TensorFlow's default name
    assert placement["w"].device.endswith("CPU:0")
    assert ("w", "VarHandleOp") in seen
    np.testing.assert_array_equal(
        program.run(np.ones(2, np.float32))[0], [1, 2])


def test_policy_errors_propagate():
    def broken(op):
        raise RuntimeError("policy broke")

    with pytest.raises(RuntimeError, match="policy broke"):
        gplace.compile(COUNTER, emulate_gpus=1, policy=broken)

    with pytest.raises(TypeError, match="device string or None"):
        gplace.compile(COUNTER, emulate_gpus=1, policy=lambda op: 3)


def test_builtin_policy_by_name():
    program = gplace.compile(COUNTER, emulate_gpus=2, policy="round-robin-gpu")
    assert program.run(np.ones(2, np.float32))[0].shape == (2,)


def test_memory_limit_is_resource_exhausted():
    big = """
func.func @main(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %y = gplace.matmul %x, %x {device = "/gpu:0"} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %z = gplace.matmul %y, %x {device = "/gpu:0"} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %z : tensor<1024x1024xf32>
}
"""
    with pytest.raises(MemoryError):
        gplace.compile(big, emulate_gpus=1, gpu_memory_limit=1)


def test_mlir_file_path(tmp_path):
    path = tmp_path / "m.mlir"
    path.write_text(MATMUL)
    program = gplace.compile(str(path), allow_soft_placement=True)
    assert program.run(np.eye(2, dtype=np.float32))[0][0, 0] == 5
    with pytest.raises(FileNotFoundError):
        gplace.compile(str(tmp_path / "missing.mlir"))


def test_bad_source_type():
    with pytest.raises(TypeError):
        gplace.compile(42)


def test_bad_options():
    with pytest.raises(ValueError, match="emulate_gpus"):
        gplace.list_devices(emulate_gpus=-1)
    # Past a C int: the same ValueError, not pybind11's TypeError.
    with pytest.raises(ValueError, match="emulate_gpus must be 0 to 64"):
        gplace.list_devices(emulate_gpus=10**12)
    with pytest.raises(ValueError, match="emulate_gpus must be 0 to 64"):
        gplace.compile(MATMUL, emulate_gpus=10**12)
    # As gplace-run's --intra-op-parallelism-threads.
    for threads in (-1, 2**40):
        with pytest.raises(ValueError,
                           match="intra_op_parallelism_threads must be 0"):
            gplace.compile(MATMUL, intra_op_parallelism_threads=threads)
    # And its --inter-op-parallelism-threads.
    for threads in (-1, 2**40):
        with pytest.raises(ValueError,
                           match="inter_op_parallelism_threads must be 0"):
            gplace.compile(MATMUL, inter_op_parallelism_threads=threads)


FASHION = "/usr/share/datasets/fashion-mnist"


def test_read_tensor_file(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.arange(6, dtype=np.int32).reshape(2, 3))
    np.testing.assert_array_equal(gplace.read_tensor_file(path),
                                  [[0, 1, 2], [3, 4, 5]])
    (tmp_path / "bad.npy").write_bytes(b"nope")
    with pytest.raises(gplace.InvalidArgumentError, match="bad.npy"):
        gplace.read_tensor_file(tmp_path / "bad.npy")


def test_train_linear_regression():
    # y = 3x + 1 by gradient descent on batches of 4: the loss falls.
    source = """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.0> : tensor<f32> {name = "w"}
  %b = gplace.variable dense<0.0> : tensor<f32> {name = "b"}
  %wr = gplace.read %w : !gplace.resource<tensor<f32>>
  %br = gplace.read %b : !gplace.resource<tensor<f32>>
  %xw = gplace.mul %x, %wr : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %p = gplace.add %xw, %br : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %d = gplace.sub %p, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %sq = gplace.square %d : tensor<4xf32>
  %loss = gplace.reduce_mean %sq axes = [0] : tensor<4xf32> -> tensor<f32>
  %gw, %gb = gplace.gradients %loss wrt %wr, %br : tensor<f32> wrt tensor<f32>, tensor<f32>
  %lr = gplace.constant dense<0.05> : tensor<f32>
  %uw = gplace.apply_gradient_descent %w, %lr, %gw : !gplace.resource<tensor<f32>>, tensor<f32>, tensor<f32>
  %ub = gplace.apply_gradient_descent %b, %lr, %gb : !gplace.resource<tensor<f32>>, tensor<f32>, tensor<f32>
  return %loss : tensor<f32>
}
"""
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    y = 3 * x + 1
    program = gplace.compile(source)
    seen = []
    history = program.train((x, y), epochs=20, shuffle=7,
                            callback=lambda e, logs: seen.append(e))
    assert seen == list(range(20))
    assert history[0]["steps"] == 16
    assert history[-1]["result[0]"] < 0.01 < history[0]["result[0]"]
    assert abs(float(program.variables["w"]) - 3) < 0.2
    with pytest.raises(ValueError, match="2 input"):
        program.train((x,))
    with pytest.raises(ValueError, match="different numbers"):
        program.train((x, y[:10]))


@pytest.mark.skipif(not os.path.isdir(FASHION),
                    reason="no dataset-fashion-mnist")
def test_fashion_mnist_mlp_trains_from_python():
    """The README's Fashion-MNIST MLP from Python: @init, one epoch of
    @train, @evaluate on the test set (10 epochs reach 0.886, the README;
    one gives above 0.8)."""
    example = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                           "train_fashion_mnist.mlir")
    read = lambda name: gplace.read_tensor_file(os.path.join(FASHION, name))
    images = read("train-images-idx3-ubyte.gz")
    labels = read("train-labels-idx1-ubyte.gz")
    assert images.shape == (60000, 28, 28) and images.dtype == np.uint8
    train = gplace.compile(example, entry="train", init="init")
    history = train.train((images, labels), epochs=1, shuffle=1)
    assert history[0]["steps"] == 468
    assert history[0]["result[0]"] < 0.8
    evaluate = gplace.compile(example, entry="evaluate")
    for name in evaluate.variables:
        evaluate.variables[name] = train.variables[name]
    (accuracy,) = evaluate.run(read("t10k-images-idx3-ubyte.gz"),
                               read("t10k-labels-idx1-ubyte.gz"))
    assert 0.8 < float(accuracy) <= 1


def test_inputs_read_in_place_on_the_cpu():
    """On the CPU the kernels read the arrays where they lie (no copy);
    the results are right run after run, with arrays that change, and a
    program that returns its input gives the input's values."""
    program = gplace.compile(MATMUL, allow_soft_placement=True)
    assert program._native.inputs_zero_copy
    w = np.array([[5, 6], [7, 8]], np.float32)
    for k in range(3):
        x = np.full((2, 2), k, np.float32)
        np.testing.assert_array_equal(program.run(x)[0], x @ w)
    identity = gplace.compile("""
func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = gplace.neg %x : tensor<3xf32>
  return %x, %y : tensor<3xf32>, tensor<3xf32>
}
""")
    x = np.array([1, 2, 3], np.float32)
    a, b = identity.run(x)
    x[:] = 0  # the results are copies, not views of the input
    np.testing.assert_array_equal(a, [1, 2, 3])
    np.testing.assert_array_equal(b, [-1, -2, -3])
    # A non-contiguous array is made contiguous first.
    m = np.arange(16, dtype=np.float32).reshape(4, 4)[::2, ::2]
    np.testing.assert_array_equal(program.run(m)[0], m @ w)


# ---------------------------------------------------------------------------
# What a hunt found (2026-12-07).

NEG = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gplace.neg %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
"""


def test_equal_dtypes_that_are_other_objects():
    # A pickled array's float32 is another dtype object: it was refused
    # ("must be 4xf32, not an array of float32").
    import pickle
    program = gplace.compile(NEG)
    x = np.arange(4, dtype=np.float32)
    for value in (pickle.loads(pickle.dumps(x)),
                  x.astype(np.dtype("f4").newbyteorder("="))):
        np.testing.assert_array_equal(program.run(value)[0], -x)


def test_placement_lists_the_ops_of_regions():
    program = gplace.compile("""
func.func @main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = gplace.if %c (%x) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> then {
  ^bb0(%a: tensor<2xf32>):
    %n = gplace.neg %a {name = "negate"} : tensor<2xf32>
    gplace.yield %n : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    gplace.yield %a : tensor<2xf32>
  } {name = "choose"}
  return %r : tensor<2xf32>
}
""")
    assert {"choose", "negate"} <= set(program.placement)


def test_paths_with_a_nul_are_refused(tmp_path):
    program = gplace.compile("""
func.func @main() -> tensor<2xf32> {
  %w = gplace.variable dense<[1.0, 2.0]> : tensor<2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<2xf32>>
  return %r : tensor<2xf32>
}
""")
    for call in (lambda: program.save(str(tmp_path / "a\0b.npz")),
                 lambda: program.restore(str(tmp_path / "a\0b.npz")),
                 lambda: gplace.read_tensor_file(str(tmp_path / "a\0b"))):
        with pytest.raises(ValueError, match="embedded null byte"):
            call()
    assert not (tmp_path / "a").exists()


def test_failed_restore_changes_no_variable(tmp_path):
    program = gplace.compile("""
func.func @main() -> tensor<2xf32> {
  %w = gplace.variable dense<[1.0, 2.0]> : tensor<2xf32> {name = "w"}
  %v = gplace.variable dense<[5]> : tensor<1xi32> {name = "v"}
  %r = gplace.read %w : !gplace.resource<tensor<2xf32>>
  return %r : tensor<2xf32>
}
""")
    path = str(tmp_path / "m.npz")
    np.savez(path, w=np.array([7, 8], np.float32))
    with pytest.raises(gplace.InvalidArgumentError, match="Key v not found"):
        program.restore(path)
    np.testing.assert_array_equal(program.variables["w"], [1, 2])
    np.savez(path, w=np.array([7, 8], np.float32),
             v=np.array([1.0], np.float32))
    with pytest.raises(gplace.InvalidArgumentError, match="variable 'v' is"):
        program.restore(path)
    np.testing.assert_array_equal(program.variables["w"], [1, 2])


def test_daemon_thread_running_at_exit(tmp_path):
    # A daemon thread inside run() when the interpreter exits aborted the
    # process (pybind11's gil_scoped_release re-taking the GIL in a
    # noexcept destructor during finalization).
    import subprocess
    import sys
    script = tmp_path / "daemon.py"
    script.write_text(
        "import threading, time, numpy as np, gplace\n"
        "p = gplace.compile('''\n"
        "func.func @main(%x: tensor<128x128xf32>) -> tensor<128x128xf32> {\n"
        "  %a = gplace.matmul %x, %x {device = \"/gpu:0\"} : "
        "(tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>\n"
        "  %b = gplace.matmul %x, %x {device = \"/gpu:1\"} : "
        "(tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>\n"
        "  %c = gplace.add %a, %b : (tensor<128x128xf32>, "
        "tensor<128x128xf32>) -> tensor<128x128xf32>\n"
        "  return %c : tensor<128x128xf32>\n"
        "}''', emulate_gpus=2)\n"
        "x = np.ones((128, 128), np.float32)\n"
        "for _ in range(2):\n"
        "    threading.Thread(target=lambda: [p.run(x) for _ in "
        "iter(int, 1)], daemon=True).start()\n"
        "time.sleep(0.3)\n")
    for _ in range(3):
        done = subprocess.run([sys.executable, str(script)],
                              capture_output=True, text=True, timeout=120,
                              env=os.environ)
        assert done.returncode == 0, done.stderr
        assert "terminate called" not in done.stderr


def test_memory_options_and_shapes_name_the_keywords():
    with pytest.raises(ValueError, match="gpu_memory_limit must be from 0"):
        gplace.list_devices(gpu_memory_limit=2**44)
    with pytest.raises(ValueError, match="per_process_gpu_memory_fraction"):
        gplace.compile(NEG, gpu_options=gplace.GPUOptions(
            per_process_gpu_memory_fraction=float("nan")))
    with pytest.raises(ValueError, match=r"input_shapes\[0\] has a negative"):
        gplace.compile(NEG, input_shapes=[(-2, 3)])
