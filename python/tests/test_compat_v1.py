"""gplace.compat.v1, TensorFlow 1's graph API: the seeds' programs in
examples/python/ (run as a user runs them, with GPLACE_EMULATE_GPUS), and
the API's parts in this process."""
import collections
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import gplace
import gplace.compat.v1 as tf

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
EXAMPLES = os.path.join(ROOT, "examples", "python")
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(
    gplace.__file__)))
LOG = "/job:localhost/replica:0/task:0/device:"


def run_example(name, gpus):
    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_DIR + os.pathsep + env.get("PYTHONPATH", "")
    env["GPLACE_EMULATE_GPUS"] = str(gpus)
    env.pop("CUDA_VISIBLE_DEVICES", None)
    env["CUDA_VISIBLE_DEVICES"] = ""  # emulated GPUs only: stable names
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)],
                          env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


# The seeds' programs -------------------------------------------------------


def test_example_matmul_gpu2():
    out, err = run_example("matmul_gpu2.py", 4)
    assert out.split() == ["[[22.", "28.]", "[49.", "64.]]"]
    assert f"a: (Const): {LOG}GPU:2" in err
    assert f"b: (Const): {LOG}GPU:2" in err
    assert f"MatMul: (MatMul): {LOG}GPU:0" in err


def test_example_matmul_gpu2_soft_placement_on_one_gpu():
    out, err = run_example("matmul_gpu2.py", 1)
    assert out.split() == ["[[22.", "28.]", "[49.", "64.]]"]
    assert (f"a: (Const): {LOG}GPU:0 (soft placement: requested "
            "'/device:GPU:2'") in err


def test_example_multi_tower():
    out, err = run_example("multi_tower.py", 4)
    assert out.split() == ["[[", "44.", "56.]", "[", "98.", "128.]]"]
    for line in ["Const: (Const): %sGPU:2", "Const_1: (Const): %sGPU:2",
                 "MatMul: (MatMul): %sGPU:2", "Const_2: (Const): %sGPU:3",
                 "Const_3: (Const): %sGPU:3", "MatMul_1: (MatMul): %sGPU:3",
                 "AddN: (AddN): %sCPU:0"]:
        assert line % LOG in err.splitlines()


def test_example_variables_on_cpu():
    out, err = run_example("variables_on_cpu.py", 1)
    assert out.split() == ["12.0", "12.0"]
    lines = err.splitlines()
    assert f"a: (VarHandleOp): {LOG}CPU:0" in lines
    assert f"a/read: (ReadVariableOp): {LOG}CPU:0" in lines
    assert f"b: (Const): {LOG}CPU:0" in lines
    assert f"mul: (Mul): {LOG}GPU:0" in lines
    # The device function put the second graph's variable on the CPU and
    # the rest on GPU:0.
    assert f"Variable: (VarHandleOp): {LOG}CPU:0" in lines
    assert f"Const: (Const): {LOG}GPU:0" in lines


def test_example_gpu_options():
    out, _ = run_example("gpu_options.py", 1)
    assert out.split() == ["7.0"] * 4


def test_example_int_variable_gpu():
    out, _ = run_example("int_variable_gpu.py", 1)
    first, second = out.splitlines()
    assert first.startswith("InvalidArgumentError:")
    assert ("Cannot assign a device for operation 'Variable': Could not "
            "satisfy explicit device specification '/gpu:0'") in first
    assert second == "3"


def test_example_train_mlp():
    out, _ = run_example("train_mlp.py", 1)
    losses = [float(v) for v in re.findall(r"loss (\S+)", out)]
    assert len(losses) == 6
    assert losses[0] > 1.0 and max(losses[3:]) < 0.1 * losses[0]
    accuracy = float(re.search(r"accuracy (\S+)", out).group(1))
    assert accuracy > 0.95
    m = re.search(r"cost (\S+) -> (\S+), w (\S+), b (\S+)", out)
    first, last, w, b = map(float, m.groups())
    assert last < 0.01 < first
    assert abs(w - 2) < 0.05 and abs(b + 1) < 0.05


