"""The seeds' GPU memory settings: allow_growth and
per_process_gpu_memory_fraction, in both of the seeds' spellings (an
attribute of config.gpu_options, or a tf.GPUOptions), and a control
dependency (the seeds' x and y wait for a and b).

    GPLACE_EMULATE_GPUS=1 python3 examples/python/gpu_options.py

prints 7.0 four times.
"""
import gplace.compat.v1 as tf

a = tf.constant(1.0)
b = a + 2.0
# x and y are computed only once a and b are.
with tf.control_dependencies([a, b]):
    x = tf.constant(3.0)
    y = tf.constant(4.0)
z = x + y

# Way one: set a field of config.gpu_options.
config = tf.ConfigProto()
config.gpu_options.allow_growth = True
with tf.Session(config=config) as session:
    print(session.run(z))

# Way two: a GPUOptions.
gpu_options = tf.GPUOptions(allow_growth=True)
with tf.Session(config=tf.ConfigProto(gpu_options=gpu_options)) as sess:
    print(sess.run(z))

# A fixed share of each GPU's memory.
config = tf.ConfigProto()
config.gpu_options.per_process_gpu_memory_fraction = 0.4
with tf.Session(config=config) as session:
    print(session.run(z))

gpu_options = tf.GPUOptions(per_process_gpu_memory_fraction=0.7)
config = tf.ConfigProto(gpu_options=gpu_options)
with tf.Session(config=config) as session:
    print(session.run(z))
