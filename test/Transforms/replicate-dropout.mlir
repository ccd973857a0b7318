// RUN: gplace-opt %s --split-input-file --gplace-replicate="replicas=3" | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-replicate="replicas=2 variables=host" | FileCheck %s --check-prefix=HOST

// Each replica draws its own dropout mask, as each of TensorFlow's towers
// does: replica i's copy of a seeded op that depends on the batch takes
// seed + [0, i * 0x9E3779B97F4A7C15] (wrapped; replica 0 keeps the seed, so
// one replica is one device), not seed + [0, i], which would make layers'
// seeds [s, 1000] and [s, 1001] each other's in two replicas.
// Every replica drew replica 0's mask for its slice before. A seeded op
// that does not depend on the batch (the weights' initial values) keeps
// one seed in every replica.
// CHECK-LABEL: func.func @train
// CHECK: %[[SEED:.+]] = gplace.constant dense<[3, 4]> : tensor<2xi64> {device = "/device:GPU:0", name = "seed"}
// CHECK: gplace.stateless_random_uniform %[[SEED]] {device = "/device:GPU:0", name = "init"}
// CHECK: gplace.stateless_random_uniform %{{.+}} {device = "/device:GPU:1", name = "replica_1/init"}
// CHECK-NOT: /seed/
// CHECK: gplace.dropout %{{.+}}, %{{.+}}, %[[SEED]] {device = "/device:GPU:0", name = "dropout"}
// CHECK: %[[ONE:.+]] = gplace.constant dense<[0, -7046029254386353131]> : tensor<2xi64> {device = "/device:GPU:1", name = "replica_1/dropout/seed/Const"}
// CHECK: %[[SEED1:.+]] = gplace.add %{{.+}}, %[[ONE]] {device = "/device:GPU:1", name = "replica_1/dropout/seed/add"}
// CHECK: gplace.dropout %{{.+}}, %{{.+}}, %[[SEED1]] {device = "/device:GPU:1", name = "replica_1/dropout"}
// CHECK: %[[TWO:.+]] = gplace.constant dense<[0, 4354685564936845354]> : tensor<2xi64> {device = "/device:GPU:2", name = "replica_2/dropout/seed/Const"}
// CHECK: %[[SEED2:.+]] = gplace.add %{{.+}}, %[[TWO]] {device = "/device:GPU:2", name = "replica_2/dropout/seed/add"}
// CHECK: gplace.dropout %{{.+}}, %{{.+}}, %[[SEED2]] {device = "/device:GPU:2", name = "replica_2/dropout"}
// HOST-LABEL: func.func @train
// HOST: %[[SEED:.+]] = gplace.constant dense<[3, 4]> : tensor<2xi64>
// HOST: gplace.dropout %{{.+}}, %{{.+}}, %[[SEED]] {device = "/device:GPU:0", name = "tower_0/dropout"}
// HOST: %[[ONE:.+]] = gplace.constant dense<[0, -7046029254386353131]> : tensor<2xi64> {device = "/device:GPU:1", name = "tower_1/dropout/seed/Const"}
// HOST: %[[SEED1:.+]] = gplace.add %[[SEED]], %[[ONE]]
// HOST: gplace.dropout %{{.+}}, %{{.+}}, %[[SEED1]] {device = "/device:GPU:1", name = "tower_1/dropout"}
func.func @train(%x: tensor<6x2xf32>) -> tensor<f32> {
  %seed = gplace.constant dense<[3, 4]> : tensor<2xi64> {name = "seed"}
  %init = gplace.stateless_random_uniform %seed {name = "init"} : tensor<2xi64> -> tensor<2x2xf32>
  %w = gplace.variable dense<0.5> : tensor<2x2xf32> {name = "w"}
  %t = gplace.assign %w, %init : !gplace.resource<tensor<2x2xf32>>
  %r = gplace.read %w after(%t) : !gplace.resource<tensor<2x2xf32>>
  %p = gplace.matmul %x, %r : (tensor<6x2xf32>, tensor<2x2xf32>) -> tensor<6x2xf32>
  %rate = gplace.constant dense<0.5> : tensor<f32>
  %d = gplace.dropout %p, %rate, %seed {name = "dropout"} : tensor<6x2xf32>, tensor<f32>, tensor<2xi64>
  %loss = gplace.reduce_mean %d axes = [0, 1] : tensor<6x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<2x2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<2x2xf32>>, tensor<f32>, tensor<2x2xf32>
  %l = gplace.identity %loss after(%u) : tensor<f32>
  return %l : tensor<f32>
}

// -----

// An i32 seed gains the 32-bit golden ratio (0x9E3779B9) per replica.
// CHECK-LABEL: func.func @i32Seed
// CHECK: gplace.constant dense<[0, -1640531527]> : tensor<2xi32> {device = "/device:GPU:1", name = "replica_1/dropout/seed/Const"}
// CHECK: gplace.constant dense<[0, 1013904242]> : tensor<2xi32> {device = "/device:GPU:2", name = "replica_2/dropout/seed/Const"}
func.func @i32Seed(%x: tensor<6x2xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<2x2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<2x2xf32>>
  %p = gplace.matmul %x, %r : (tensor<6x2xf32>, tensor<2x2xf32>) -> tensor<6x2xf32>
  %rate = gplace.constant dense<0.5> : tensor<f32>
  %seed = gplace.constant dense<[3, 4]> : tensor<2xi32>
  %d = gplace.dropout %p, %rate, %seed {name = "dropout"} : tensor<6x2xf32>, tensor<f32>, tensor<2xi32>
  %loss = gplace.reduce_mean %d axes = [0, 1] : tensor<6x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<2x2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<2x2xf32>>, tensor<f32>, tensor<2x2xf32>
  %l = gplace.identity %loss after(%u) : tensor<f32>
  return %l : tensor<f32>
}
