// All-reduces whose group is one CUDA GPU: each member on a physical GPU of
// its own, so they run NCCL (a clique of one communicator), a sum and a
// mean of group size 1, in f32 and f64.
func.func @main(%x: tensor<5xf32>, %y: tensor<3xf64>) -> (tensor<5xf32>, tensor<3xf64>) {
  %a = gplace.neg %x {device = "/gpu:0"} : tensor<5xf32>
  %s = gplace.collective_reduce %a {group_key = 0, group_size = 1, instance_key = 0, member = 0, ranks = array<i64>, device = "/gpu:0"} : tensor<5xf32>
  %b = gplace.neg %y {device = "/gpu:0"} : tensor<3xf64>
  %m = gplace.collective_reduce %b {group_key = 0, group_size = 1, instance_key = 1, member = 0, ranks = array<i64>, mean, device = "/gpu:0"} : tensor<3xf64>
  return %s, %m : tensor<5xf32>, tensor<3xf64>
}
