// The seeds' multi-tower program: one tower per GPU, the sum on the CPU.
//
//   c = []
//   for d in ['/gpu:2', '/gpu:3']:
//     with tf.device(d):
//       a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
//       b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
//       c.append(tf.matmul(a, b))
//   with tf.device('/cpu:0'):
//     sum = tf.add_n(c)
//   sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
//   print(sess.run(sum))
//
// Expected output (the seeds), with TensorFlow's default names:
//   Const_3: /job:localhost/replica:0/task:0/gpu:3
//   Const_2: /job:localhost/replica:0/task:0/gpu:3
//   MatMul_1: /job:localhost/replica:0/task:0/gpu:3
//   Const_1: /job:localhost/replica:0/task:0/gpu:2
//   Const: /job:localhost/replica:0/task:0/gpu:2
//   MatMul: /job:localhost/replica:0/task:0/gpu:2
//   AddN: /job:localhost/replica:0/task:0/cpu:0
//   [[  44.   56.]
//    [  98.  128.]]
// gplace-run --emulate-gpus=4 prints:
//   result[0]: 2x2xf32=[[44, 56], [98, 128]]
func.func @main() -> tensor<2x2xf32> {
  %a0 = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> {device = "/gpu:2"}
  %b0 = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> {device = "/gpu:2"}
  %c0 = gplace.matmul %a0, %b0 {device = "/gpu:2"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %a1 = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> {device = "/gpu:3"}
  %b1 = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> {device = "/gpu:3"}
  %c1 = gplace.matmul %a1, %b1 {device = "/gpu:3"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %sum = gplace.add_n %c0, %c1 {device = "/cpu:0"} : tensor<2x2xf32>, tensor<2x2xf32>
  return %sum : tensor<2x2xf32>
}
