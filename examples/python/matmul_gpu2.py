"""The seeds' first program: a and b pinned to /device:GPU:2, the product
unpinned, soft placement on (so it runs where GPU:2 is missing too).

    GPLACE_EMULATE_GPUS=4 python3 examples/python/matmul_gpu2.py

prints TensorFlow's [[22. 28.] [49. 64.]]; the placement log (stderr) puts
a and b on GPU:2 (on GPU:0 with fewer than three GPUs: soft placement).
"""
import gplace.compat.v1 as tf

# Creates a graph.
with tf.device('/device:GPU:2'):
    a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
    b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
c = tf.matmul(a, b)
# Creates a session with log_device_placement set to True.
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True,
                                        allow_soft_placement=True))
# Runs the op.
print(sess.run(c))
