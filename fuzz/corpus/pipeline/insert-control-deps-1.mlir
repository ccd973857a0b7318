func.func @crossDeviceAfter(%x: tensor<f32>) {
  %t = gplace.group %x {device = "/gpu:1"} : tensor<f32>
  %a = gplace.constant dense<1.0> : tensor<f32> after(%t) {device = "/gpu:0"}
  %b = gplace.constant dense<2.0> : tensor<f32> after(%t) {device = "/gpu:1"}
  return
}
