func.func @emptyGroup() {
  %0 = "gplace.group"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> !gplace.control
  return
}
