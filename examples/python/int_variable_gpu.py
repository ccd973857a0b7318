"""The seeds' integer variable on a GPU: TensorFlow has no GPU kernel for
integer variables, so without soft placement it is an
InvalidArgumentError, and with config.allow_soft_placement = True the
variable lands on the CPU.

    GPLACE_EMULATE_GPUS=1 python3 examples/python/int_variable_gpu.py

prints the error's first line, then 3.
"""
import gplace.compat.v1 as tf

with tf.device("/gpu:0"):
    i = tf.Variable(3)

sess = tf.Session()
try:
    sess.run(i.initializer)
except tf.errors.InvalidArgumentError as error:
    print("InvalidArgumentError:", str(error).splitlines()[0])

with tf.device("/gpu:0"):
    i = tf.Variable(3)
config = tf.ConfigProto()
config.allow_soft_placement = True  # the placer falls back to /cpu:0
sess = tf.Session(config=config)
sess.run(i.initializer)
print(sess.run(i))
