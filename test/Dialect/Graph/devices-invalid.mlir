// Tests the verifier of #gplace.device and of the module's gplace.devices.
// RUN: gplace-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#gplace.device needs a full device name, but got '/gpu:0'}}
module attributes {gplace.devices = [#gplace.device<"/gpu:0">]} {}

// -----

// expected-error @+1 {{Malformed device specification '/device:T-PU:0'}}
module attributes {gplace.devices = [#gplace.device<"/device:T-PU:0">]} {}

// -----

// A device type gplace has no devices of is valid syntax in a request, but
// no device of a module has it.
// expected-error @+1 {{#gplace.device '/job:localhost/replica:0/task:0/device:TPU:0' has device type 'TPU'; gplace has devices of types CPU and GPU only}}
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:TPU:0">]} {}

// -----

// expected-error @+1 {{'gplace.devices' lists device '/job:localhost/replica:0/task:0/device:CPU:0' twice}}
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">, #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]} {}

// -----

// expected-error @+1 {{'gplace.devices' must be a non-empty list of #gplace.device on a module}}
module attributes {gplace.devices = []} {}

// -----

// expected-error @+1 {{'/job:localhost/replica:0/task:0/device:GPU:0' needs all of processes, free_mib and utilization, or none}}
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", processes = 1>]} {}

// -----

// expected-error @+1 {{unknown #gplace.device key 'memory' (known: memory_limit, description, processes, free_mib, utilization)}}
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", memory = 1>]} {}