def test_example_multi_gpu_training():
    out, err = run_example("multi_gpu_training.py", 2)
    losses = [float(v) for v in re.findall(r"loss (\S+)", out)]
    assert len(losses) == 5 and max(losses[1:]) < 0.2 * losses[0]
    assert float(re.search(r"accuracy (\S+)", out).group(1)) > 0.9
    lines = set(err.splitlines())
    assert f"tower_0/MatMul: (MatMul): {LOG}GPU:0" in lines
    assert f"tower_1/MatMul: (MatMul): {LOG}GPU:1" in lines
    assert f"net/w1: (VarHandleOp): {LOG}CPU:0" in lines
    assert any(line.startswith("gradients/tower_1/") and
               line.endswith("GPU:1") for line in lines)


# The API --------------------------------------------------------------------


def test_default_names_and_scopes():
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    assert (a.op.name, b.op.name) == ("Const", "Const_1")
    with tf.name_scope("tower_0"):
        c = tf.matmul([[1.0]], [[2.0]])
        d = a + b
    with tf.name_scope("tower_0"):
        e = a * b
    assert c.op.name == "tower_0/MatMul"
    assert c.name == "tower_0/MatMul:0"
    assert d.op.name == "tower_0/add"
    assert e.op.name == "tower_0_1/mul"
    # Unique ignoring case, as TensorFlow's: "sub" is taken, so "Sub_1".
    assert (a - b).op.name == "sub" and tf.subtract(a, b).op.name == "Sub_1"
    assert (a / b).op.name == "truediv"
    assert (-a).op.name == "Neg"
    v = tf.Variable(1.0)
    assert v.op.name == "Variable" and v.name == "Variable:0"
    assert v.initializer.name == "Variable/Assign"
    assert v.value().op.name == "Variable/read"
    assert tf.Variable(2.0).op.name == "Variable_1"
    g = tf.get_default_graph()
    assert g.get_tensor_by_name("tower_0/MatMul:0") is c
    assert g.get_operation_by_name("Const_1") is b.op


def test_device_scopes_merge_and_functions():
    with tf.device("/job:localhost"):
        with tf.device("/gpu:1"):
            a = tf.constant(1.0)
        b = tf.constant(1.0)
    with tf.device("/gpu:1"):
        with tf.device(None):
            c = tf.constant(1.0)
    seen = []

    def placer(op):
        seen.append((op.type, op.name))
        return "/cpu:0" if op.type == "Variable" else "/gpu:0"
    with tf.device("/job:localhost"):
        with tf.device(placer):
            v = tf.Variable(1.0)
            m = v * 2.0
    assert a.device == "/job:localhost/device:GPU:1"
    assert b.device == "/job:localhost"
    assert c.device == ""
    assert v.device == "/job:localhost/device:CPU:0"
    assert v.value().device == v.device  # colocated with the variable
    assert m.device == "/job:localhost/device:GPU:0"
    assert ("Variable", "Variable") in seen
    with pytest.raises(ValueError, match="Unknown attribute"):
        with tf.device("/gpux:0"):
            pass


def test_run_structures_and_op_fetches():
    a = tf.constant([1.0, 2.0])
    b = a * 3.0
    init = tf.no_op()
    Pair = collections.namedtuple("Pair", "x y")
    with tf.Session() as sess:
        out = sess.run({"a": a, "pair": Pair(a, b), "list": [b, (a,)],
                        "op": b.op})
        assert out["a"].tolist() == [1, 2]
        assert isinstance(out["pair"], Pair)
        assert out["pair"].y.tolist() == [3, 6]
        assert out["list"][1][0].tolist() == [1, 2]
        assert out["op"] is None
        assert sess.run(init) is None
        assert sess.run("mul:0").tolist() == [3, 6]
        assert isinstance(sess.run(tf.reduce_sum(a)), np.float32)
        assert b.eval().tolist() == [3, 6]


