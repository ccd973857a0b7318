//===- OnnxImportTest.cpp - ONNX models and tensors to gplace -------------===//
//
// The ONNX importer (gplace/Target/ONNX/ImportONNX.h) on models built in
// memory with ONNX's protobuf classes: TensorProto files in each data
// layout and their errors, malformed graphs, how Gemm, Reshape and Softmax (at opsets 13 and
// 11) become graph ops, the one error listing every unsupported op type,
// element types and dynamic dimensions it refuses, initializers as
// variables, and the names the ops get.
//
//===----------------------------------------------------------------------===//

#include "gplace/Target/ONNX/ImportONNX.h"

#include "gplace/Dialect/Graph/GraphDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>

using namespace gplace;
using namespace gplace::frontend;
using TP = onnx::TensorProto;

namespace {

/// A TensorProto's header: its name, element type and dims.
TP tensorProto(const std::string &name, int32_t elem, std::vector<int64_t> dims) {
  TP t;
  t.set_name(name);
  t.set_data_type(elem);
  for (int64_t d : dims)
    t.add_dims(d);
  return t;
}

/// A model at `opset` (default domain) whose graph the members fill in.
struct ModelBuilder {
  onnx::ModelProto model;
  onnx::GraphProto *graph = model.mutable_graph();

  explicit ModelBuilder(int64_t opset = 13) {
    model.set_ir_version(7);
    model.add_opset_import()->set_version(opset);
    graph->set_name("g");
  }
  /// Each dim a number, "" (unknown) or a dim_param.
  static void setType(onnx::ValueInfoProto *info, const std::string &name,
                      std::vector<std::string> dims, int32_t elem) {
    info->set_name(name);
    auto *tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elem);
    auto *shape = tensor->mutable_shape();
    for (const std::string &d : dims) {
      auto *dim = shape->add_dim();
      if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0])))
        dim->set_dim_value(std::stoll(d));
      else if (!d.empty())
        dim->set_dim_param(d);
    }
  }
  void input(const std::string &name, std::vector<std::string> dims,
             int32_t elem = TP::FLOAT) {
    setType(graph->add_input(), name, std::move(dims), elem);
  }
  void output(const std::string &name, std::vector<std::string> dims,
              int32_t elem = TP::FLOAT) {
    setType(graph->add_output(), name, std::move(dims), elem);
  }
  onnx::NodeProto *node(const std::string &opType, std::vector<std::string> ins,
                        std::vector<std::string> outs,
                        const std::string &name = "") {
    onnx::NodeProto *n = graph->add_node();
    n->set_op_type(opType);
    n->set_name(name);
    for (const std::string &in : ins)
      n->add_input(in);
    for (const std::string &out : outs)
      n->add_output(out);
    return n;
  }
  TP *initializer(const std::string &name, int32_t elem,
                  std::vector<int64_t> dims) {
    return &(*graph->add_initializer() = tensorProto(name, elem, dims));
  }
};

void setInt(onnx::NodeProto *n, const std::string &name, int64_t v) {
  auto *a = n->add_attribute();
  a->set_name(name), a->set_type(onnx::AttributeProto::INT), a->set_i(v);
}
void setFloat(onnx::NodeProto *n, const std::string &name, float v) {
  auto *a = n->add_attribute();
  a->set_name(name), a->set_type(onnx::AttributeProto::FLOAT), a->set_f(v);
}

//===----------------------------------------------------------------------===//
// TensorProto files.
//===----------------------------------------------------------------------===//

