func.func @unknownDialectAttribute() attributes {gplace.default_devices = "/cpu:0"} {
  return
}
