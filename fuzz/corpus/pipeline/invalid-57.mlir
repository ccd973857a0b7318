func.func @defaultDeviceNotString() attributes {gplace.default_device = 0} {
  return
}