class OnnxImportTensorProto : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("gplace-onnx-test", dir_));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir_); }

  /// Writes `bytes` (or `t`) as `name` under the test's directory.
  std::string write(const std::string &name, const std::string &bytes) {
    llvm::SmallString<128> path(dir_);
    llvm::sys::path::append(path, name);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
    std::ofstream(path.str().str(), std::ios::binary) << bytes;
    return path.str().str();
  }
  std::string write(const std::string &name, const TP &t) {
    std::string bytes;
    EXPECT_TRUE(t.SerializeToString(&bytes));
    return write(name, bytes);
  }
  /// Reads `t` back from a file: its type and its data as T's.
  template <typename T>
  void expectReads(const TP &t, const std::string &type, std::vector<T> data,
                   const std::string &file = "t.pb") {
    StatusOr<HostTensor> r = readTensorProtoFile(write(file, t));
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->type.str(), type);
    std::vector<T> got(r->data.size() / sizeof(T));
    std::memcpy(got.data(), r->data.data(), r->data.size());
    EXPECT_EQ(got, data);
  }
  /// The message of reading `path`, which must fail.
  static std::string failure(const std::string &path) {
    StatusOr<HostTensor> r = readTensorProtoFile(path);
    EXPECT_FALSE(r);
    EXPECT_EQ(r.status().code(), StatusCode::InvalidArgument);
    return r.status().message();
  }

  llvm::SmallString<128> dir_;
};

TEST_F(OnnxImportTensorProto, ReadsRawAndTypedData) {
  std::vector<float> f = {1, -2, 3.5f, 0, 1e20f, -0.25f};
  TP raw = tensorProto("t", TP::FLOAT, {2, 3});
  raw.set_raw_data(std::string(reinterpret_cast<const char *>(f.data()), 24));
  expectReads(raw, "2x3xf32", f);

  TP typed = tensorProto("t", TP::FLOAT, {3});
  for (float v : {0.5f, -1.f, 7.f})
    typed.add_float_data(v);
  expectReads(typed, "3xf32", std::vector<float>{0.5f, -1.f, 7.f});

  TP i64 = tensorProto("t", TP::INT64, {2, 1});
  for (int64_t v : {int64_t(-5), int64_t(1) << 40})
    i64.add_int64_data(v);
  expectReads(i64, "2x1xi64", std::vector<int64_t>{-5, int64_t(1) << 40});

  // Bools in int32_data: any non-zero value is true, one byte each.
  // The narrow integers: int8, int16 and uint16 in int32_data, uint32 in
  // uint64_data (ONNX's typed fields), or raw.
  TP i8 = tensorProto("t", TP::INT8, {2});
  i8.add_int32_data(-128), i8.add_int32_data(127);
  expectReads(i8, "2xi8", std::vector<int8_t>{-128, 127});
  TP u16 = tensorProto("t", TP::UINT16, {2});
  u16.add_int32_data(65535), u16.add_int32_data(3);
  expectReads(u16, "2xui16", std::vector<uint16_t>{65535, 3});
  TP u32 = tensorProto("t", TP::UINT32, {1});
  u32.add_uint64_data(4294967295u);
  expectReads(u32, "1xui32", std::vector<uint32_t>{4294967295u});
  TP i16 = tensorProto("t", TP::INT16, {2});
  std::vector<int16_t> i16s = {-32768, 9};
  i16.set_raw_data(std::string(reinterpret_cast<const char *>(i16s.data()), 4));
  expectReads(i16, "2xi16", i16s);

  TP b = tensorProto("t", TP::BOOL, {4});
  for (int v : {0, 1, 5, 0})
    b.add_int32_data(v);
  expectReads(b, "4xi1", std::vector<uint8_t>{0, 1, 1, 0});

  // FLOAT16: the bits in int32_data's low half (1.0, -2.0, the smallest
  // subnormal).
  TP h = tensorProto("t", TP::FLOAT16, {3});
  for (int v : {0x3C00, 0xC000, 0x0001})
    h.add_int32_data(v);
  expectReads(h, "3xf16", std::vector<uint16_t>{0x3C00, 0xC000, 0x0001});
}

