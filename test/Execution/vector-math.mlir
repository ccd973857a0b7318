// The kernels that run glibc's vector math over whole blocks and rows
// (docs/runtime.md, "Vector math"): log, tanh, erf and sigmoid of 11
// floats (not a multiple of the 8 lanes), alone and in one fused group,
// softmax of two rows of 11 and the sparse softmax cross-entropy's loss
// and backprop; on the CPU, on an emulated GPU (fused), and unfused.
// Values: numpy in double, to 5 or more digits (the vector functions are
// within 4 ulp of the correctly rounded ones).
// RUN: gplace-run %s --input=11xf32=-4,-1,-0.25,0,0.25,0.5,1,2,3,4,10 --input=2xi32=6,2 | FileCheck %s
// RUN: gplace-run %s --input=11xf32=-4,-1,-0.25,0,0.25,0.5,1,2,3,4,10 --input=2xi32=6,2 --emulate-gpus=1 | FileCheck %s
// RUN: gplace-run %s --input=11xf32=-4,-1,-0.25,0,0.25,0.5,1,2,3,4,10 --input=2xi32=6,2 --emulate-gpus=1 --gpu-fusion=false | FileCheck %s
// log: NaN below 0, -inf at 0
// CHECK: result[0]: 11xf32=[nan, nan, nan, -inf, -1.38629{{[0-9]*}}, -0.69314{{[0-9]*}}, 0, 0.69314{{[0-9]*}}, 1.09861{{[0-9]*}}, 1.38629{{[0-9]*}}, 2.30258{{[0-9]*}}]
// tanh
// CHECK-NEXT: result[1]: 11xf32=[-0.99932{{[0-9]*}}, -0.76159{{[0-9]*}}, -0.24491{{[0-9]*}}, 0, 0.24491{{[0-9]*}}, 0.46211{{[0-9]*}}, 0.76159{{[0-9]*}}, 0.96402{{[0-9]*}}, 0.99505{{[0-9]*}}, 0.99932{{[0-9]*}}, 1]
// erf
// CHECK-NEXT: result[2]: 11xf32=[-1, -0.84270{{[0-9]*}}, -0.27632{{[0-9]*}}, 0, 0.27632{{[0-9]*}}, 0.52049{{[0-9]*}}, 0.84270{{[0-9]*}}, 0.99532{{[0-9]*}}, 0.99997{{[0-9]*}}, 1, 1]
// sigmoid
// CHECK-NEXT: result[3]: 11xf32=[0.017986{{[0-9]*}}, 0.26894{{[0-9]*}}, 0.43782{{[0-9]*}}, 0.5, 0.56217{{[0-9]*}}, 0.62245{{[0-9]*}}, 0.73105{{[0-9]*}}, 0.88079{{[0-9]*}}, 0.95257{{[0-9]*}}, 0.98201{{[0-9]*}}, 0.99995{{[0-9]*}}]
// sigmoid(tanh(x)) * erf(x) + log(x * x + 1), one fused group on a GPU
// CHECK-NEXT: result[4]: 11xf32=[2.5641{{[0-9]*}}, 0.42491{{[0-9]*}}, -0.060703{{[0-9]*}}, 0, 0.21562{{[0-9]*}}, 0.54247{{[0-9]*}}, 1.2676{{[0-9]*}}, 2.3299{{[0-9]*}}, 3.0326{{[0-9]*}}, 3.5641{{[0-9]*}}, 5.3461{{[0-9]*}}]
// softmax of the rows x and -x/2
// CHECK-NEXT: result[5]: 2x11xf32={{\[\[}}8.2814{{[0-9]*}}e-07, 1.6633{{[0-9]*}}e-05, 3.5213{{[0-9]*}}e-05, 4.5215{{[0-9]*}}e-05, 5.8057{{[0-9]*}}e-05, 7.4547{{[0-9]*}}e-05, 0.00012290{{[0-9]*}}, 0.00033409{{[0-9]*}}, 0.00090817{{[0-9]*}}, 0.0024686{{[0-9]*}}, 0.99593{{[0-9]*}}], [0.52139{{[0-9]*}}, 0.11633{{[0-9]*}}, 0.079957{{[0-9]*}}, 0.070562{{[0-9]*}}, 0.062271{{[0-9]*}}, 0.054954{{[0-9]*}}, 0.042798{{[0-9]*}}, 0.025958{{[0-9]*}}, 0.015744{{[0-9]*}}, 0.0095495{{[0-9]*}}, 0.00047544{{[0-9]*}}]]
// the cross-entropy of the same rows, labels 6 and 2, and its backprop
// (softmax minus the one-hot label)
// CHECK-NEXT: result[6]: 2xf32=[9.0040{{[0-9]*}}, 2.5262{{[0-9]*}}]
// CHECK-NEXT: result[7]: 2x11xf32={{\[\[}}8.2814{{[0-9]*}}e-07, 1.6633{{[0-9]*}}e-05, 3.5213{{[0-9]*}}e-05, 4.5215{{[0-9]*}}e-05, 5.8057{{[0-9]*}}e-05, 7.4547{{[0-9]*}}e-05, -0.99987{{[0-9]*}}, 0.00033409{{[0-9]*}}, 0.00090817{{[0-9]*}}, 0.0024686{{[0-9]*}}, 0.99593{{[0-9]*}}], [0.52139{{[0-9]*}}, 0.11633{{[0-9]*}}, -0.92004{{[0-9]*}}, 0.070562{{[0-9]*}}, 0.062271{{[0-9]*}}, 0.054954{{[0-9]*}}, 0.042798{{[0-9]*}}, 0.025958{{[0-9]*}}, 0.015744{{[0-9]*}}, 0.0095495{{[0-9]*}}, 0.00047544{{[0-9]*}}]]
func.func @main(%x: tensor<11xf32>, %labels: tensor<2xi32>)
    -> (tensor<11xf32>, tensor<11xf32>, tensor<11xf32>, tensor<11xf32>,
        tensor<11xf32>, tensor<2x11xf32>, tensor<2xf32>, tensor<2x11xf32>) {
  %log = gplace.log %x : tensor<11xf32>
  %tanh = gplace.tanh %x : tensor<11xf32>
  %erf = gplace.erf %x : tensor<11xf32>
  %sigmoid = gplace.sigmoid %x : tensor<11xf32>
  %t = gplace.tanh %x : tensor<11xf32>
  %s = gplace.sigmoid %t : tensor<11xf32>
  %e = gplace.erf %x : tensor<11xf32>
  %se = gplace.mul %s, %e : (tensor<11xf32>, tensor<11xf32>) -> tensor<11xf32>
  %xx = gplace.mul %x, %x : (tensor<11xf32>, tensor<11xf32>) -> tensor<11xf32>
  %one = gplace.constant dense<1.0> : tensor<11xf32>
  %xx1 = gplace.add %xx, %one : (tensor<11xf32>, tensor<11xf32>) -> tensor<11xf32>
  %l = gplace.log %xx1 : tensor<11xf32>
  %fused = gplace.add %se, %l : (tensor<11xf32>, tensor<11xf32>) -> tensor<11xf32>
  %half = gplace.constant dense<-0.5> : tensor<11xf32>
  %y = gplace.mul %x, %half : (tensor<11xf32>, tensor<11xf32>) -> tensor<11xf32>
  %x1 = gplace.reshape %x : tensor<11xf32> -> tensor<1x11xf32>
  %y1 = gplace.reshape %y : tensor<11xf32> -> tensor<1x11xf32>
  %rows = gplace.concat %x1, %y1 axis = 0 : tensor<1x11xf32>, tensor<1x11xf32> -> tensor<2x11xf32>
  %softmax = gplace.softmax %rows : tensor<2x11xf32>
  %loss, %backprop = gplace.sparse_softmax_cross_entropy_with_logits %rows, %labels : tensor<2x11xf32>, tensor<2xi32>
  return %log, %tanh, %erf, %sigmoid, %fused, %softmax, %loss, %backprop
      : tensor<11xf32>, tensor<11xf32>, tensor<11xf32>, tensor<11xf32>,
        tensor<11xf32>, tensor<2x11xf32>, tensor<2xf32>, tensor<2x11xf32>
}
