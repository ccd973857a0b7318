// The seeds' parameter-server pattern: the variable and the constant on the
// CPU, the product unpinned (so on the default GPU).
//
//   with tf.device("/cpu:0"):
//     a = tf.Variable(3.0)
//     b = tf.constant(4.0)
//   c = a * b
//   config = tf.ConfigProto()
//   config.log_device_placement = True
//   sess = tf.Session(config=config)
//   a.initializer.run(session=sess)
//   print(sess.run(c))  # 12
//
// Expected output (the seeds):
//   a: /job:localhost/replica:0/task:0/cpu:0
//   a/read: /job:localhost/replica:0/task:0/cpu:0
//   mul: /job:localhost/replica:0/task:0/gpu:0
//   b: /job:localhost/replica:0/task:0/cpu:0
//   12
// gplace-run --emulate-gpus=4 prints:
//   result[0]: f32=12
func.func @main() -> tensor<f32> {
  %a = gplace.variable dense<3.0> : tensor<f32> {device = "/cpu:0", name = "a"}
  %b = gplace.constant dense<4.0> : tensor<f32> {device = "/cpu:0", name = "b"}
  %read = gplace.read %a {name = "a/read"} : !gplace.resource<tensor<f32>>
  %c = gplace.mul %read, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %c : tensor<f32>
}
