// The seeds' control-dependency example: x and y are computed only once a
// and b are.
//
//   a = tf.constant(1.0)
//   b = a + 2.0
//   with tf.control_dependencies([a, b]):
//     x = tf.constant(3.0)
//     y = tf.constant(4.0)
//   z = x + y
//
// Expected value: z = 7 (and b = 3 has been computed before x and y).
// gplace-run --emulate-gpus=4 prints:
//   result[0]: f32=7
func.func @main() -> tensor<f32> {
  %a = gplace.constant dense<1.0> : tensor<f32>
  %two = gplace.constant dense<2.0> : tensor<f32>
  %b = gplace.add %a, %two : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %deps = gplace.group %a, %b : tensor<f32>, tensor<f32>
  %x = gplace.constant dense<3.0> : tensor<f32> after(%deps)
  %y = gplace.constant dense<4.0> : tensor<f32> after(%deps)
  %z = gplace.add %x, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %z : tensor<f32>
}
