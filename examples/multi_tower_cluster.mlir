// The seeds' multi-tower program (examples/multi_tower.mlir) with its
// towers on two tasks of a cluster, one process each, as TensorFlow's
// distributed runtime runs it:
//
//   cluster = tf.train.ClusterSpec({'worker': ['host0:2222', 'host1:2222']})
//   for d in ['/job:worker/task:0/gpu:0', '/job:worker/task:1/gpu:0']:
//     with tf.device(d):
//       a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
//       b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
//       c.append(tf.matmul(a, b))
//   with tf.device('/job:worker/task:0/cpu:0'):
//     sum = tf.add_n(c)
//
// mpirun -np 2 gplace-run multi_tower_cluster.mlir --cluster=worker:2 \
//     --emulate-gpus=1
// prints, on rank 0 (task 0, the chief), the seeds' numbers:
//   result[0]: 2x2xf32=[[44, 56], [98, 128]]
// Task 1's product reaches task 0 through a send/recv pair.
func.func @main() -> tensor<2x2xf32> {
  %a0 = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> {device = "/job:worker/task:0/gpu:0"}
  %b0 = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> {device = "/job:worker/task:0/gpu:0"}
  %c0 = gplace.matmul %a0, %b0 {device = "/job:worker/task:0/gpu:0"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %a1 = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> {device = "/job:worker/task:1/gpu:0"}
  %b1 = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> {device = "/job:worker/task:1/gpu:0"}
  %c1 = gplace.matmul %a1, %b1 {device = "/job:worker/task:1/gpu:0"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %sum = gplace.add_n %c0, %c1 {device = "/job:worker/task:0/cpu:0"} : tensor<2x2xf32>, tensor<2x2xf32>
  return %sum : tensor<2x2xf32>
}
