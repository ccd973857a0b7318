func.func @resourceValueType(
  %r: !gplace.resource<tensor<?xf32>>) {
  return
}
