func.func @copyWithoutDestination(%x: tensor<2xf32>) {
  %0 = gplace.copy %x {source = "/job:localhost/replica:0/task:0/device:CPU:0"} : tensor<2xf32>
  return
}
