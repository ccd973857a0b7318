"""The seeds' parameter-server placement: a variable and a constant pinned
to the CPU, their product unpinned (so on GPU:0), then the same graph
placed by a device function, `variables_on_cpu`.

    GPLACE_EMULATE_GPUS=1 python3 examples/python/variables_on_cpu.py

prints 12.0 twice; the log (stderr) has a: (VarHandleOp) on CPU:0 and
mul: (Mul) on GPU:0.
"""
import gplace.compat.v1 as tf

with tf.device("/cpu:0"):
    a = tf.Variable(3.0, name="a")
    b = tf.constant(4.0, name="b")
c = a * b

config = tf.ConfigProto()
config.log_device_placement = True
sess = tf.Session(config=config)
a.initializer.run(session=sess)
print(sess.run(c))  # 12

# The same with a dynamic placement policy: a device function called for
# each op as it is created.
tf.reset_default_graph()


def variables_on_cpu(op):
    # 可以在这里实现复杂的round-robin策略 (a round-robin policy could go here)
    if op.type == "Variable":
        return "/cpu:0"
    else:
        return "/gpu:0"


with tf.device(variables_on_cpu):  # 对块内的所有node使用动态放置策略
    a = tf.Variable(3.0)
    b = tf.constant(4.0)
    c = a * b

with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(c))  # 12
