//===- ShapeInferenceTest.cpp - graph ops built without result types ------===//
//
// Each graph op whose result type follows from its operands and attributes
// implements InferTypeOpInterface, and its ODS builders without a result
// type use that rule: here each is built so, its inferred type compared
// with TensorFlow's shape function's, and the op verified (the verifier
// applies the same rule). The rule's errors are diagnostics at the
// builder's location. Every other op is listed below with why its result
// type is not inferred, so that an op added without inference fails here.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace gplace::graph;

namespace {

class ShapeInferenceTest : public ::testing::Test {
protected:
  ShapeInferenceTest() : b(&context) {
    context.loadDialect<GraphDialect, func::FuncDialect>();
    module = ModuleOp::create(b.getUnknownLoc());
    auto func = func::FuncOp::create(b.getUnknownLoc(), "f",
                                     b.getFunctionType({}, {}));
    module->push_back(func);
    b.setInsertionPointToEnd(func.addEntryBlock());
  }

  /// A value of type `type` (a constant of zeros).
  Value value(RankedTensorType type) {
    return b.create<ConstantOp>(b.getUnknownLoc(), TypeRange{type},
                                ValueRange{},
                                ArrayRef<NamedAttribute>{b.getNamedAttr(
                                    "value", b.getZeroAttr(type))})
        ->getResult(0);
  }
  Value value(ArrayRef<int64_t> shape, Type element) {
    return value(RankedTensorType::get(shape, element));
  }
  Type f32() { return b.getF32Type(); }
  Type i64() { return b.getI64Type(); }
  Type i1() { return b.getI1Type(); }
  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }

  /// `op`'s result type, after checking that it verifies.
  Type inferred(Operation *op) {
    EXPECT_TRUE(succeeded(mlir::verify(op))) << "op does not verify";
    return op->getResult(0).getType();
  }

  MLIRContext context;
  OpBuilder b;
  OwningOpRef<ModuleOp> module;
  Location loc = UnknownLoc::get(&context);
};

TEST_F(ShapeInferenceTest, BroadcastingOps) {
  Value x = value({2, 3}, f32()), row = value({3}, f32());
  EXPECT_EQ(inferred(b.create<AddOp>(loc, x, row, nullptr, nullptr, nullptr,
                                     ValueRange{})),
            tensor({2, 3}, f32()));
  Value column = value({4, 1}, f32()), line = value({1, 5}, f32());
  EXPECT_EQ(inferred(b.create<MulOp>(loc, column, line, nullptr, nullptr,
                                     nullptr, ValueRange{})),
            tensor({4, 5}, f32()));
  EXPECT_EQ(inferred(b.create<MaximumOp>(loc, value({}, f32()), x, nullptr,
                                         nullptr, nullptr, ValueRange{})),
            tensor({2, 3}, f32()));
  // Comparisons and logical ops: i1 of the broadcast shape.
  Value ints = value({2, 3}, i64()), intRow = value({3}, i64());
  EXPECT_EQ(inferred(b.create<EqualOp>(loc, ints, intRow, nullptr, nullptr,
                                       nullptr, ValueRange{})),
            tensor({2, 3}, i1()));
  EXPECT_EQ(inferred(b.create<GreaterOp>(loc, column, line, nullptr, nullptr,
                                         nullptr, ValueRange{})),
            tensor({4, 5}, i1()));
  Value flags = value({2, 1}, i1());
  EXPECT_EQ(inferred(b.create<LogicalAndOp>(loc, flags, value({3}, i1()),
                                            nullptr, nullptr, nullptr,
                                            ValueRange{})),
            tensor({2, 3}, i1()));
  // SelectV2: the three shapes broadcast, the branches' element type.
  EXPECT_EQ(inferred(b.create<SelectOp>(loc, flags, x, row, nullptr, nullptr,
                                        nullptr, ValueRange{})),
            tensor({2, 3}, f32()));
  // Unary ops: the operand's type.
  EXPECT_EQ(inferred(b.create<NegOp>(loc, x, nullptr, nullptr, nullptr,
                                     ValueRange{})),
            tensor({2, 3}, f32()));
}

