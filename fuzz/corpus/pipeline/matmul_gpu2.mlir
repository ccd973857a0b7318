// The seeds' single-GPU program: everything pinned to the third GPU.
//
//   with tf.device('/gpu:2'):
//     a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
//     b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
//     c = tf.matmul(a, b)
//   sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
//   print(sess.run(c))
//
// Expected output (the seeds), on a machine with at least three GPUs:
//   [[ 22.  28.]
//    [ 49.  64.]]
// gplace-run --emulate-gpus=4 prints:
//   result[0]: 2x2xf32=[[22, 28], [49, 64]]
//
// Without a GPU:2 and without soft placement, TensorFlow refuses:
//   Cannot assign a device for operation 'b': Could not satisfy explicit
//   device specification '/gpu:2' because no devices matching that
//   specification are registered in this process; available devices: ...
// With allow_soft_placement=True every op lands on GPU:0 instead.
func.func @main() -> tensor<2x2xf32> {
  %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> {device = "/gpu:2", name = "a"}
  %b = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> {device = "/gpu:2", name = "b"}
  %c = gplace.matmul %a, %b {device = "/gpu:2"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}