TEST_F(OnnxImportTensorProto, ReadsExternalDataRelativeToTheFile) {
  // 8 bytes of padding, the 3 floats, 4 more: offset and length pick the
  // floats out of a file relative to the tensor's directory.
  std::vector<float> f = {4, 5, 6};
  write("sub/data/weights.bin",
        "PADDING!" + std::string(reinterpret_cast<const char *>(f.data()), 12) +
            "tail");
  TP t = tensorProto("t", TP::FLOAT, {3});
  t.set_data_location(TP::EXTERNAL);
  for (auto [key, value] : {std::pair<std::string, std::string>{
                                "location", "data/weights.bin"},
                            {"offset", "8"},
                            {"length", "12"}}) {
    auto *entry = t.add_external_data();
    entry->set_key(key), entry->set_value(value);
  }
  expectReads(t, "3xf32", f, "sub/tensor.pb");

  // The same tensor beside no data file.
  std::string message = failure(write("other/tensor.pb", t));
  EXPECT_NE(message.find("cannot read its external data"), std::string::npos)
      << message;
  EXPECT_NE(message.find("other/data/weights.bin"), std::string::npos);
}

TEST_F(OnnxImportTensorProto, ReportsWhatIsWrong) {
  TP shortRaw = tensorProto("t", TP::FLOAT, {2, 3});
  shortRaw.set_raw_data(std::string(20, '\0'));
  std::string path = write("short.pb", shortRaw);
  EXPECT_EQ(failure(path),
            "'" + path + "': tensor 't' holds 20 bytes of raw data, expected 24");

  // uint64 is no gplace type: its unsigned values above 2^63 would be
  // wrong in i64 (docs/onnx.md).
  TP u64 = tensorProto("t", TP::UINT64, {2});
  u64.add_uint64_data(1), u64.add_uint64_data(2);
  std::string message = failure(write("u64.pb", u64));
  EXPECT_NE(message.find("element type UINT64, which gplace does not have"),
            std::string::npos)
      << message;

  // A name field (8) whose length runs past the end of the file.
  std::string cut = write("cut.pb", std::string("\x42\x10" "ab", 4));
  EXPECT_EQ(failure(cut), "'" + cut + "' is not an ONNX TensorProto");
  // Text, whose first byte ('t') is an end-group tag where ONNX's
  // ParseProtoFromBytes would stop and call the rest an empty tensor.
  std::string text = write("text.pb", "this is not a TensorProto\n");
  EXPECT_EQ(failure(text), "'" + text + "' is not an ONNX TensorProto");
  std::string empty = write("empty.pb", "");
  EXPECT_EQ(failure(empty), "'" + empty + "' is not an ONNX TensorProto");
}

TEST_F(OnnxImportTensorProto, RawBooleansAreZeroOrOne) {
  TP t = tensorProto("b", TP::BOOL, {4});
  t.set_raw_data(std::string("\x00\x01\x02\xff", 4));
  expectReads<uint8_t>(t, "4xi1", {0, 1, 1, 1});
}

//===----------------------------------------------------------------------===//
// Models.
//===----------------------------------------------------------------------===//

class OnnxImportTest : public ::testing::Test {
protected:
  OnnxImportTest() {
    context_.loadDialect<graph::GraphDialect, mlir::func::FuncDialect>();
  }

  /// Imports `m` as "model.onnx": its errors in errors_, report_ filled.
  mlir::OwningOpRef<mlir::ModuleOp> import(const ModelBuilder &m,
                                           OnnxImportOptions options = {}) {
    report_ = OnnxImportReport();
    options.report = &report_;
    std::string bytes;
    EXPECT_TRUE(m.model.SerializeToString(&bytes));
    errors_.clear();
    mlir::ScopedDiagnosticHandler handler(&context_, [&](mlir::Diagnostic &d) {
      if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
        errors_.push_back(d.str());
      return mlir::success();
    });
    return importOnnxModel(bytes, "model.onnx", &context_, options);
  }
  std::string firstError() const { return errors_.empty() ? "" : errors_[0]; }