TEST_F(ShapeInferenceTest, ContractionsReductionsAndDataMovement) {
  Value a = value({2, 3}, f32()), w = value({4, 3}, f32());
  EXPECT_EQ(inferred(b.create<MatmulOp>(loc, a, w, /*transpose_a=*/false,
                                        /*transpose_b=*/true, nullptr, nullptr,
                                        nullptr, ValueRange{})),
            tensor({2, 4}, f32()));
  Value x = value({2, 3, 4}, f32());
  EXPECT_EQ(inferred(b.create<ReduceSumOp>(
                loc, x, ArrayRef<int64_t>{0, -1}, /*keep_dims=*/true, nullptr,
                nullptr, nullptr, ValueRange{})),
            tensor({1, 3, 1}, f32()));
  EXPECT_EQ(inferred(b.create<ReduceMeanOp>(loc, x, ArrayRef<int64_t>{0, -1},
                                            /*keep_dims=*/false, nullptr,
                                            nullptr, nullptr, ValueRange{})),
            tensor({3}, f32()));
  EXPECT_EQ(inferred(b.create<TransposeOp>(loc, x, ArrayRef<int64_t>{2, 0, 1},
                                           nullptr, nullptr, nullptr,
                                           ValueRange{})),
            tensor({4, 2, 3}, f32()));
  Value m = value({4, 5}, f32());
  EXPECT_EQ(inferred(b.create<SliceOp>(loc, m, ArrayRef<int64_t>{1, 2},
                                       ArrayRef<int64_t>{2, -1}, nullptr,
                                       nullptr, nullptr, ValueRange{})),
            tensor({2, 3}, f32()));
  Value left = value({2, 3}, f32()), right = value({2, 5}, f32());
  EXPECT_EQ(inferred(b.create<ConcatOp>(loc, ValueRange{left, right},
                                        b.getI64IntegerAttr(-1), nullptr,
                                        nullptr, nullptr, ValueRange{})),
            tensor({2, 8}, f32()));
  EXPECT_EQ(inferred(b.create<PadOp>(loc, left, ArrayRef<int64_t>{1, 0, 2, 2},
                                     nullptr, nullptr, nullptr, ValueRange{})),
            tensor({3, 7}, f32()));
  Value table = value({5, 3}, f32()), ids = value({2, 4}, i64());
  EXPECT_EQ(inferred(b.create<GatherOp>(loc, table, ids, b.getI64IntegerAttr(0),
                                        nullptr, nullptr, nullptr,
                                        ValueRange{})),
            tensor({2, 4, 3}, f32()));
  EXPECT_EQ(inferred(b.create<GatherOp>(loc, table, ids,
                                        b.getI64IntegerAttr(-1), nullptr,
                                        nullptr, nullptr, ValueRange{})),
            tensor({5, 2, 4}, f32()));
}

