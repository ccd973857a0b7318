// One input, negated: for cluster.test's task that never reaches the set-up
// exchange (its --input is a FIFO nobody writes).
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = gplace.neg %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
