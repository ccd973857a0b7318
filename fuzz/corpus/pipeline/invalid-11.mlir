func.func @dynamicShape(%a: tensor<?xf32>) {
  %0 = gplace.relu %a : tensor<?xf32>
  return
}