def test_feeds_and_compile_cache():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.reduce_sum(x * 2.0, axis=1)
    sess = tf.Session()
    assert sess.run(y, {x: [[1, 2], [3, 4]]}).tolist() == [6, 14]
    assert sess.run(y, {x: np.ones((3, 2))}).tolist() == [4, 4, 4]
    assert sess.run(y, {x: [[0, 1], [1, 1]]}).tolist() == [2, 4]
    assert len(sess._cache) == 2  # one program per fed shape
    # A fed intermediate tensor cuts the graph there.
    z = y + 1.0
    assert sess.run(z, {y: [1.0, 2.0]}).tolist() == [2, 3]
    # Fetching a fed tensor returns the fed value.
    assert sess.run(x, {x: [[5, 6]]}).tolist() == [[5, 6]]
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(y, {x: [[1, 2]]})


def test_variables_live_across_programs():
    v = tf.Variable([1.0, 2.0], name="v")
    add = v.assign_add([1.0, 1.0])
    double = v.assign(v * 2.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(add).tolist() == [2, 3]
        assert sess.run(v).tolist() == [2, 3]
        assert sess.run(double).tolist() == [4, 6]
        sess.run(add)
        assert sess.run(v).tolist() == [5, 7]
        v.load([0.0, 1.0], sess)
        assert sess.run(v).tolist() == [0, 1]
    with tf.Session() as other:  # a new session starts from the initializer
        other.run(v.initializer)
        assert other.run(v).tolist() == [1, 2]


def test_control_dependencies_order_an_update_before_a_read():
    v = tf.Variable(0.0)
    step = v.assign_add(1.0)
    with tf.control_dependencies([step]):
        after = tf.identity(v.read_value())
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(after) == 1.0
        assert sess.run(after) == 2.0
        assert sess.run(tf.group(step, name="bump")) is None
        assert sess.run(v) == 3.0


def test_gradients_skip_integer_and_boolean_edges_as_tensorflow():
    # TensorFlow's gradients flow only through floating-point tensors: an x
    # the ys reach only through argmax, a comparison or an integer cast
    # gets None, not zeros; its float paths still count.
    x = tf.placeholder(tf.float32, [3], name="x")
    z = tf.placeholder(tf.float32, [3], name="z")
    assert tf.gradients(tf.cast(tf.argmax(x), tf.float32), [x]) == [None]
    assert tf.gradients(tf.argmax(x), x) == [None]
    assert tf.gradients(tf.cast(tf.cast(x, tf.int32), tf.float32), x) == [None]
    both = tf.reduce_sum(tf.cast(tf.equal(x, z), tf.float32)) + \
        tf.reduce_sum(x * x)
    gx, gz = tf.gradients(both, [x, z])
    assert gz is None
    with tf.Session() as sess:
        got = sess.run(gx, {x: np.array([1, 2, 3], np.float32),
                            z: np.zeros(3, np.float32)})
    np.testing.assert_allclose(got, [2, 4, 6])


def test_gradients_match_finite_differences():
    x = tf.placeholder(tf.float64, [3, 4], name="x")
    w = tf.Variable(np.linspace(-1, 1, 8).reshape(4, 2))
    b = tf.Variable(np.array([0.1, -0.2]))
    h = tf.tanh(tf.matmul(x, w) + b)
    p = tf.nn.softmax(tf.nn.sigmoid(h) * tf.exp(h))
    loss = tf.reduce_mean(tf.square(p - 0.25)) + tf.reduce_sum(
        tf.log(tf.sqrt(tf.square(h) + 1.0)))
    gx, gw, gb = tf.gradients(loss, [x, w, b])
    assert tf.gradients(loss, tf.constant(1.0)) == [None]
    xs = np.random.RandomState(0).uniform(-1, 1, size=(3, 4))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        analytic = sess.run([gx, gw, gb], {x: xs})
        values = [xs, sess.run(w), sess.run(b)]

        def f(index, value):
            if index == 0:
                return sess.run(loss, {x: value})
            (w, b)[index - 1].load(value, sess)
            result = sess.run(loss, {x: xs})
            (w, b)[index - 1].load(values[index], sess)
            return result
        for index, grad in enumerate(analytic):
            base = values[index]
            numeric = np.zeros_like(base)
            for i in np.ndindex(base.shape):
                eps = 1e-6
                up, down = base.copy(), base.copy()
                up[i] += eps
                down[i] -= eps
                numeric[i] = (f(index, up) - f(index, down)) / (2 * eps)
            np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)


