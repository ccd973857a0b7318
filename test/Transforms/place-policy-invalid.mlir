// Tests policy errors: a policy answer that is not a device name, one that
// names no device, and plugins that cannot be loaded.
// RUN: not gplace-opt %s --gplace-load-policy=%plugins/libGPlaceTestPolicies.so --gplace-place="devices=cpu:1,gpu:1 policy=test-invalid-device" 2>&1 | FileCheck %s --check-prefix=INVALID
// INVALID: place-policy-invalid.mlir:[[@LINE+14]]:8: error: placement policy 'test-invalid-device' returned an invalid device for operation 'Const': Malformed device specification '/gpu:x': device id 'x' is not a non-negative integer
// RUN: gplace-opt %s --gplace-load-policy=%plugins/libGPlaceTestPolicies.so --gplace-place="devices=cpu:1,gpu:1 policy=test-last-device" | FileCheck %s --check-prefix=LAST
// LAST: gplace.constant {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
// RUN: not gplace-opt %s --gplace-load-policy=%plugins/libGPlaceTestPolicies.so --gplace-place="devices=cpu:1,gpu:1 policy=test-by-shape" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: Cannot assign a device for operation 'Const': Could not satisfy explicit device specification '/gpu:1' because no devices matching that specification are registered in this process
// RUN: not gplace-opt %s --gplace-load-policy=%plugins/does-not-exist.so 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: gplace-opt: cannot load placement policy plugin '{{.*}}does-not-exist.so': {{.*}}No such file or directory
// RUN: not gplace-opt %s --gplace-load-policy=%plugins/libGPlaceTestPolicyBadAbi.so 2>&1 | FileCheck %s --check-prefix=ABI
// ABI: gplace-opt: cannot load placement policy plugin '{{.*}}libGPlaceTestPolicyBadAbi.so': it was built for policy ABI version 999, this gplace has version 2
// RUN: not gplace-opt %s --gplace-load-policy=libm.so.6 2>&1 | FileCheck %s --check-prefix=NOSYMBOL
// NOSYMBOL: gplace-opt: cannot load placement policy plugin 'libm.so.6': it does not export gplace_policy_abi_version and gplace_register_placement_policies (define them with GPLACE_DEFINE_POLICY_PLUGIN)
// RUN: not gplace-opt %s --gplace-load-policy=%plugins/libGPlaceTestPolicies.so --gplace-load-policy=%plugins/libGPlaceTestPolicies.so 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: gplace-opt: cannot load placement policy plugin '{{.*}}libGPlaceTestPolicies.so': it registered no new policy (are its names taken?)
func.func @main() {
  %0 = gplace.constant dense<[[1.0]]> : tensor<1x1xf32>
  return
}
