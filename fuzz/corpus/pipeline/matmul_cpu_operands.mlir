// The seeds' manual placement: the operands on the CPU, the matmul unpinned.
//
//   with tf.device('/cpu:0'):
//     a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
//     b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
//   c = tf.matmul(a, b)
//   sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
//   print(sess.run(c))
//
// Expected output (the seeds): a and b on the CPU, the unpinned MatMul on
// the default GPU, the operands copied to it:
//   b: /job:localhost/replica:0/task:0/cpu:0
//   a: /job:localhost/replica:0/task:0/cpu:0
//   MatMul: /job:localhost/replica:0/task:0/gpu:0
//   [[ 22.  28.]
//    [ 49.  64.]]
// gplace-run --emulate-gpus=4 prints:
//   result[0]: 2x2xf32=[[22, 28], [49, 64]]
func.func @main() -> tensor<2x2xf32> {
  %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> {device = "/cpu:0", name = "a"}
  %b = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> {device = "/cpu:0", name = "b"}
  %c = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}