def test_optimizers_mirror_tensorflow():
    # One step of each optimizer on loss = sum(w * c), gradient c.
    c = np.array([1.0, -2.0], np.float32)
    for make, expected in [
            (lambda: tf.train.GradientDescentOptimizer(0.1),
             lambda w: w - 0.1 * c * 2),
            (lambda: tf.train.MomentumOptimizer(0.1, 0.9),
             lambda w: w - 0.1 * c - 0.1 * (0.9 * c + c)),
            (lambda: tf.train.AdamOptimizer(0.1), None)]:
        tf.reset_default_graph()
        w = tf.Variable([0.5, 0.5], name="w")
        train = make().minimize(tf.reduce_sum(w * c))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            sess.run(train)
            got = sess.run(w)
            names = [v.op.name for v in tf.global_variables()]
            if expected is not None:
                np.testing.assert_allclose(got, expected(np.float32([.5, .5])),
                                           rtol=1e-6)
            else:
                # Adam's first steps move each weight by about lr against
                # its gradient's sign; beta powers advance once per step.
                np.testing.assert_allclose(got, [0.3, 0.7], atol=1e-4)
                assert names == ["w", "beta1_power", "beta2_power",
                                 "w/Adam", "w/Adam_1"]
                powers = sess.run([v for v in tf.global_variables()
                                   if "power" in v.op.name])
                np.testing.assert_allclose(powers, [0.9 ** 3, 0.999 ** 3],
                                           rtol=1e-6)