  /// The ops named `opName` ("gplace.matmul"), in order.
  static std::vector<mlir::Operation *> ops(mlir::ModuleOp module,
                                            llvm::StringRef opName) {
    std::vector<mlir::Operation *> found;
    module.walk([&](mlir::Operation *op) {
      if (op->getName().getStringRef() == opName)
        found.push_back(op);
    });
    return found;
  }
  static mlir::func::FuncOp entry(mlir::ModuleOp module) {
    return module.lookupSymbol<mlir::func::FuncOp>("main");
  }
  static mlir::Value returned(mlir::ModuleOp module) {
    return entry(module).front().getTerminator()->getOperand(0);
  }
  static std::string nameOf(mlir::Operation *op) {
    auto name = op ? op->getAttrOfType<mlir::StringAttr>("name") : nullptr;
    return name ? name.str() : "<none>";
  }
  static std::string str(mlir::Type type) {
    std::string s;
    llvm::raw_string_ostream(s) << type;
    return s;
  }
  /// The f32 splat of the gplace.constant defining `v` (NaN if none).
  static float splat(mlir::Value v) {
    mlir::Operation *op = v.getDefiningOp();
    if (!op || op->getName().getStringRef() != "gplace.constant")
      return NAN;
    auto value = op->getAttrOfType<mlir::DenseElementsAttr>("value");
    return value && value.isSplat() ? value.getSplatValue<float>() : NAN;
  }

  mlir::MLIRContext context_;
  std::vector<std::string> errors_;
  OnnxImportReport report_;
};

TEST_F(OnnxImportTest, GemmScalesAndAddsBroadcastC) {
  ModelBuilder m;
  m.input("A", {"3", "2"}); // [K, M], transposed.
  m.input("B", {"3", "4"});
  m.input("C", {"4"});
  m.output("Y", {"", ""}); // Shape inference's.
  onnx::NodeProto *gemm = m.node("Gemm", {"A", "B", "C"}, {"Y"}, "gemm");
  setInt(gemm, "transA", 1);
  setFloat(gemm, "alpha", 2.0f);
  setFloat(gemm, "beta", 0.5f);
  auto module = import(m);
  ASSERT_TRUE(module) << firstError();
  mlir::func::FuncOp f = entry(*module);
  ASSERT_EQ(f.getFunctionType().getNumResults(), 1u);
  EXPECT_EQ(str(f.getFunctionType().getResult(0)), "tensor<2x4xf32>");

  auto matmuls = ops(*module, "gplace.matmul");
  ASSERT_EQ(matmuls.size(), 1u);
  EXPECT_TRUE(matmuls[0]->hasAttr("transpose_a"));
  EXPECT_FALSE(matmuls[0]->hasAttr("transpose_b"));
  EXPECT_EQ(matmuls[0]->getOperand(0), f.getArgument(0));
  EXPECT_EQ(nameOf(matmuls[0]), "gemm/MatMul");
  // alpha * (A^T B) and beta * C, then their sum, named after the node.
  auto muls = ops(*module, "gplace.mul");
  ASSERT_EQ(muls.size(), 2u);
  EXPECT_EQ(muls[0]->getOperand(0), matmuls[0]->getResult(0));
  EXPECT_EQ(splat(muls[0]->getOperand(1)), 2.0f);
  EXPECT_EQ(muls[1]->getOperand(0), f.getArgument(2));
  EXPECT_EQ(splat(muls[1]->getOperand(1)), 0.5f);
  EXPECT_EQ(str(muls[1]->getResult(0).getType()), "tensor<4xf32>");
  auto adds = ops(*module, "gplace.add");
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_EQ(adds[0]->getOperand(0), muls[0]->getResult(0));
  EXPECT_EQ(adds[0]->getOperand(1), muls[1]->getResult(0));
  EXPECT_EQ(nameOf(adds[0]), "gemm");
  EXPECT_EQ(returned(*module), adds[0]->getResult(0));
}

TEST_F(OnnxImportTest, ReshapeShapeIsReadAtImportTime) {
  ModelBuilder m;
  m.input("x", {"2", "3", "4"});
  m.output("y", {"", ""});
  TP *shape = m.initializer("shape", TP::INT64, {2});
  shape->add_int64_data(0), shape->add_int64_data(-1);
  m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  auto module = import(m);
  ASSERT_TRUE(module) << firstError();
  auto reshapes = ops(*module, "gplace.reshape");
  ASSERT_EQ(reshapes.size(), 1u);
  EXPECT_EQ(str(reshapes[0]->getResult(0).getType()), "tensor<2x12xf32>");
  EXPECT_EQ(reshapes[0]->getNumOperands(), 1u);
  EXPECT_TRUE(ops(*module, "gplace.constant").empty());
}

