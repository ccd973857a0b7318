// A graph every task of a cluster fails to place (cluster.test).
func.func @main() -> tensor<2xf32> {
  %a = gplace.constant dense<1.0> : tensor<2xf32> {device = "/job:worker/task:0/gpu:7"}
  return %a : tensor<2xf32>
}
