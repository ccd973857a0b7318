func.func @policyNotString() attributes {gplace.device_policy} {
  return
}
