// A graph needing 12 MiB on its device (used by memory-limit tests).
func.func @main() -> tensor<1024x1024xf32> {
  %a = gplace.constant dense<1.0> : tensor<1024x1024xf32>
  %b = gplace.exp %a : tensor<1024x1024xf32>
  %c = gplace.exp %b : tensor<1024x1024xf32>
  return %c : tensor<1024x1024xf32>
}
