"""The seeds' multi-tower program: one tower per GPU, the sum on the CPU.

    GPLACE_EMULATE_GPUS=4 python3 examples/python/multi_tower.py

prints TensorFlow's [[ 44.  56.] [ 98. 128.]] and logs (stderr)
Const and Const_1 and MatMul on GPU:2, Const_2, Const_3 and MatMul_1 on
GPU:3, AddN on CPU:0. Without four GPUs it is TensorFlow's
InvalidArgumentError ("Could not satisfy explicit device specification").
"""
import gplace.compat.v1 as tf

# Creates a graph.
c = []
for d in ['/gpu:2', '/gpu:3']:
    with tf.device(d):
        a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
        b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
        c.append(tf.matmul(a, b))
with tf.device('/cpu:0'):
    sum = tf.add_n(c)
# Creates a session with log_device_placement set to True.
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
# Runs the op.
print(sess.run(sum))
