"""A small training loop as a TensorFlow 1 user writes it: a two-layer
ReLU network classifying points of four Gaussian clusters, trained with
Adam on mini-batches fed through placeholders, then evaluated; the
variables stay in the session between the training and evaluation
programs. Then a linear regression with gradient descent.

    GPLACE_EMULATE_GPUS=1 python3 examples/python/train_mlp.py

prints the loss every 100 steps (falling), the accuracy (above 0.95), and
the fitted line (w close to 2, b close to -1).
"""
import numpy as np
import gplace.compat.v1 as tf

rng = np.random.RandomState(0)
centers = np.array([[2, 2], [-2, 2], [-2, -2], [2, -2]], np.float32)
labels = rng.randint(0, 4, size=2000)
points = centers[labels] + rng.normal(scale=0.8, size=(2000, 2))
points = points.astype(np.float32)
labels = labels.astype(np.int32)

tf.set_random_seed(1)
x = tf.placeholder(tf.float32, [None, 2], name="x")
y = tf.placeholder(tf.int32, [None], name="y")
with tf.variable_scope("hidden"):
    w1 = tf.get_variable("kernel", [2, 32])  # Glorot uniform, as TF's
    b1 = tf.get_variable("bias", [32], initializer=tf.zeros_initializer())
    h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
with tf.variable_scope("logits"):
    w2 = tf.get_variable("kernel", [32, 4])
    b2 = tf.get_variable("bias", [4], initializer=tf.zeros_initializer())
    logits = tf.matmul(h, w2) + b2
loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
train_op = tf.train.AdamOptimizer(learning_rate=0.01).minimize(loss)
correct = tf.equal(tf.argmax(logits, 1), tf.cast(y, tf.int64))
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(501):
        batch = rng.randint(0, 1600, size=64)
        _, value = sess.run([train_op, loss],
                            feed_dict={x: points[batch], y: labels[batch]})
        if step % 100 == 0:
            print("step %d, loss %.4f" % (step, value))
    print("accuracy %.3f" % sess.run(accuracy, {x: points[1600:],
                                                y: labels[1600:]}))

# Linear regression: y = 2x - 1, gradient descent.
tf.reset_default_graph()
xs = np.linspace(-1, 1, 100).astype(np.float32)
ys = (2 * xs - 1 + rng.normal(scale=0.05, size=100)).astype(np.float32)
X = tf.placeholder(tf.float32, [100])
Y = tf.placeholder(tf.float32, [100])
w = tf.Variable(0.0, name="w")
b = tf.Variable(0.0, name="b")
cost = tf.reduce_mean(tf.square(w * X + b - Y))
step = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    first = sess.run(cost, {X: xs, Y: ys})
    for _ in range(200):
        sess.run(step, {X: xs, Y: ys})
    last, w_value, b_value = sess.run([cost, w, b], {X: xs, Y: ys})
    print("cost %.4f -> %.4f, w %.2f, b %.2f" % (first, last, w_value,
                                                  b_value))