def test_global_step_and_get_variable_scopes():
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [2], initializer=tf.constant_initializer(3.0))
    with tf.variable_scope("layer", reuse=True):
        assert tf.get_variable("w", [2]) is w
    with pytest.raises(ValueError, match="already exists"):
        with tf.variable_scope("layer"):
            tf.get_variable("w", [2])
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.5).minimize(
        tf.reduce_sum(w), global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        sess.run(train)
        assert sess.run(step) == 2
        assert sess.run(w).tolist() == [2.0, 2.0]
    assert w.op.name == "layer/w"


def test_random_initializers_are_seeded_and_shaped():
    tf.set_random_seed(7)
    a = tf.get_variable("a", [200, 100],
                        initializer=tf.glorot_uniform_initializer())
    b = tf.get_variable("b", [5000],
                        initializer=tf.random_normal_initializer(1.0, 2.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        av, bv = sess.run([a, b])
    limit = np.sqrt(6.0 / 300)
    assert av.shape == (200, 100) and np.abs(av).max() <= limit
    assert np.abs(av).max() > 0.9 * limit
    assert abs(bv.mean() - 1.0) < 0.1 and abs(bv.std() - 2.0) < 0.1


def test_nn_ops_values():
    logits = tf.constant([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    labels = tf.constant([2, 0])
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                          logits=logits)
    with tf.Session() as sess:
        out = sess.run({
            "xent": xent, "softmax": tf.nn.softmax(logits),
            "argmax": tf.argmax(logits, axis=1),
            "equal": tf.equal(tf.argmax(logits, 1), tf.cast(labels, tf.int64)),
            "bias": tf.nn.bias_add(logits, [1.0, 0.0, -1.0]),
            "t": tf.transpose(logits), "r": tf.reshape(logits, [-1]),
            "mean": tf.reduce_mean(logits, axis=0, keepdims=True),
            "relu": tf.nn.relu(logits - 2.0), "slice": logits[:, 1:],
            "matmul": logits @ tf.transpose(logits)})
    z = np.array([[1, 2, 3], [1, 1, 1]], np.float32)
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    np.testing.assert_allclose(out["xent"], -np.log(p[[0, 1], [2, 0]]),
                               rtol=1e-6)
    np.testing.assert_allclose(out["softmax"], p, rtol=1e-6)
    assert out["argmax"].tolist() == [2, 0]
    assert out["equal"].tolist() == [True, True]
    assert out["bias"].tolist() == [[2, 2, 2], [2, 1, 0]]
    assert out["t"].shape == (3, 2) and out["r"].shape == (6,)
    assert out["mean"].tolist() == [[1, 1.5, 2]]
    assert out["relu"].tolist() == [[0, 0, 1], [0, 0, 0]]
    assert out["slice"].tolist() == [[2, 3], [1, 1]]
    np.testing.assert_allclose(out["matmul"], z @ z.T)


def test_convolutions_gather_one_hot_where():
    rng = np.random.RandomState(0)
    xv = rng.rand(2, 6, 6, 3).astype(np.float32)
    wv = rng.rand(3, 3, 3, 4).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 6, 6, 3])
    w = tf.Variable(wv)
    y = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")
    p = tf.nn.max_pool(tf.nn.relu(y), ksize=[1, 2, 2, 1],
                       strides=[1, 2, 2, 1], padding="VALID")
    a = tf.nn.avg_pool(y, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    (g,) = tf.gradients(tf.reduce_sum(p) + tf.reduce_sum(a), [w])
    table = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        yv, pv, av, gv, gathered, hot, chosen = sess.run(
            [y, p, a, g, tf.gather(table, [3, 0]), tf.one_hot([1, 2], 3),
             tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])],
            {x: xv})
    padded = np.pad(xv, ((0, 0), (1, 1), (1, 1), (0, 0)))
    ref = np.zeros((2, 6, 6, 4), np.float32)
    for i in range(6):
        for j in range(6):
            ref[:, i, j, :] = np.einsum("nhwc,hwco->no",
                                        padded[:, i:i + 3, j:j + 3, :], wv)
    np.testing.assert_allclose(yv, ref, rtol=1e-5)
    np.testing.assert_allclose(
        pv, np.maximum(ref, 0).reshape(2, 3, 2, 3, 2, 4).max(axis=(2, 4)),
        rtol=1e-5)
    assert av.shape == (2, 3, 3, 4) and gv.shape == (3, 3, 3, 4)
    assert gathered.tolist() == [[9, 10, 11], [0, 1, 2]]
    assert hot.tolist() == [[0, 1, 0], [0, 0, 1]]
    assert chosen.tolist() == [1, 4]


# Errors ---------------------------------------------------------------------


def test_placement_error_is_invalid_argument():
    with tf.device("/gpu:2"):
        c = tf.matmul(tf.constant([[1.0]]), tf.constant([[2.0]]))
    with tf.Session(emulate_gpus=1) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Could not satisfy explicit device "
                           "specification '/gpu:2'"):
            sess.run(c)
    with tf.Session(emulate_gpus=1,
                    config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        assert sess.run(c).tolist() == [[2.0]]
    assert tf.errors.InvalidArgumentError is gplace.InvalidArgumentError


def test_fetch_from_another_graph():
    a = tf.constant(1.0)
    other = tf.Graph()
    with other.as_default():
        b = tf.constant(2.0)
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="is not an element of this "
                           "graph"):
            sess.run(b)
        with pytest.raises(ValueError, match="not an element of this graph"):
            sess.run(a, {b: 1.0})
    with tf.Session(graph=other) as sess:
        assert sess.run(b) == 2.0


def test_feed_errors():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = x * 2.0
    with tf.Session() as sess:
        with pytest.raises(ValueError, match=re.escape(
                "Cannot feed value of shape (3,) for Tensor 'x:0', which has "
                "shape '(?, 2)'")):
            sess.run(y, {x: [1.0, 2.0, 3.0]})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="You must feed a value for placeholder "
                           "tensor 'x' with dtype float32 and shape \\[\\?,2\\]"):
            sess.run(y)
        with pytest.raises(TypeError, match="cannot be a tf.Tensor"):
            sess.run(y, {x: y})
        with pytest.raises(TypeError, match="invalid type"):
            sess.run(3)