TEST_F(OnnxImportTest, SoftmaxOverAMiddleAxis) {
  for (int64_t opset : {13, 11}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    ModelBuilder m(opset);
    m.input("x", {"2", "3", "4"});
    m.output("y", {"2", "3", "4"});
    setInt(m.node("Softmax", {"x"}, {"y"}, "softmax"), "axis", 1);
    auto module = import(m);
    ASSERT_TRUE(module) << firstError();
    auto softmaxes = ops(*module, "gplace.softmax");
    ASSERT_EQ(softmaxes.size(), 1u);
    mlir::Value in = softmaxes[0]->getOperand(0);
    mlir::Operation *before = in.getDefiningOp();
    ASSERT_TRUE(before && softmaxes[0]->hasOneUse());
    mlir::Operation *after = *softmaxes[0]->getUsers().begin();
    EXPECT_EQ(before->getOperand(0), entry(*module).getArgument(0));
    EXPECT_EQ(returned(*module), after->getResult(0));
    EXPECT_EQ(str(after->getResult(0).getType()), "tensor<2x3x4xf32>");
    if (opset == 13) {
      // Over dim 1 alone: moved last, normalized, moved back.
      EXPECT_EQ(ops(*module, "gplace.transpose"),
                (std::vector<mlir::Operation *>{before, after}));
      EXPECT_EQ(str(in.getType()), "tensor<2x4x3xf32>");
    } else {
      // Opset 11 coerces to 2-D at the axis: over dims 1 and 2 together.
      EXPECT_TRUE(ops(*module, "gplace.transpose").empty());
      EXPECT_EQ(ops(*module, "gplace.reshape"),
                (std::vector<mlir::Operation *>{before, after}));
      EXPECT_EQ(str(in.getType()), "tensor<2x12xf32>");
    }
  }
}

TEST_F(OnnxImportTest, OneErrorListsEveryUnsupportedOpType) {
  ModelBuilder m;
  m.input("x", {"2", "3"});
  m.output("y", {"2", "3"});
  m.node("Multinomial", {"x"}, {"e1"}, "multinomial1");
  m.node("Multinomial", {"e1"}, {"e2"}, "multinomial2");
  m.node("LpNormalization", {"e2"}, {"s"}, "lp");
  m.node("Relu", {"s"}, {"y"}, "relu");
  EXPECT_FALSE(import(m));
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_EQ(errors_[0], "'model.onnx' uses 2 op types gplace cannot import "
                        "(op type, opset, nodes):\n"
                        "  LpNormalization (opset 13): 1 node\n"
                        "  Multinomial (opset 13): 2 nodes");
  std::vector<std::string> unsupported;
  for (const OnnxUnsupported &u : report_.unsupported)
    unsupported.push_back(u.opType + " " + std::to_string(u.opset) + " " +
                          std::to_string(u.nodes) + " '" + u.reason + "'");
  EXPECT_EQ(unsupported,
            (std::vector<std::string>{"LpNormalization 13 1 ''",
                                      "Multinomial 13 2 ''"}));
  EXPECT_FALSE(report_.unsupportedType);
  EXPECT_FALSE(report_.dynamicShape);
}

// What ONNX's checker (1.12) lets through and its IR conversion, which the
// version converter runs, crashed on: the importer refuses it first.
TEST_F(OnnxImportTest, RefusesValuesNothingDefines) {
  for (int64_t opset : {9, 13}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    ModelBuilder m(opset);
    m.input("x", {"2", "3"});
    m.output("y", {"2", "3"});
    m.node("Relu", {"x"}, {"z"}, "relu");
    EXPECT_FALSE(import(m));
    EXPECT_EQ(errors_, std::vector<std::string>{
                           "'model.onnx': output 'y' is produced by no node, "
                           "input or initializer"});
  }
}

