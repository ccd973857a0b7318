// REQUIRES: dnnl
// fused_conv2d_pool against the same convolution and pool run one by one,
// on odd shapes: strides other than the window, SAME pools whose windows
// reach into the pads at either edge, uneven strides (2x1 convolution, 2x3
// pool), 1, 3, 4, 5 and 8 input channels, 8, 12 (a padded channel block),
// 16 and 24 results, max and average. Each case returns how many of its
// fused results equal the reference's (all of them) and the reference's
// sum weighted by integers. The inputs and filters are small integers, so
// the convolutions are exact and each average is the same exact sum over
// the same count: every RUN prints the same numbers. The reference's pool
// asks for a device, which keeps the remapper from fusing it. The RUNs:
// gplace's pooling loop (the default: fused_conv2d_pool's pool over
// oneDNN's blocked convolution result, and the NHWC max_pool and avg_pool),
// then oneDNN's pooling primitive for both (GPLACE_POOL_KERNEL=dnnl; the
// same weighted sums: the two give the same values); fused in tiles of
// one image (GPLACE_POOL_TILE_KIB=1); not fused, with each kernel; and
// with two emulated GPUs.
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: env GPLACE_POOL_KERNEL=dnnl gplace-run %s --fold-constants=false | FileCheck %s
// RUN: env GPLACE_POOL_TILE_KIB=1 gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --remapping=false | FileCheck %s
// RUN: env GPLACE_POOL_KERNEL=dnnl gplace-run %s --fold-constants=false --remapping=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=2 | FileCheck %s
// RUN: gplace-opt %s --gplace-remap | FileCheck %s --check-prefix=IR
// IR-COUNT-5: gplace.fused_conv2d_pool
// IR-NOT: gplace.fused_conv2d_pool
func.func @main() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %eight = gplace.constant dense<8.0> : tensor<f32>
  %four = gplace.constant dense<4.0> : tensor<f32>

  // a: 2x13x11x3, 3x3x3x8 filter, strides [2, 1], SAME, relu; max_pool 3x3 strides [2, 2] SAME -> 2x4x6x8.
  %ax_s = gplace.constant dense<[1, 101]> : tensor<2xi64>
  %ax_u = gplace.stateless_random_uniform %ax_s : tensor<2xi64> -> tensor<2x13x11x3xf32>
  %ax_v = gplace.mul %ax_u, %eight : (tensor<2x13x11x3xf32>, tensor<f32>) -> tensor<2x13x11x3xf32>
  %ax_i = gplace.cast %ax_v : tensor<2x13x11x3xf32> to tensor<2x13x11x3xi32>
  %ax_f = gplace.cast %ax_i : tensor<2x13x11x3xi32> to tensor<2x13x11x3xf32>
  %ax = gplace.sub %ax_f, %four : (tensor<2x13x11x3xf32>, tensor<f32>) -> tensor<2x13x11x3xf32>
  %aw_s = gplace.constant dense<[2, 102]> : tensor<2xi64>
  %aw_u = gplace.stateless_random_uniform %aw_s : tensor<2xi64> -> tensor<3x3x3x8xf32>
  %aw_v = gplace.mul %aw_u, %eight : (tensor<3x3x3x8xf32>, tensor<f32>) -> tensor<3x3x3x8xf32>
  %aw_i = gplace.cast %aw_v : tensor<3x3x3x8xf32> to tensor<3x3x3x8xi32>
  %aw_f = gplace.cast %aw_i : tensor<3x3x3x8xi32> to tensor<3x3x3x8xf32>
  %aw = gplace.sub %aw_f, %four : (tensor<3x3x3x8xf32>, tensor<f32>) -> tensor<3x3x3x8xf32>
  %ab_s = gplace.constant dense<[3, 103]> : tensor<2xi64>
  %ab_u = gplace.stateless_random_uniform %ab_s : tensor<2xi64> -> tensor<8xf32>
  %ab_v = gplace.mul %ab_u, %eight : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %ab_i = gplace.cast %ab_v : tensor<8xf32> to tensor<8xi32>
  %ab_f = gplace.cast %ab_i : tensor<8xi32> to tensor<8xf32>
  %ab = gplace.sub %ab_f, %four : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %afc = gplace.conv2d %ax, %aw strides = [1, 2, 1, 1] padding = "SAME" : tensor<2x13x11x3xf32>, tensor<3x3x3x8xf32> -> tensor<2x7x11x8xf32>
  %afa = gplace.bias_add %afc, %ab : tensor<2x7x11x8xf32>, tensor<8xf32>
  %afr = gplace.relu %afa : tensor<2x7x11x8xf32>
  %afp = gplace.max_pool %afr ksize = [1, 3, 3, 1] strides = [1, 2, 2, 1] padding = "SAME" : tensor<2x7x11x8xf32> -> tensor<2x4x6x8xf32>
  %arc = gplace.conv2d %ax, %aw strides = [1, 2, 1, 1] padding = "SAME" : tensor<2x13x11x3xf32>, tensor<3x3x3x8xf32> -> tensor<2x7x11x8xf32>
  %ara = gplace.bias_add %arc, %ab : tensor<2x7x11x8xf32>, tensor<8xf32>
  %arr = gplace.relu %ara : tensor<2x7x11x8xf32>
  %arp = gplace.max_pool %arr ksize = [1, 3, 3, 1] strides = [1, 2, 2, 1] padding = "SAME" {device = "/device:CPU:0"} : tensor<2x7x11x8xf32> -> tensor<2x4x6x8xf32>
  %aeq = gplace.equal %afp, %arp : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xi1>
  %aeqf = gplace.cast %aeq : tensor<2x4x6x8xi1> to tensor<2x4x6x8xf32>
  %an = gplace.reduce_sum %aeqf axes = [0, 1, 2, 3] : tensor<2x4x6x8xf32> -> tensor<f32>
  %aws = gplace.constant dense<[97, 7]> : tensor<2xi64>
  %awu = gplace.stateless_random_uniform %aws : tensor<2xi64> -> tensor<2x4x6x8xf32>
  %awv = gplace.mul %awu, %eight : (tensor<2x4x6x8xf32>, tensor<f32>) -> tensor<2x4x6x8xf32>
  %awi = gplace.cast %awv : tensor<2x4x6x8xf32> to tensor<2x4x6x8xi32>
  %awf = gplace.cast %awi : tensor<2x4x6x8xi32> to tensor<2x4x6x8xf32>
  %awe = gplace.mul %arp, %awf : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  %asum = gplace.reduce_sum %awe axes = [0, 1, 2, 3] : tensor<2x4x6x8xf32> -> tensor<f32>

  // b: 3x10x9x5, 2x3x5x24 filter, strides [1, 1], VALID; avg_pool 3x2 strides [2, 3] SAME -> 3x5x3x24.
  %bx_s = gplace.constant dense<[4, 104]> : tensor<2xi64>
  %bx_u = gplace.stateless_random_uniform %bx_s : tensor<2xi64> -> tensor<3x10x9x5xf32>
  %bx_v = gplace.mul %bx_u, %eight : (tensor<3x10x9x5xf32>, tensor<f32>) -> tensor<3x10x9x5xf32>
  %bx_i = gplace.cast %bx_v : tensor<3x10x9x5xf32> to tensor<3x10x9x5xi32>
  %bx_f = gplace.cast %bx_i : tensor<3x10x9x5xi32> to tensor<3x10x9x5xf32>
  %bx = gplace.sub %bx_f, %four : (tensor<3x10x9x5xf32>, tensor<f32>) -> tensor<3x10x9x5xf32>
  %bw_s = gplace.constant dense<[5, 105]> : tensor<2xi64>
  %bw_u = gplace.stateless_random_uniform %bw_s : tensor<2xi64> -> tensor<2x3x5x24xf32>
  %bw_v = gplace.mul %bw_u, %eight : (tensor<2x3x5x24xf32>, tensor<f32>) -> tensor<2x3x5x24xf32>
  %bw_i = gplace.cast %bw_v : tensor<2x3x5x24xf32> to tensor<2x3x5x24xi32>
  %bw_f = gplace.cast %bw_i : tensor<2x3x5x24xi32> to tensor<2x3x5x24xf32>
  %bw = gplace.sub %bw_f, %four : (tensor<2x3x5x24xf32>, tensor<f32>) -> tensor<2x3x5x24xf32>
  %bb_s = gplace.constant dense<[6, 106]> : tensor<2xi64>
  %bb_u = gplace.stateless_random_uniform %bb_s : tensor<2xi64> -> tensor<24xf32>
  %bb_v = gplace.mul %bb_u, %eight : (tensor<24xf32>, tensor<f32>) -> tensor<24xf32>
  %bb_i = gplace.cast %bb_v : tensor<24xf32> to tensor<24xi32>
  %bb_f = gplace.cast %bb_i : tensor<24xi32> to tensor<24xf32>
  %bb = gplace.sub %bb_f, %four : (tensor<24xf32>, tensor<f32>) -> tensor<24xf32>
  %bfc = gplace.conv2d %bx, %bw strides = [1, 1, 1, 1] padding = "VALID" : tensor<3x10x9x5xf32>, tensor<2x3x5x24xf32> -> tensor<3x9x7x24xf32>
  %bfa = gplace.bias_add %bfc, %bb : tensor<3x9x7x24xf32>, tensor<24xf32>
  %bfp = gplace.avg_pool %bfa ksize = [1, 3, 2, 1] strides = [1, 2, 3, 1] padding = "SAME" : tensor<3x9x7x24xf32> -> tensor<3x5x3x24xf32>
  %brc = gplace.conv2d %bx, %bw strides = [1, 1, 1, 1] padding = "VALID" : tensor<3x10x9x5xf32>, tensor<2x3x5x24xf32> -> tensor<3x9x7x24xf32>
  %bra = gplace.bias_add %brc, %bb : tensor<3x9x7x24xf32>, tensor<24xf32>
  %brp = gplace.avg_pool %bra ksize = [1, 3, 2, 1] strides = [1, 2, 3, 1] padding = "SAME" {device = "/device:CPU:0"} : tensor<3x9x7x24xf32> -> tensor<3x5x3x24xf32>
  %beq = gplace.equal %bfp, %brp : (tensor<3x5x3x24xf32>, tensor<3x5x3x24xf32>) -> tensor<3x5x3x24xi1>
  %beqf = gplace.cast %beq : tensor<3x5x3x24xi1> to tensor<3x5x3x24xf32>
  %bn = gplace.reduce_sum %beqf axes = [0, 1, 2, 3] : tensor<3x5x3x24xf32> -> tensor<f32>
  %bws = gplace.constant dense<[98, 7]> : tensor<2xi64>
  %bwu = gplace.stateless_random_uniform %bws : tensor<2xi64> -> tensor<3x5x3x24xf32>
  %bwv = gplace.mul %bwu, %eight : (tensor<3x5x3x24xf32>, tensor<f32>) -> tensor<3x5x3x24xf32>
  %bwi = gplace.cast %bwv : tensor<3x5x3x24xf32> to tensor<3x5x3x24xi32>
  %bwf = gplace.cast %bwi : tensor<3x5x3x24xi32> to tensor<3x5x3x24xf32>
  %bwe = gplace.mul %brp, %bwf : (tensor<3x5x3x24xf32>, tensor<3x5x3x24xf32>) -> tensor<3x5x3x24xf32>
  %bsum = gplace.reduce_sum %bwe axes = [0, 1, 2, 3] : tensor<3x5x3x24xf32> -> tensor<f32>

  // c: 2x9x9x1, 3x3x1x16 filter, strides [1, 1], SAME, relu; max_pool 2x2 strides [2, 2] SAME -> 2x5x5x16.
  %cx_s = gplace.constant dense<[7, 107]> : tensor<2xi64>
  %cx_u = gplace.stateless_random_uniform %cx_s : tensor<2xi64> -> tensor<2x9x9x1xf32>
  %cx_v = gplace.mul %cx_u, %eight : (tensor<2x9x9x1xf32>, tensor<f32>) -> tensor<2x9x9x1xf32>
  %cx_i = gplace.cast %cx_v : tensor<2x9x9x1xf32> to tensor<2x9x9x1xi32>
  %cx_f = gplace.cast %cx_i : tensor<2x9x9x1xi32> to tensor<2x9x9x1xf32>
  %cx = gplace.sub %cx_f, %four : (tensor<2x9x9x1xf32>, tensor<f32>) -> tensor<2x9x9x1xf32>
  %cw_s = gplace.constant dense<[8, 108]> : tensor<2xi64>
  %cw_u = gplace.stateless_random_uniform %cw_s : tensor<2xi64> -> tensor<3x3x1x16xf32>
  %cw_v = gplace.mul %cw_u, %eight : (tensor<3x3x1x16xf32>, tensor<f32>) -> tensor<3x3x1x16xf32>
  %cw_i = gplace.cast %cw_v : tensor<3x3x1x16xf32> to tensor<3x3x1x16xi32>
  %cw_f = gplace.cast %cw_i : tensor<3x3x1x16xi32> to tensor<3x3x1x16xf32>
  %cw = gplace.sub %cw_f, %four : (tensor<3x3x1x16xf32>, tensor<f32>) -> tensor<3x3x1x16xf32>
  %cb_s = gplace.constant dense<[9, 109]> : tensor<2xi64>
  %cb_u = gplace.stateless_random_uniform %cb_s : tensor<2xi64> -> tensor<16xf32>
  %cb_v = gplace.mul %cb_u, %eight : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %cb_i = gplace.cast %cb_v : tensor<16xf32> to tensor<16xi32>
  %cb_f = gplace.cast %cb_i : tensor<16xi32> to tensor<16xf32>
  %cb = gplace.sub %cb_f, %four : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %cfc = gplace.conv2d %cx, %cw strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x9x9x1xf32>, tensor<3x3x1x16xf32> -> tensor<2x9x9x16xf32>
  %cfa = gplace.bias_add %cfc, %cb : tensor<2x9x9x16xf32>, tensor<16xf32>
  %cfr = gplace.relu %cfa : tensor<2x9x9x16xf32>
  %cfp = gplace.max_pool %cfr ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "SAME" : tensor<2x9x9x16xf32> -> tensor<2x5x5x16xf32>
  %crc = gplace.conv2d %cx, %cw strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x9x9x1xf32>, tensor<3x3x1x16xf32> -> tensor<2x9x9x16xf32>
  %cra = gplace.bias_add %crc, %cb : tensor<2x9x9x16xf32>, tensor<16xf32>
  %crr = gplace.relu %cra : tensor<2x9x9x16xf32>
  %crp = gplace.max_pool %crr ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "SAME" {device = "/device:CPU:0"} : tensor<2x9x9x16xf32> -> tensor<2x5x5x16xf32>
  %ceq = gplace.equal %cfp, %crp : (tensor<2x5x5x16xf32>, tensor<2x5x5x16xf32>) -> tensor<2x5x5x16xi1>
  %ceqf = gplace.cast %ceq : tensor<2x5x5x16xi1> to tensor<2x5x5x16xf32>
  %cn = gplace.reduce_sum %ceqf axes = [0, 1, 2, 3] : tensor<2x5x5x16xf32> -> tensor<f32>
  %cws = gplace.constant dense<[99, 7]> : tensor<2xi64>
  %cwu = gplace.stateless_random_uniform %cws : tensor<2xi64> -> tensor<2x5x5x16xf32>
  %cwv = gplace.mul %cwu, %eight : (tensor<2x5x5x16xf32>, tensor<f32>) -> tensor<2x5x5x16xf32>
  %cwi = gplace.cast %cwv : tensor<2x5x5x16xf32> to tensor<2x5x5x16xi32>
  %cwf = gplace.cast %cwi : tensor<2x5x5x16xi32> to tensor<2x5x5x16xf32>
  %cwe = gplace.mul %crp, %cwf : (tensor<2x5x5x16xf32>, tensor<2x5x5x16xf32>) -> tensor<2x5x5x16xf32>
  %csum = gplace.reduce_sum %cwe axes = [0, 1, 2, 3] : tensor<2x5x5x16xf32> -> tensor<f32>

  // d: 2x7x7x4, 3x3x4x12 filter, strides [1, 1], SAME; avg_pool 3x3 strides [1, 1] SAME -> 2x7x7x12.
  %dx_s = gplace.constant dense<[10, 110]> : tensor<2xi64>
  %dx_u = gplace.stateless_random_uniform %dx_s : tensor<2xi64> -> tensor<2x7x7x4xf32>
  %dx_v = gplace.mul %dx_u, %eight : (tensor<2x7x7x4xf32>, tensor<f32>) -> tensor<2x7x7x4xf32>
  %dx_i = gplace.cast %dx_v : tensor<2x7x7x4xf32> to tensor<2x7x7x4xi32>
  %dx_f = gplace.cast %dx_i : tensor<2x7x7x4xi32> to tensor<2x7x7x4xf32>
  %dx = gplace.sub %dx_f, %four : (tensor<2x7x7x4xf32>, tensor<f32>) -> tensor<2x7x7x4xf32>
  %dw_s = gplace.constant dense<[11, 111]> : tensor<2xi64>
  %dw_u = gplace.stateless_random_uniform %dw_s : tensor<2xi64> -> tensor<3x3x4x12xf32>
  %dw_v = gplace.mul %dw_u, %eight : (tensor<3x3x4x12xf32>, tensor<f32>) -> tensor<3x3x4x12xf32>
  %dw_i = gplace.cast %dw_v : tensor<3x3x4x12xf32> to tensor<3x3x4x12xi32>
  %dw_f = gplace.cast %dw_i : tensor<3x3x4x12xi32> to tensor<3x3x4x12xf32>
  %dw = gplace.sub %dw_f, %four : (tensor<3x3x4x12xf32>, tensor<f32>) -> tensor<3x3x4x12xf32>
  %db_s = gplace.constant dense<[12, 112]> : tensor<2xi64>
  %db_u = gplace.stateless_random_uniform %db_s : tensor<2xi64> -> tensor<12xf32>
  %db_v = gplace.mul %db_u, %eight : (tensor<12xf32>, tensor<f32>) -> tensor<12xf32>
  %db_i = gplace.cast %db_v : tensor<12xf32> to tensor<12xi32>
  %db_f = gplace.cast %db_i : tensor<12xi32> to tensor<12xf32>
  %db = gplace.sub %db_f, %four : (tensor<12xf32>, tensor<f32>) -> tensor<12xf32>
  %dfc = gplace.conv2d %dx, %dw strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x7x7x4xf32>, tensor<3x3x4x12xf32> -> tensor<2x7x7x12xf32>
  %dfa = gplace.bias_add %dfc, %db : tensor<2x7x7x12xf32>, tensor<12xf32>
  %dfp = gplace.avg_pool %dfa ksize = [1, 3, 3, 1] strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x7x7x12xf32> -> tensor<2x7x7x12xf32>
  %drc = gplace.conv2d %dx, %dw strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x7x7x4xf32>, tensor<3x3x4x12xf32> -> tensor<2x7x7x12xf32>
  %dra = gplace.bias_add %drc, %db : tensor<2x7x7x12xf32>, tensor<12xf32>
  %drp = gplace.avg_pool %dra ksize = [1, 3, 3, 1] strides = [1, 1, 1, 1] padding = "SAME" {device = "/device:CPU:0"} : tensor<2x7x7x12xf32> -> tensor<2x7x7x12xf32>
  %deq = gplace.equal %dfp, %drp : (tensor<2x7x7x12xf32>, tensor<2x7x7x12xf32>) -> tensor<2x7x7x12xi1>
  %deqf = gplace.cast %deq : tensor<2x7x7x12xi1> to tensor<2x7x7x12xf32>
  %dn = gplace.reduce_sum %deqf axes = [0, 1, 2, 3] : tensor<2x7x7x12xf32> -> tensor<f32>
  %dws = gplace.constant dense<[100, 7]> : tensor<2xi64>
  %dwu = gplace.stateless_random_uniform %dws : tensor<2xi64> -> tensor<2x7x7x12xf32>
  %dwv = gplace.mul %dwu, %eight : (tensor<2x7x7x12xf32>, tensor<f32>) -> tensor<2x7x7x12xf32>
  %dwi = gplace.cast %dwv : tensor<2x7x7x12xf32> to tensor<2x7x7x12xi32>
  %dwf = gplace.cast %dwi : tensor<2x7x7x12xi32> to tensor<2x7x7x12xf32>
  %dwe = gplace.mul %drp, %dwf : (tensor<2x7x7x12xf32>, tensor<2x7x7x12xf32>) -> tensor<2x7x7x12xf32>
  %dsum = gplace.reduce_sum %dwe axes = [0, 1, 2, 3] : tensor<2x7x7x12xf32> -> tensor<f32>

  // e: 2x11x13x8, 3x3x8x16 filter, strides [1, 1], VALID, relu; avg_pool 2x2 strides [2, 2] VALID -> 2x4x5x16.
  %ex_s = gplace.constant dense<[13, 113]> : tensor<2xi64>
  %ex_u = gplace.stateless_random_uniform %ex_s : tensor<2xi64> -> tensor<2x11x13x8xf32>
  %ex_v = gplace.mul %ex_u, %eight : (tensor<2x11x13x8xf32>, tensor<f32>) -> tensor<2x11x13x8xf32>
  %ex_i = gplace.cast %ex_v : tensor<2x11x13x8xf32> to tensor<2x11x13x8xi32>
  %ex_f = gplace.cast %ex_i : tensor<2x11x13x8xi32> to tensor<2x11x13x8xf32>
  %ex = gplace.sub %ex_f, %four : (tensor<2x11x13x8xf32>, tensor<f32>) -> tensor<2x11x13x8xf32>
  %ew_s = gplace.constant dense<[14, 114]> : tensor<2xi64>
  %ew_u = gplace.stateless_random_uniform %ew_s : tensor<2xi64> -> tensor<3x3x8x16xf32>
  %ew_v = gplace.mul %ew_u, %eight : (tensor<3x3x8x16xf32>, tensor<f32>) -> tensor<3x3x8x16xf32>
  %ew_i = gplace.cast %ew_v : tensor<3x3x8x16xf32> to tensor<3x3x8x16xi32>
  %ew_f = gplace.cast %ew_i : tensor<3x3x8x16xi32> to tensor<3x3x8x16xf32>
  %ew = gplace.sub %ew_f, %four : (tensor<3x3x8x16xf32>, tensor<f32>) -> tensor<3x3x8x16xf32>
  %eb_s = gplace.constant dense<[15, 115]> : tensor<2xi64>
  %eb_u = gplace.stateless_random_uniform %eb_s : tensor<2xi64> -> tensor<16xf32>
  %eb_v = gplace.mul %eb_u, %eight : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %eb_i = gplace.cast %eb_v : tensor<16xf32> to tensor<16xi32>
  %eb_f = gplace.cast %eb_i : tensor<16xi32> to tensor<16xf32>
  %eb = gplace.sub %eb_f, %four : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %efc = gplace.conv2d %ex, %ew strides = [1, 1, 1, 1] padding = "VALID" : tensor<2x11x13x8xf32>, tensor<3x3x8x16xf32> -> tensor<2x9x11x16xf32>
  %efa = gplace.bias_add %efc, %eb : tensor<2x9x11x16xf32>, tensor<16xf32>
  %efr = gplace.relu %efa : tensor<2x9x11x16xf32>
  %efp = gplace.avg_pool %efr ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<2x9x11x16xf32> -> tensor<2x4x5x16xf32>
  %erc = gplace.conv2d %ex, %ew strides = [1, 1, 1, 1] padding = "VALID" : tensor<2x11x13x8xf32>, tensor<3x3x8x16xf32> -> tensor<2x9x11x16xf32>
  %era = gplace.bias_add %erc, %eb : tensor<2x9x11x16xf32>, tensor<16xf32>
  %err = gplace.relu %era : tensor<2x9x11x16xf32>
  %erp = gplace.avg_pool %err ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" {device = "/device:CPU:0"} : tensor<2x9x11x16xf32> -> tensor<2x4x5x16xf32>
  %eeq = gplace.equal %efp, %erp : (tensor<2x4x5x16xf32>, tensor<2x4x5x16xf32>) -> tensor<2x4x5x16xi1>
  %eeqf = gplace.cast %eeq : tensor<2x4x5x16xi1> to tensor<2x4x5x16xf32>
  %en = gplace.reduce_sum %eeqf axes = [0, 1, 2, 3] : tensor<2x4x5x16xf32> -> tensor<f32>
  %ews = gplace.constant dense<[101, 7]> : tensor<2xi64>
  %ewu = gplace.stateless_random_uniform %ews : tensor<2xi64> -> tensor<2x4x5x16xf32>
  %ewv = gplace.mul %ewu, %eight : (tensor<2x4x5x16xf32>, tensor<f32>) -> tensor<2x4x5x16xf32>
  %ewi = gplace.cast %ewv : tensor<2x4x5x16xf32> to tensor<2x4x5x16xi32>
  %ewf = gplace.cast %ewi : tensor<2x4x5x16xi32> to tensor<2x4x5x16xf32>
  %ewe = gplace.mul %erp, %ewf : (tensor<2x4x5x16xf32>, tensor<2x4x5x16xf32>) -> tensor<2x4x5x16xf32>
  %esum = gplace.reduce_sum %ewe axes = [0, 1, 2, 3] : tensor<2x4x5x16xf32> -> tensor<f32>
  return %an, %asum, %bn, %bsum, %cn, %csum, %dn, %dsum, %en, %esum : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
// CHECK: result[0]: f32=384
// CHECK-NEXT: result[1]: f32=47896
// CHECK-NEXT: result[2]: f32=1080
// CHECK-NEXT: result[3]: f32=23100
// CHECK-NEXT: result[4]: f32=800
// CHECK-NEXT: result[5]: f32=41951
// CHECK-NEXT: result[6]: f32=1176
// CHECK-NEXT: result[7]: f32=50842.527
// CHECK-NEXT: result[8]: f32=640
// CHECK-NEXT: result[9]: f32=65784.25