def test_uninitialized_variable_and_bad_config():
    v = tf.Variable(1.0, name="weights")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="uninitialized value weights"):
            sess.run(v * 2.0)
    with pytest.raises(ValueError, match='no "allow_grouth" field'):
        tf.ConfigProto(allow_soft_placement=True, allow_grouth=True)
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.matmul(tf.constant([[1.0, 2.0]]), tf.constant([[1.0, 2.0]]))
    with pytest.raises(TypeError, match="does not match type float32"):
        tf.add(tf.constant(1.0), tf.constant(1))
    with pytest.raises(ValueError, match="No gradients provided"):
        tf.train.GradientDescentOptimizer(0.1).minimize(
            tf.reduce_sum(tf.constant([1.0])), var_list=[v])


def test_emulate_gpus_from_environment(monkeypatch):
    monkeypatch.setenv("GPLACE_EMULATE_GPUS", "3")
    assert len([d for d in tf.Session().list_devices()
                if d.device_type == "GPU"]) >= 3
    monkeypatch.setenv("GPLACE_EMULATE_GPUS", "three")
    with pytest.raises(ValueError, match="GPLACE_EMULATE_GPUS"):
        tf.Session()


def test_docs_page_examples():
    """docs/python-compat.md's ```python blocks, in order, in one
    namespace."""
    doc = os.path.join(ROOT, "docs", "python-compat.md")
    with open(doc) as f:
        blocks = re.findall(r"^```python\n(.*?)^```", f.read(), re.M | re.S)
    assert len(blocks) >= 3
    namespace = {"__name__": "docs_python_compat"}
    for index, block in enumerate(blocks):
        exec(compile(block, f"{doc} (python block {index + 1})", "exec"),
             namespace)


# ---------------------------------------------------------------------------
# TensorFlow 1's semantics that a hunt found broken (2026-12-07).


def test_session_run_from_threads():
    # Two threads running one program deadlocked: one held the program's
    # lock and waited for the GIL, the other held the GIL and waited for
    # the lock. TensorFlow's Session.run is thread-safe.
    import threading
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [16, 16])
        y = tf.reduce_sum(tf.matmul(x, x))
        sess = tf.Session()
        a = np.ones((16, 16), np.float32)
        results = []

        def work():
            for _ in range(20):
                results.append(float(sess.run(y, {x: a})))

        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not any(t.is_alive() for t in threads)
        assert results == [16.0 * 16 * 16] * 60


def test_scalar_feed_keeps_its_shape():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        with tf.Session() as sess:
            assert sess.run(x, {x: 3.0}).shape == ()
            assert sess.run(x * 2.0, {x: 3.0}) == 6.0
        lr = tf.placeholder(tf.float32, [])
        w = tf.Variable([0.5])
        step = tf.train.GradientDescentOptimizer(lr).minimize(
            tf.reduce_sum(w * 2.0))
        with tf.Session() as sess:
            sess.run(w.initializer)
            sess.run(step, {lr: 0.5})
            np.testing.assert_allclose(sess.run(w), [-0.5])


def test_two_adam_optimizers():
    # A GAN's two optimizers: TensorFlow names the second's powers
    # beta1_power_1 and beta2_power_1.
    with tf.Graph().as_default():
        a = tf.Variable([1.0], name="a")
        b = tf.Variable([3.0], name="b")
        train_a = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(a * a),
                                                       var_list=[a])
        train_b = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(b * b),
                                                       var_list=[b])
        names = [v.op.name for v in tf.global_variables()]
        assert "beta1_power_1" in names and "beta2_power_1" in names
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        sess.run([train_a, train_b])
        # Adam's first step moves each by the learning rate.
        np.testing.assert_allclose(sess.run([a, b]), [[0.9], [2.9]],
                                   rtol=1e-5)
        # A variable's output by name is its value.
        np.testing.assert_allclose(sess.run("a:0"), [0.9], rtol=1e-5)