// An opset-11 Softmax over a middle axis of an input with two named dynamic
// dimensions: --dim fixes them before the version converter spells the
// coercion as a reshape, so the reshape's shape is static.
TEST_F(OnnxImportTest, DimsAreFixedBeforeTheVersionConverter) {
  ModelBuilder m(11);
  m.input("x", {"batch", "seq", "4"});
  m.output("y", {"", "", ""});
  setInt(m.node("Softmax", {"x"}, {"y"}, "softmax"), "axis", 1);
  OnnxImportOptions options;
  options.dims = {"batch=2", "seq=3"};
  auto module = import(m, options);
  ASSERT_TRUE(module) << firstError();
  EXPECT_EQ(str(entry(*module).getFunctionType().getResult(0)),
            "tensor<2x3x4xf32>");
  std::vector<mlir::Operation *> softmax = ops(*module, "gplace.softmax");
  ASSERT_EQ(softmax.size(), 1u);
  EXPECT_EQ(str(softmax[0]->getResult(0).getType()), "tensor<2x12xf32>");
}

TEST_F(OnnxImportTest, RefusesAStringInput) {
  ModelBuilder m;
  m.input("x", {"4"}, TP::STRING);
  m.output("y", {"4"}, TP::STRING);
  m.node("Identity", {"x"}, {"y"}, "id");
  EXPECT_FALSE(import(m));
  EXPECT_TRUE(report_.unsupportedType);
  EXPECT_FALSE(report_.dynamicShape);
  EXPECT_TRUE(report_.unsupported.empty());
  EXPECT_EQ(errors_, std::vector<std::string>{
                         "input 'x' has element type STRING, which gplace "
                         "does not have"});
}

// int8 arithmetic is computed widened: each operand cast to i32, the i32
// op, the result cast back to i8 (which wraps), named after the node. Add
// takes int8 from opset 14 (at 13 ONNX's type check refuses the model).
TEST_F(OnnxImportTest, Int8AddIsComputedInI32AndCastBack) {
  ModelBuilder m(14);
  m.input("a", {"4"}, TP::INT8);
  m.input("b", {"4"}, TP::INT8);
  m.output("y", {"4"}, TP::INT8);
  m.node("Add", {"a", "b"}, {"y"}, "add");
  auto module = import(m);
  ASSERT_TRUE(module) << firstError();
  mlir::func::FuncOp f = entry(*module);
  EXPECT_EQ(str(f.getFunctionType().getInput(0)), "tensor<4xi8>");
  EXPECT_EQ(str(f.getFunctionType().getResult(0)), "tensor<4xi8>");
  auto adds = ops(*module, "gplace.add");
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_EQ(str(adds[0]->getResult(0).getType()), "tensor<4xi32>");
  auto casts = ops(*module, "gplace.cast");
  ASSERT_EQ(casts.size(), 3u);
  EXPECT_EQ(casts[0]->getOperand(0), f.getArgument(0));
  EXPECT_EQ(adds[0]->getOperand(0), casts[0]->getResult(0));
  EXPECT_EQ(casts[2]->getOperand(0), adds[0]->getResult(0));
  EXPECT_EQ(nameOf(casts[2]), "add");
  EXPECT_EQ(returned(*module), casts[2]->getResult(0));
}

TEST_F(OnnxImportTest, DimFixesANamedDynamicDimension) {
  ModelBuilder m;
  m.input("x", {"batch", "4"});
  m.output("y", {"batch", "4"});
  m.node("Relu", {"x"}, {"y"}, "relu");
  EXPECT_FALSE(import(m));
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_NE(errors_[0].find("input 'x'"), std::string::npos) << errors_[0];
  EXPECT_NE(errors_[0].find("--dim batch=N"), std::string::npos) << errors_[0];
  EXPECT_TRUE(report_.dynamicShape);

  for (std::string dim : {"batch=3", "3"}) {
    SCOPED_TRACE("--dim " + dim);
    OnnxImportOptions fixed;
    fixed.dims = {dim};
    auto module = import(m, fixed);
    ASSERT_TRUE(module) << firstError();
    mlir::FunctionType type = entry(*module).getFunctionType();
    EXPECT_EQ(str(type.getInput(0)), "tensor<3x4xf32>");
    EXPECT_EQ(str(type.getResult(0)), "tensor<3x4xf32>");
  }
}

