// An --init function that fails when it runs (integer division by zero,
// TensorFlow's error) and an entry without variables: errors.test checks
// that --save's "no variables" error comes first, without running @init.
func.func @init() -> tensor<2xi32> {
  %a = gplace.constant dense<[1, 2]> : tensor<2xi32>
  %z = gplace.constant dense<0> : tensor<2xi32>
  %d = gplace.div %a, %z : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %d : tensor<2xi32>
}

func.func @main() -> tensor<2xf32> {
  %c = gplace.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
