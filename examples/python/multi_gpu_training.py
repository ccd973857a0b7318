"""The seeds' data-parallel training ("TensorFlow多GPU使用"): one tower per
GPU, each in its own name scope ("tower_0", "tower_1") on its own slice of
the batch, the variables shared between the towers and kept on the CPU,
the towers' gradients averaged and applied once.

    GPLACE_EMULATE_GPUS=2 python3 examples/python/multi_gpu_training.py

prints the loss every 50 steps (falling) and the accuracy; the placement
log (stderr) has tower_0/MatMul on GPU:0, tower_1/MatMul on GPU:1 and the
variables on CPU:0.
"""
import numpy as np
import gplace.compat.v1 as tf

num_gpus = 2
batch_size = 32
rng = np.random.RandomState(1)
data = rng.normal(size=(4000, 8)).astype(np.float32)
truth = rng.normal(size=(8, 3)).astype(np.float32)
targets = np.argmax(data @ truth, axis=1).astype(np.int32)


def net(x, reuse):
    with tf.variable_scope("net", reuse=reuse):
        w1 = tf.get_variable("w1", [8, 32])
        b1 = tf.get_variable("b1", [32], initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", [32, 3])
        b2 = tf.get_variable("b2", [3], initializer=tf.zeros_initializer())
    hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
    return tf.matmul(hidden, w2) + b2


def average_gradients(tower_grads):
    averaged = []
    for grads_and_vars in zip(*tower_grads):
        grads = [g for g, _ in grads_and_vars]
        averaged.append((tf.add_n(grads) / float(len(grads)),
                         grads_and_vars[0][1]))
    return averaged


X = tf.placeholder(tf.float32, [batch_size * num_gpus, 8], name="X")
Y = tf.placeholder(tf.int32, [batch_size * num_gpus], name="Y")
opt = tf.train.MomentumOptimizer(0.1, 0.9)
tower_grads, losses = [], []
with tf.device("/cpu:0"):
    net(tf.zeros([1, 8]), reuse=False)  # the variables, on the CPU
for i in range(num_gpus):
    with tf.device("/gpu:%d" % i):
        with tf.name_scope("tower_%d" % i):
            _x = X[i * batch_size:(i + 1) * batch_size]
            _y = Y[i * batch_size:(i + 1) * batch_size]
            logits = net(_x, reuse=True)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=_y, logits=logits))
            losses.append(loss)
            tower_grads.append(opt.compute_gradients(loss))
with tf.device("/cpu:0"):
    train_op = opt.apply_gradients(average_gradients(tower_grads))
    mean_loss = tf.add_n(losses) / float(num_gpus)

test_x = tf.placeholder(tf.float32, [None, 8])
test_y = tf.placeholder(tf.int32, [None])
accuracy = tf.reduce_mean(tf.cast(tf.equal(
    tf.argmax(net(test_x, reuse=True), 1), tf.cast(test_y, tf.int64)),
    tf.float32))

config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=True)
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(201):
        batch = rng.randint(0, 3000, size=batch_size * num_gpus)
        _, value = sess.run([train_op, mean_loss],
                            {X: data[batch], Y: targets[batch]})
        if step % 50 == 0:
            print("step %d, loss %.4f" % (step, value))
    print("accuracy %.3f" % sess.run(accuracy, {test_x: data[3000:],
                                                test_y: targets[3000:]}))