/// The int64 or f32 values of the gplace.constant defining `v` (empty if
/// none), as doubles.
std::vector<double> constantValues(mlir::Value v) {
  mlir::Operation *op = v.getDefiningOp();
  if (!op || op->getName().getStringRef() != "gplace.constant")
    return {};
  auto value = op->getAttrOfType<mlir::DenseElementsAttr>("value");
  std::vector<double> values;
  if (value.getElementType().isF32())
    for (float f : value.getValues<float>())
      values.push_back(f);
  else
    for (int64_t i : value.getValues<int64_t>())
      values.push_back(static_cast<double>(i));
  return values;
}

// NonZero's output shape is its input's values': a graph input given at
// import time specializes the graph (reported), and NonZero becomes a
// constant; without the value, the error names the node, the input and
// why (docs/onnx.md, "Decisions").
TEST_F(OnnxImportTest, NonZeroOfAGivenInputIsComputedAtImportTime) {
  ModelBuilder m;
  m.input("x", {"2", "3"});
  m.output("nz", {"2", "n"}, TP::INT64);
  m.node("NonZero", {"x"}, {"nz"}, "where");

  EXPECT_FALSE(import(m));
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_NE(errors_[0].find("NonZero (opset 13): 1 node: input 0 ('X') is "
                            "computed at run time; gplace needs it constant"),
            std::string::npos)
      << errors_[0];
  EXPECT_NE(errors_[0].find("these values decide the shape of node "
                            "'where''s (NonZero) output, and gplace fixes "
                            "every shape at import time"),
            std::string::npos)
      << errors_[0];
  EXPECT_NE(errors_[0].find("does not pad the output to a bound"),
            std::string::npos)
      << errors_[0];

  OnnxImportOptions given;
  HostTensor x(TensorType{ElementType::F32, {2, 3}});
  const float values[] = {1, 0, 0, -2, NAN, 0};
  std::memcpy(x.data.data(), values, sizeof(values));
  given.inputValues.push_back(x);
  auto module = import(m, given);
  ASSERT_TRUE(module) << firstError();
  EXPECT_EQ(report_.specializedInputs, std::vector<size_t>{0});
  EXPECT_EQ(str(entry(*module).getFunctionType().getResult(0)),
            "tensor<2x3xi64>");
  // Row-major, NaN counted as non-zero: (0, 0), (1, 0), (1, 1).
  EXPECT_EQ(constantValues(returned(*module)),
            (std::vector<double>{0, 1, 1, 0, 0, 1}));
}

// Unique along an axis, unsorted: the slices in the order of their first
// occurrences, Y taken along that axis (ONNX's definition; its reference
// takes the unsorted Y along axis 0 whatever the axis); sorted: the
// columns ordered lexicographically.
TEST_F(OnnxImportTest, UniqueTakesSlicesAlongItsAxis) {
  for (int64_t sorted : {0, 1}) {
    SCOPED_TRACE("sorted " + std::to_string(sorted));
    ModelBuilder m;
    m.input("x", {"2", "3"});
    m.output("y", {"2", "u"});
    m.output("indices", {"u"}, TP::INT64);
    m.output("inverse", {"3"}, TP::INT64);
    m.output("counts", {"u"}, TP::INT64);
    onnx::NodeProto *unique = m.node(
        "Unique", {"x"}, {"y", "indices", "inverse", "counts"}, "unique");
    setInt(unique, "axis", -1);
    setInt(unique, "sorted", sorted);
    OnnxImportOptions given;
    HostTensor x(TensorType{ElementType::F32, {2, 3}});
    // Columns (2, 5), (1, 4), (2, 5).
    const float values[] = {2, 1, 2, 5, 4, 5};
    std::memcpy(x.data.data(), values, sizeof(values));
    given.inputValues.push_back(x);
    auto module = import(m, given);
    ASSERT_TRUE(module) << firstError();
    mlir::Operation *ret = entry(*module).front().getTerminator();
    ASSERT_EQ(ret->getNumOperands(), 4u);
    using V = std::vector<double>;
    std::vector<V> got;
    for (mlir::Value v : ret->getOperands())
      got.push_back(constantValues(v));
    if (sorted)
      EXPECT_EQ(got, (std::vector<V>{{1, 2, 4, 5}, {1, 0}, {1, 0, 1}, {1, 2}}));
    else
      EXPECT_EQ(got, (std::vector<V>{{2, 1, 5, 4}, {0, 1}, {0, 1, 0}, {2, 1}}));
  }
}

