// The seeds' multi-tower program (examples/multi_tower.mlir) written as one
// tower: gplace-run's --replicate makes the towers, as MirroredStrategy's
// strategy.run and strategy.reduce do.
//
//   strategy = tf.distribute.MirroredStrategy(['/gpu:2', '/gpu:3'])
//   def tower():
//     a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
//     b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
//     return tf.matmul(a, b)
//   sum = strategy.reduce(tf.distribute.ReduceOp.SUM,
//                         strategy.run(tower), axis=None)
//
// gplace-run one_tower.mlir --emulate-gpus=4 --log-device-placement \
//     --replicate='devices=/gpu:2,/gpu:3 reduce=sum functions=main'
// places each tower on its GPU and the sum (AddN) on the CPU, and prints the
// seeds' numbers:
//   result[0]: 2x2xf32=[[44, 56], [98, 128]]
// Without --replicate it is one tower: [[22, 28], [49, 64]].
func.func @main() -> tensor<2x2xf32> {
  %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %c = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}