def test_integer_truediv_is_float64():
    with tf.Graph().as_default():
        t = tf.constant(7) / tf.constant(2)
        assert t.dtype is tf.float64
        assert tf.Session().run(t) == 3.5
        assert tf.Session().run(tf.divide(7, tf.constant(2))) == 3.5


def test_python_ints_and_floats_for_integer_dtypes():
    with tf.Graph().as_default():
        big = tf.constant(2**40)
        assert big.dtype is tf.int64
        assert tf.Session().run(big) == 2**40
        with pytest.raises(TypeError, match="out of range for int32"):
            tf.constant(2**40, dtype=tf.int32)
        with pytest.raises(TypeError, match="Expected int32, got 2.7"):
            tf.constant(2.7, dtype=tf.int32)
        # The last element fills a longer shape.
        np.testing.assert_array_equal(
            tf.Session().run(tf.constant([1.0, 2.0], shape=[4])),
            [1, 2, 2, 2])


def test_axis_out_of_range():
    with tf.Graph().as_default():
        a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        for make in (lambda: tf.concat([a, a], 2),
                     lambda: tf.argmax(a, axis=2),
                     lambda: tf.gather(a, [1], axis=-3)):
            with pytest.raises(ValueError, match=r"range \[-2, 2\)"):
                make()
        with pytest.raises(ValueError, match="Index out of range"):
            tf.constant([1.0, 2.0])[0:1, 0:1]


def test_arithmetic_dtypes_gplace_has_no_kernel_for():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="DataType uint8 not in list"):
            tf.constant(np.array([1, 2], np.uint8)) + 1
        with pytest.raises(TypeError, match="DataType int32 not in list"):
            tf.constant([2, 3]) ** 2


def test_gradient_through_every_read_of_a_variable():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        loss = tf.reduce_sum(v.read_value() ** 2) + tf.reduce_sum(v * 3.0)
        (grad,) = tf.gradients(loss, v)
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        sess = tf.Session()
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(grad), [5.0, 7.0])
        sess.run(step)
        np.testing.assert_allclose(sess.run(v), [0.5, 1.3], rtol=1e-6)


def test_run_options_and_graph_options_are_accepted():
    with tf.Graph().as_default():
        sess = tf.Session()
        assert sess.run(tf.constant(1.0),
                        options=tf.RunOptions(
                            trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=tf.RunMetadata()) == 1.0
        config = tf.ConfigProto()
        config.graph_options.optimizer_options.global_jit_level = \
            tf.OptimizerOptions.ON_1


def test_config_threads_reach_the_program():
    # intra_op_ and inter_op_parallelism_threads are gplace.compile's; a
    # negative inter_op_parallelism_threads is TensorFlow's "all operations
    # in the caller's thread": one at a time, as 1.
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        y = tf.matmul(x, x)
        for threads in (-1, 1, 0):
            sess = tf.Session(config=tf.ConfigProto(
                inter_op_parallelism_threads=threads,
                intra_op_parallelism_threads=1))
            np.testing.assert_array_equal(sess.run(y),
                                          [[7.0, 10.0], [15.0, 22.0]])
        with pytest.raises(ValueError,
                           match="intra_op_parallelism_threads must be 0"):
            tf.Session(config=tf.ConfigProto(
                intra_op_parallelism_threads=-1)).run(y)


def test_get_variable_beside_a_variable_of_its_name():
    # Two ops named "w" did not compile; TensorFlow names the second "w_1".
    with tf.Graph().as_default():
        a = tf.Variable([1.0], name="w")
        b = tf.get_variable("w", [1],
                            initializer=tf.constant_initializer(3.0))
        assert (a.op.name, b.op.name) == ("w", "w_1")
        with tf.variable_scope("", reuse=True):
            assert tf.get_variable("w") is b
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run([a, b]), [[1.0], [3.0]])