TEST_F(OnnxImportTest, FloatInitializersCanBecomeVariables) {
  ModelBuilder m;
  m.input("x", {"2", "4"});
  m.input("i", {"3"}, TP::INT64);
  m.output("y", {"2", "2"});
  m.output("z", {"3"}, TP::INT64);
  TP *w = m.initializer("W", TP::FLOAT, {4, 2});
  for (int v = 0; v < 8; ++v)
    w->add_float_data(v);
  TP *k = m.initializer("K", TP::INT64, {3});
  for (int v : {7, 8, 9})
    k->add_int64_data(v);
  m.node("MatMul", {"x", "W"}, {"y"}, "mm");
  m.node("Add", {"i", "K"}, {"z"}, "add");
  OnnxImportOptions options;
  options.initializersAsVariables = true;
  auto module = import(m, options);
  ASSERT_TRUE(module) << firstError();

  auto variables = ops(*module, "gplace.variable");
  ASSERT_EQ(variables.size(), 1u);
  EXPECT_EQ(nameOf(variables[0]), "W");
  auto initial =
      variables[0]->getAttrOfType<mlir::DenseElementsAttr>("initial_value");
  ASSERT_TRUE(initial);
  EXPECT_EQ(str(initial.getType()), "tensor<4x2xf32>");
  EXPECT_EQ(*std::next(initial.getValues<float>().begin(), 5), 5.0f);
  auto reads = ops(*module, "gplace.read");
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(nameOf(reads[0]), "W/read");
  EXPECT_EQ(reads[0]->getOperand(0), variables[0]->getResult(0));
  EXPECT_EQ(ops(*module, "gplace.matmul").at(0)->getOperand(1),
            reads[0]->getResult(0));
  // The integer initializer stays a constant, read by the add.
  auto constants = ops(*module, "gplace.constant");
  ASSERT_EQ(constants.size(), 1u);
  EXPECT_EQ(nameOf(constants[0]), "K");
  EXPECT_EQ(str(constants[0]->getResult(0).getType()), "tensor<3xi64>");
  EXPECT_EQ(ops(*module, "gplace.add").at(0)->getOperand(1),
            constants[0]->getResult(0));

  // Without the option W is a constant too.
  auto plain = import(m);
  ASSERT_TRUE(plain) << firstError();
  EXPECT_TRUE(ops(*plain, "gplace.variable").empty());
  EXPECT_EQ(ops(*plain, "gplace.constant").size(), 2u);
}

TEST_F(OnnxImportTest, OpsAreNamedAfterTheirNodes) {
  ModelBuilder m;
  m.input("x", {"2", "3"});
  m.output("y", {"2", "3"});
  m.node("Relu", {"x"}, {"r"}, "first_relu");
  m.node("Sigmoid", {"r"}, {"y"}); // No name: its output's.
  auto module = import(m);
  ASSERT_TRUE(module) << firstError();
  auto relus = ops(*module, "gplace.relu");
  auto sigmoids = ops(*module, "gplace.sigmoid");
  ASSERT_EQ(relus.size(), 1u);
  ASSERT_EQ(sigmoids.size(), 1u);
  EXPECT_EQ(nameOf(relus[0]), "first_relu");
  EXPECT_EQ(nameOf(sigmoids[0]), "y");
  EXPECT_EQ(sigmoids[0]->getOperand(0), relus[0]->getResult(0));
  mlir::func::FuncOp f = entry(*module);
  EXPECT_EQ(f.getArgAttrOfType<mlir::StringAttr>(0, "gplace.name").str(), "x");
  EXPECT_EQ(f.getResultAttrOfType<mlir::StringAttr>(0, "gplace.name").str(),
            "y");
}

} // namespace