// The window ops: TensorFlow's Conv2D, DepthwiseConv2dNative and pool shape
// functions (GetWindowedOutputSizeVerbose), NHWC and NCHW, SAME, VALID and
// explicit padding, strides and dilations.
TEST_F(ShapeInferenceTest, WindowOps) {
  Value nhwc = value({2, 9, 8, 3}, f32()), filter = value({3, 3, 3, 16}, f32());
  EXPECT_EQ(inferred(b.create<Conv2DOp>(
                loc, nhwc, filter, ArrayRef<int64_t>{1, 2, 2, 1}, "SAME",
                nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                ValueRange{})),
            tensor({2, 5, 4, 16}, f32()));
  EXPECT_EQ(inferred(b.create<Conv2DOp>(
                loc, nhwc, filter, ArrayRef<int64_t>{1, 1, 1, 1}, "VALID",
                nullptr, nullptr, b.getDenseI64ArrayAttr({1, 2, 1, 1}),
                nullptr, nullptr, nullptr, ValueRange{})),
            tensor({2, 5, 6, 16}, f32()));
  Value nchw = value({2, 3, 9, 8}, f32());
  EXPECT_EQ(inferred(b.create<Conv2DOp>(
                loc, nchw, filter, ArrayRef<int64_t>{1, 1, 1, 1}, "EXPLICIT",
                b.getDenseI64ArrayAttr({0, 0, 0, 0, 1, 1, 2, 0}),
                b.getStringAttr("NCHW"), nullptr, nullptr, nullptr, nullptr,
                ValueRange{})),
            tensor({2, 16, 9, 8}, f32()));
  Value depthwise = value({3, 3, 3, 2}, f32());
  EXPECT_EQ(inferred(b.create<DepthwiseConv2dNativeOp>(
                loc, nhwc, depthwise, ArrayRef<int64_t>{1, 1, 1, 1}, "SAME",
                nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                ValueRange{})),
            tensor({2, 9, 8, 6}, f32()));
  EXPECT_EQ(inferred(b.create<MaxPoolOp>(
                loc, nhwc, ArrayRef<int64_t>{1, 2, 2, 1},
                ArrayRef<int64_t>{1, 2, 2, 1}, "VALID", nullptr, nullptr,
                nullptr, nullptr, ValueRange{})),
            tensor({2, 4, 4, 3}, f32()));
  EXPECT_EQ(inferred(b.create<AvgPoolOp>(
                loc, nchw, ArrayRef<int64_t>{1, 1, 3, 3},
                ArrayRef<int64_t>{1, 1, 2, 2}, "SAME", b.getStringAttr("NCHW"),
                nullptr, nullptr, nullptr, ValueRange{})),
            tensor({2, 3, 5, 4}, f32()));
}

// The composite ops (decomposed before placement): gemm's product and
// layer_norm's three results, with their optional operands.
TEST_F(ShapeInferenceTest, CompositeOps) {
  Value a = value({3, 2}, f32()), w = value({4, 3}, f32());
  Value bias = value({4}, f32());
  EXPECT_EQ(inferred(b.create<GemmOp>(loc, a, w, bias, FloatAttr(),
                                      FloatAttr(), b.getUnitAttr(),
                                      b.getUnitAttr(), nullptr, nullptr,
                                      nullptr, ValueRange{})),
            tensor({2, 4}, f32()));
  EXPECT_EQ(inferred(b.create<GemmOp>(loc, value({2, 3}, f32()),
                                      value({3, 5}, f32()), Value(),
                                      FloatAttr(), FloatAttr(), UnitAttr(),
                                      UnitAttr(), nullptr, nullptr, nullptr,
                                      ValueRange{})),
            tensor({2, 5}, f32()));
  Value x = value({2, 3, 4}, f32()), scale = value({3, 4}, f32());
  auto layerNorm = b.create<LayerNormOp>(loc, x, scale, Value(),
                                         b.getI64IntegerAttr(1), FloatAttr(),
                                         nullptr, nullptr, nullptr,
                                         ValueRange{});
  EXPECT_EQ(inferred(layerNorm), tensor({2, 3, 4}, f32()));
  EXPECT_EQ(layerNorm.getMean().getType(), tensor({2, 1, 1}, f32()));
  EXPECT_EQ(layerNorm.getInvStdDev().getType(), tensor({2, 1, 1}, f32()));
  // f16 is normalized in f32: the statistics are f32.
  auto half = b.create<LayerNormOp>(loc, value({2, 3}, b.getF16Type()),
                                    Value(), Value(), IntegerAttr(),
                                    FloatAttr(), nullptr, nullptr, nullptr,
                                    ValueRange{});
  EXPECT_EQ(inferred(half), tensor({2, 3}, b.getF16Type()));
  EXPECT_EQ(half.getMean().getType(), tensor({2, 1}, f32()));
  EXPECT_EQ(inferred(b.create<HardSigmoidOp>(loc, x, FloatAttr(), FloatAttr(),
                                             nullptr, nullptr, nullptr,
                                             ValueRange{})),
            tensor({2, 3, 4}, f32()));
  EXPECT_EQ(inferred(b.create<Softmax2DOp>(loc, x, b.getI64IntegerAttr(-1),
                                           nullptr, nullptr, nullptr,
                                           ValueRange{})),
            tensor({2, 3, 4}, f32()));
}

