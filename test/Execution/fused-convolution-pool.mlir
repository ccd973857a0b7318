// REQUIRES: dnnl
// fused_conv2d_pool (--gplace-remap fuses fused_conv2d + max_pool or
// avg_pool on CPUs): against the same ops run one by one. The inputs and
// filters are small integers, so every convolution sum is exact in f32
// whatever the order, the max pools are exact, and so are the 2x2 average
// pools (their windows hold 4, 2 or 1 elements): each RUN prints the same
// weighted sums. The RUNs: fused (the whole batch in one tile here);
// fused in tiles of one image each (GPLACE_POOL_TILE_KIB=1: the batch of 6
// in 6 tiles, the results written at each tile's offset); not fused
// (--remapping=false); and on an emulated GPU, where the remapper does not
// fuse the pool (a GPU might run it).
// The third convolution has a constant filter: oneDNN runs it by
// Winograd's algorithm (unless GPLACE_ENABLE_WINOGRAD=0), which rounds
// differently; it is checked against the same convolution of a computed
// (not constant) filter, run directly: within 1e-3 of results up to 200,
// and its relu gives +0, not -0.
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: env GPLACE_POOL_TILE_KIB=1 gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --remapping=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 | FileCheck %s
// RUN: env GPLACE_ENABLE_WINOGRAD=0 gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-opt %s --gplace-remap | FileCheck %s --check-prefix=IR
// IR-NOT: gplace.max_pool
// IR: gplace.fused_conv2d_pool {{.*}} fused_ops = ["BiasAdd", "Relu", "MaxPool"] pool_ksize = [1, 2, 2, 1] pool_strides = [1, 2, 2, 1] pool_padding = "VALID"
// IR-NOT: gplace.avg_pool
// IR: gplace.fused_conv2d_pool {{.*}} fused_ops = ["BiasAdd", "AvgPool"] pool_ksize = [1, 2, 2, 1] pool_strides = [1, 2, 2, 1] pool_padding = "SAME"
// IR-NOT: gplace.max_pool
// IR: gplace.fused_conv2d_pool {{.*}} fused_ops = ["BiasAdd", "Relu", "MaxPool"] pool_ksize = [1, 1, 1, 1]
// IR: gplace.max_pool {{.*}}device = "/device:CPU:0"
func.func @main() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %s1 = gplace.constant dense<[1, 2]> : tensor<2xi64>
  %s2 = gplace.constant dense<[3, 4]> : tensor<2xi64>
  %s3 = gplace.constant dense<[5, 6]> : tensor<2xi64>
  %s4 = gplace.constant dense<[7, 8]> : tensor<2xi64>
  %s5 = gplace.constant dense<[9, 10]> : tensor<2xi64>
  %s6 = gplace.constant dense<[11, 12]> : tensor<2xi64>
  %eight = gplace.constant dense<8.0> : tensor<f32>
  %four = gplace.constant dense<4.0> : tensor<f32>
  %zero = gplace.constant dense<0.0> : tensor<f32>

  // A first layer: 6x12x12x1, 3x3x1x16 filter, bias, relu, max_pool 2x2
  // stride 2 VALID.
  %u1 = gplace.stateless_random_uniform %s1 : tensor<2xi64> -> tensor<6x12x12x1xf32>
  %v1 = gplace.mul %u1, %eight : (tensor<6x12x12x1xf32>, tensor<f32>) -> tensor<6x12x12x1xf32>
  %i1 = gplace.cast %v1 : tensor<6x12x12x1xf32> to tensor<6x12x12x1xi32>
  %x1 = gplace.cast %i1 : tensor<6x12x12x1xi32> to tensor<6x12x12x1xf32>
  %u2 = gplace.stateless_random_uniform %s2 : tensor<2xi64> -> tensor<3x3x1x16xf32>
  %v2 = gplace.mul %u2, %eight : (tensor<3x3x1x16xf32>, tensor<f32>) -> tensor<3x3x1x16xf32>
  %i2 = gplace.cast %v2 : tensor<3x3x1x16xf32> to tensor<3x3x1x16xi32>
  %f2 = gplace.cast %i2 : tensor<3x3x1x16xi32> to tensor<3x3x1x16xf32>
  %w1 = gplace.sub %f2, %four : (tensor<3x3x1x16xf32>, tensor<f32>) -> tensor<3x3x1x16xf32>
  %b1 = gplace.constant dense<[-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, -4.0, 5.0, -5.0, 6.0, -6.0, 7.0, -7.0, 8.0]> : tensor<16xf32>
  %c1 = gplace.conv2d %x1, %w1 strides = [1, 1, 1, 1] padding = "VALID" : tensor<6x12x12x1xf32>, tensor<3x3x1x16xf32> -> tensor<6x10x10x16xf32>
  %a1 = gplace.bias_add %c1, %b1 : tensor<6x10x10x16xf32>, tensor<16xf32>
  %r1 = gplace.relu %a1 : tensor<6x10x10x16xf32>
  %p1 = gplace.max_pool %r1 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<6x10x10x16xf32> -> tensor<6x5x5x16xf32>

  // 8 input channels, SAME, strides 2, bias without relu, avg_pool 2x2
  // stride 2 SAME over 5x5 (the last windows hold 2 and 1 elements).
  %u3 = gplace.stateless_random_uniform %s3 : tensor<2xi64> -> tensor<6x9x9x8xf32>
  %v3 = gplace.mul %u3, %eight : (tensor<6x9x9x8xf32>, tensor<f32>) -> tensor<6x9x9x8xf32>
  %i3 = gplace.cast %v3 : tensor<6x9x9x8xf32> to tensor<6x9x9x8xi32>
  %x3 = gplace.cast %i3 : tensor<6x9x9x8xi32> to tensor<6x9x9x8xf32>
  %u4 = gplace.stateless_random_uniform %s4 : tensor<2xi64> -> tensor<3x3x8x32xf32>
  %v4 = gplace.mul %u4, %eight : (tensor<3x3x8x32xf32>, tensor<f32>) -> tensor<3x3x8x32xf32>
  %i4 = gplace.cast %v4 : tensor<3x3x8x32xf32> to tensor<3x3x8x32xi32>
  %f4 = gplace.cast %i4 : tensor<3x3x8x32xi32> to tensor<3x3x8x32xf32>
  %w3 = gplace.sub %f4, %four : (tensor<3x3x8x32xf32>, tensor<f32>) -> tensor<3x3x8x32xf32>
  %b3 = gplace.slice %w3 begin = [1, 1, 0, 0] size = [1, 1, 1, 32] : tensor<3x3x8x32xf32> -> tensor<1x1x1x32xf32>
  %bv3 = gplace.reshape %b3 : tensor<1x1x1x32xf32> -> tensor<32xf32>
  %c3 = gplace.conv2d %x3, %w3 strides = [1, 2, 2, 1] padding = "SAME" : tensor<6x9x9x8xf32>, tensor<3x3x8x32xf32> -> tensor<6x5x5x32xf32>
  %a3 = gplace.bias_add %c3, %bv3 : tensor<6x5x5x32xf32>, tensor<32xf32>
  %p3 = gplace.avg_pool %a3 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "SAME" : tensor<6x5x5x32xf32> -> tensor<6x3x3x32xf32>

  // Winograd: a constant 3x3x2x16 filter, stride 1, SAME, bias, relu and
  // a 1x1 max_pool (its result is the relu's); the reference has the
  // filter + 0 (computed, so run directly) and is not fused (its pool asks
  // for a device, its convolution does not).
  %u5 = gplace.stateless_random_uniform %s5 : tensor<2xi64> -> tensor<6x8x8x2xf32>
  %v5 = gplace.mul %u5, %eight : (tensor<6x8x8x2xf32>, tensor<f32>) -> tensor<6x8x8x2xf32>
  %i5 = gplace.cast %v5 : tensor<6x8x8x2xf32> to tensor<6x8x8x2xi32>
  %f5 = gplace.cast %i5 : tensor<6x8x8x2xi32> to tensor<6x8x8x2xf32>
  %x5 = gplace.sub %f5, %four : (tensor<6x8x8x2xf32>, tensor<f32>) -> tensor<6x8x8x2xf32>
  %w5 = gplace.constant dense<[[[[0.0, 3.0, 1.0, 3.0, 3.0, 0.0, 0.0, 1.0, 3.0, 1.0, -2.0, -2.0, 3.0, 1.0, 0.0, 2.0], [1.0, 3.0, -2.0, -3.0, 0.0, -1.0, -2.0, -3.0, 1.0, 3.0, 2.0, 2.0, -3.0, 1.0, 0.0, 0.0]], [[2.0, 2.0, 1.0, 2.0, -2.0, 1.0, -3.0, 3.0, 1.0, -3.0, -3.0, -3.0, -2.0, -2.0, 1.0, -3.0], [3.0, 0.0, -1.0, 0.0, 1.0, 3.0, -2.0, 1.0, -2.0, 2.0, -1.0, 0.0, -3.0, 2.0, -3.0, 0.0]], [[2.0, -1.0, 0.0, 1.0, 3.0, -3.0, 2.0, -1.0, -1.0, 3.0, -2.0, 1.0, -1.0, -3.0, -3.0, 1.0], [3.0, -3.0, 0.0, -3.0, 3.0, -1.0, 0.0, -3.0, -3.0, 3.0, 2.0, -3.0, -2.0, -2.0, -3.0, 0.0]]], [[[0.0, 2.0, 0.0, 0.0, -3.0, 1.0, 2.0, -2.0, 3.0, 2.0, -1.0, -1.0, -3.0, -1.0, -1.0, -3.0], [0.0, 3.0, -3.0, -2.0, -2.0, 2.0, -3.0, -3.0, -3.0, 0.0, 3.0, 0.0, -2.0, 2.0, 1.0, -2.0]], [[0.0, 1.0, -2.0, 2.0, 3.0, -2.0, 0.0, 2.0, 0.0, -3.0, 0.0, 0.0, -2.0, -3.0, -1.0, 3.0], [3.0, 1.0, -1.0, -3.0, -2.0, -2.0, 0.0, 3.0, 1.0, 2.0, 1.0, -3.0, -3.0, -2.0, -2.0, 0.0]], [[-1.0, -3.0, 3.0, 1.0, -1.0, 3.0, -1.0, 0.0, -3.0, -3.0, -3.0, -2.0, 1.0, 2.0, -2.0, -3.0], [1.0, -1.0, -1.0, 1.0, 0.0, -2.0, 1.0, 0.0, 3.0, 1.0, -2.0, 3.0, 0.0, -2.0, 2.0, -2.0]]], [[[-1.0, -2.0, 3.0, 1.0, -2.0, 2.0, -2.0, -2.0, 2.0, 2.0, 1.0, -2.0, 2.0, 0.0, 0.0, 1.0], [-3.0, 0.0, -3.0, -3.0, -3.0, -3.0, 1.0, -1.0, -2.0, 2.0, 2.0, 0.0, -1.0, 0.0, 3.0, 1.0]], [[0.0, -1.0, 1.0, -2.0, 2.0, -3.0, -2.0, -2.0, 0.0, 1.0, 2.0, 3.0, 1.0, 1.0, -3.0, -1.0], [-2.0, -2.0, 2.0, -3.0, -3.0, -1.0, 0.0, 0.0, -2.0, -3.0, -3.0, -2.0, -1.0, -1.0, 1.0, 1.0]], [[-2.0, -3.0, -1.0, -2.0, 0.0, -1.0, 2.0, 2.0, 2.0, 1.0, 1.0, -2.0, 1.0, -3.0, -3.0, 0.0], [-1.0, 2.0, -1.0, -3.0, -3.0, 1.0, 2.0, -3.0, 0.0, -3.0, 2.0, -1.0, -1.0, -2.0, -3.0, -3.0]]]]> : tensor<3x3x2x16xf32>
  %w5r = gplace.add %w5, %zero : (tensor<3x3x2x16xf32>, tensor<f32>) -> tensor<3x3x2x16xf32>
  %b5 = gplace.constant dense<0.5> : tensor<16xf32>
  %c5 = gplace.conv2d %x5, %w5 strides = [1, 1, 1, 1] padding = "SAME" : tensor<6x8x8x2xf32>, tensor<3x3x2x16xf32> -> tensor<6x8x8x16xf32>
  %a5 = gplace.bias_add %c5, %b5 : tensor<6x8x8x16xf32>, tensor<16xf32>
  %r5 = gplace.relu %a5 : tensor<6x8x8x16xf32>
  %p5 = gplace.max_pool %r5 ksize = [1, 1, 1, 1] strides = [1, 1, 1, 1] padding = "SAME" : tensor<6x8x8x16xf32> -> tensor<6x8x8x16xf32>
  %c6 = gplace.conv2d %x5, %w5r strides = [1, 1, 1, 1] padding = "SAME" : tensor<6x8x8x2xf32>, tensor<3x3x2x16xf32> -> tensor<6x8x8x16xf32>
  %a6 = gplace.bias_add %c6, %b5 : tensor<6x8x8x16xf32>, tensor<16xf32>
  %r6 = gplace.relu %a6 : tensor<6x8x8x16xf32>
  %p6 = gplace.max_pool %r6 ksize = [1, 1, 1, 1] strides = [1, 1, 1, 1] padding = "SAME" {device = "/device:CPU:0"} : tensor<6x8x8x16xf32> -> tensor<6x8x8x16xf32>
  // max |p5 - p6| - 1e-3, clamped at 0.
  %d5 = gplace.sub %p5, %p6 : (tensor<6x8x8x16xf32>, tensor<6x8x8x16xf32>) -> tensor<6x8x8x16xf32>
  %n5 = gplace.neg %d5 : tensor<6x8x8x16xf32>
  %abs5 = gplace.maximum %d5, %n5 : (tensor<6x8x8x16xf32>, tensor<6x8x8x16xf32>) -> tensor<6x8x8x16xf32>
  %max5 = gplace.reduce_max %abs5 axes = [0, 1, 2, 3] : tensor<6x8x8x16xf32> -> tensor<f32>
  %tol = gplace.constant dense<1.0e-3> : tensor<f32>
  %over5 = gplace.sub %max5, %tol : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %excess5 = gplace.relu %over5 : tensor<f32>
  // The largest result, and -min(1 / result) clamped at 0: inf if the
  // relu gave a -0 (1 / -0 = -inf), else 0.
  %big = gplace.reduce_max %p6 axes = [0, 1, 2, 3] : tensor<6x8x8x16xf32> -> tensor<f32>
  %one = gplace.constant dense<1.0> : tensor<f32>
  %inv5 = gplace.div %one, %p5 : (tensor<f32>, tensor<6x8x8x16xf32>) -> tensor<6x8x8x16xf32>
  %ninv5 = gplace.neg %inv5 : tensor<6x8x8x16xf32>
  %nmin5 = gplace.reduce_max %ninv5 axes = [0, 1, 2, 3] : tensor<6x8x8x16xf32> -> tensor<f32>
  %min5 = gplace.neg %nmin5 : tensor<f32>
  %nmin = gplace.neg %min5 : tensor<f32>
  %negzero = gplace.relu %nmin : tensor<f32>
  // How many zeros (so that the sign check checks something).
  %zeros = gplace.equal %p6, %zero : (tensor<6x8x8x16xf32>, tensor<f32>) -> tensor<6x8x8x16xi1>
  %zf = gplace.cast %zeros : tensor<6x8x8x16xi1> to tensor<6x8x8x16xf32>
  %nz = gplace.reduce_sum %zf axes = [0, 1, 2, 3] : tensor<6x8x8x16xf32> -> tensor<f32>

  // Weighted sums: each result times integer weights of its shape.
  %q1 = gplace.stateless_random_uniform %s6 : tensor<2xi64> -> tensor<6x5x5x16xf32>
  %k1 = gplace.mul %q1, %eight : (tensor<6x5x5x16xf32>, tensor<f32>) -> tensor<6x5x5x16xf32>
  %j1 = gplace.cast %k1 : tensor<6x5x5x16xf32> to tensor<6x5x5x16xi32>
  %m1 = gplace.cast %j1 : tensor<6x5x5x16xi32> to tensor<6x5x5x16xf32>
  %e1 = gplace.mul %p1, %m1 : (tensor<6x5x5x16xf32>, tensor<6x5x5x16xf32>) -> tensor<6x5x5x16xf32>
  %sum1 = gplace.reduce_sum %e1 axes = [0, 1, 2, 3] : tensor<6x5x5x16xf32> -> tensor<f32>
  %q3 = gplace.stateless_random_uniform %s6 : tensor<2xi64> -> tensor<6x3x3x32xf32>
  %k3 = gplace.mul %q3, %eight : (tensor<6x3x3x32xf32>, tensor<f32>) -> tensor<6x3x3x32xf32>
  %j3 = gplace.cast %k3 : tensor<6x3x3x32xf32> to tensor<6x3x3x32xi32>
  %m3 = gplace.cast %j3 : tensor<6x3x3x32xi32> to tensor<6x3x3x32xf32>
  %e3 = gplace.mul %p3, %m3 : (tensor<6x3x3x32xf32>, tensor<6x3x3x32xf32>) -> tensor<6x3x3x32xf32>
  %sum3 = gplace.reduce_sum %e3 axes = [0, 1, 2, 3] : tensor<6x3x3x32xf32> -> tensor<f32>
  return %sum1, %sum3, %excess5, %big, %negzero, %nz : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
// CHECK: result[0]: f32=73910
// CHECK-NEXT: result[1]: f32=-529478.25
// CHECK-NEXT: result[2]: f32=0
// CHECK-NEXT: result[3]: f32=66.5
// CHECK-NEXT: result[4]: f32=0
// CHECK-NEXT: result[5]: f32=2592