// The rule's errors: a diagnostic at the builder's location naming the op,
// and no type.
TEST_F(ShapeInferenceTest, RuleErrorsAreDiagnostics) {
  std::string message;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  Value a = value({2, 3}, f32()), w = value({4, 5}, f32());
  OperationState state(loc, MatmulOp::getOperationName());
  state.addOperands({a, w});
  SmallVector<Type> types;
  EXPECT_TRUE(failed(MatmulOp::inferReturnTypes(
      &context, loc, state.operands,
      state.attributes.getDictionary(&context),
      &state.getOrAddProperties<MatmulOp::Properties>(), state.regions,
      types)));
  EXPECT_TRUE(types.empty());
  EXPECT_EQ(message, "'gplace.matmul' op contraction dimensions differ: lhs "
                     "dimension 1 is 3 but rhs dimension 0 is 4");
  message.clear();
  SmallVector<Type> broadcast;
  EXPECT_TRUE(failed(gplace::graph::detail::inferBroadcastType(
      AddOp::getOperationName(), loc, ValueRange{a, w}, false, broadcast)));
  EXPECT_EQ(message, "'gplace.add' op operands 'tensor<2x3xf32>' and "
                     "'tensor<4x5xf32>' are not broadcast-compatible");
  // A composite's: gemm's c must broadcast to the product.
  message.clear();
  OperationState gemm(loc, GemmOp::getOperationName());
  Value c = value({3}, f32());
  gemm.addOperands({a, value({3, 4}, f32()), c});
  gemm.getOrAddProperties<GemmOp::Properties>().operandSegmentSizes = {1, 1,
                                                                       1, 0};
  SmallVector<Type> gemmTypes;
  EXPECT_TRUE(failed(GemmOp::inferReturnTypes(
      &context, loc, gemm.operands, gemm.attributes.getDictionary(&context),
      &gemm.getOrAddProperties<GemmOp::Properties>(), gemm.regions,
      gemmTypes)));
  EXPECT_EQ(message, "'gplace.gemm' op c of type 'tensor<3xf32>' does not "
                     "broadcast to the product's type 'tensor<2x4xf32>'");
}

// Every graph op infers its result type, except these. The lists say why:
// a test fails when an op is added without inference or a listed op gains
// it.
TEST_F(ShapeInferenceTest, EveryOpInfersOrSaysWhyNot) {
  // The result type is a parameter of the op, not a function of its
  // operands and attributes (as TensorFlow's shape tensor, `T` or `dtype`
  // attribute of these ops is).
  const llvm::StringSet<> parameter = {
      "gplace.argmax",           // output_type: i32 or i64
      "gplace.broadcast_to",     // the shape broadcast to
      "gplace.cast",             // the element type cast to
      "gplace.reshape",          // the new shape
      "gplace.one_hot",          // the depth
      "gplace.recv",             // the peer's tensor
      "gplace.unsorted_segment_sum", // num_segments
      "gplace.stateless_random_uniform", // shape and dtype
      "gplace.stateless_random_normal",
      "gplace.stateless_truncated_normal",
      "gplace.conv2d_backprop_input",   // input_sizes
      "gplace.depthwise_conv2d_native_backprop_input",
      "gplace.conv2d_backprop_filter",  // filter_sizes
      "gplace.depthwise_conv2d_native_backprop_filter",
      "gplace.avg_pool_grad",           // orig_input_shape
      "gplace.if",    // its branches' results (its regions' yields, or,
                      // once outlined, its functions' results)
      "gplace.yield", // a terminator: no results
  };
  int inferring = 0, total = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "gplace")
      continue;
    ++total;
    StringRef op = name.getStringRef();
    bool infers = name.hasInterface<InferTypeOpInterface>();
    inferring += infers;
    bool listed = parameter.contains(op);
    EXPECT_NE(infers, listed)
        << op.str()
        << (infers ? " infers its result type but is listed as not"
                   : " neither infers its result type nor says why not");
  }
  EXPECT_EQ(inferring + static_cast<int>(parameter.size()), total);
}

} // namespace
