//===- MapLinalg.cpp - MatMul, Gemm, Einsum, Det ---------------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h. Contractions:
// - MatMul: `matmul` (numpy's batch broadcast as one matmul per product,
//   joined); matMul() is shared with the other mappers;
// - Gemm: the composite `gemm`;
// - Einsum: transposes, reductions and matmuls of the labelled operands;
// - Det: cofactors of 2x2 and 3x3 matrices.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

namespace {

/// MatMul of a right operand of rank > 2: numpy's broadcast over the batch
/// dimensions, one gplace.matmul per product (at most 256), joined.
Value batchedMatMul(Node &n, Value a, Value b, RankedTensorType result,
                    std::string &reason) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (ta.getRank() < 2) {
    reason = "a rank-1 left operand with a batched right one";
    return nullptr;
  }
  ArrayRef<int64_t> batchA = ta.getShape().drop_back(2);
  ArrayRef<int64_t> batchB = tb.getShape().drop_back(2);
  std::optional<std::vector<int64_t>> batch = broadcastShapes(batchA, batchB);
  if (!batch) {
    reason = "batch dimensions that do not broadcast";
    return nullptr;
  }
  // The number of products, checked before it can overflow; none where a
  // batch dimension is 0 (the result has no elements).
  int64_t count = llvm::is_contained(*batch, 0) ? 0 : 1;
  for (int64_t d : *batch) {
    if (count == 0)
      break;
    if (d > 256 / count) {
      reason = "more than 256 batched products";
      return nullptr;
    }
    count *= d;
  }
  if (count == 0)
    return n.constant(DenseElementsAttr::get(result, ArrayRef<Attribute>{}),
                      result == n.outputTypes[0] ? "" : "product");
  int64_t m = ta.getDimSize(ta.getRank() - 2);
  int64_t cols = tb.getShape().back();
  Type element = ta.getElementType();
  Builder &builder = n.builder();
  // Operand `x` (batch dims `dims`) at broadcast batch index `flat`, as a
  // matrix.
  auto matrix = [&](Value x, RankedTensorType type, ArrayRef<int64_t> dims,
                    int64_t flat, llvm::StringRef what) {
    SmallVector<int64_t> begin(type.getRank(), 0), size(type.getShape());
    int64_t rest = flat;
    for (int64_t i = batch->size() - 1; i >= 0; --i) {
      int64_t index = rest % (*batch)[i];
      rest /= (*batch)[i];
      int64_t d = i - (static_cast<int64_t>(batch->size()) - dims.size());
      if (d < 0)
        continue;
      begin[d] = dims[d] == 1 ? 0 : index;
      size[d] = 1;
    }
    SmallVector<int64_t> sliced(size);
    Value part = n.op<SliceOp>(
        RankedTensorType::get(sliced, element), x,
        {n.named("begin", builder.getDenseI64ArrayAttr(begin)),
         n.named("size", builder.getDenseI64ArrayAttr(size))},
        (what + "_" + std::to_string(flat)).str());
    ArrayRef<int64_t> shape = type.getShape().take_back(2);
    return n.reshape(part, shape, (what + "_matrix_" + std::to_string(flat)).str());
  };
  SmallVector<Value> products;
  auto productType = RankedTensorType::get({1, m, cols}, element);
  for (int64_t i = 0; i < count; ++i) {
    Value lhs = matrix(a, ta, batchA, i, "lhs");
    Value rhs = matrix(b, tb, batchB, i, "rhs");
    Value p = n.op<MatmulOp>(RankedTensorType::get({m, cols}, element),
                             {lhs, rhs}, {}, "MatMul_" + std::to_string(i));
    products.push_back(n.reshape(p, productType.getShape(),
                                 "product_" + std::to_string(i)));
  }
  Value joined = products.front();
  if (products.size() > 1)
    joined = n.importer.b.create<ConcatOp>(
        n.loc, RankedTensorType::get({count, m, cols}, element), products,
        builder.getI64IntegerAttr(0), StringAttr(),
        builder.getStringAttr(n.name + "/concat"), StringAttr(), ValueRange());
  return n.op<ReshapeOp>(result, joined, {},
                        result == n.outputTypes[0] ? "" : "product");
}

} // namespace

Value matMul(Node &n, Value a, Value b, RankedTensorType result,
             std::string &reason) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (ta.getRank() == 0 || tb.getRank() == 0) {
    reason = "a scalar operand";
    return nullptr;
  }
  if (tb.getRank() > 2)
    return batchedMatMul(n, a, b, result, reason);
  if (tb.getRank() == 1)
    b = n.reshape(b, {tb.getDimSize(0), 1}, "rhs_column");
  int64_t k = ta.getShape().back();
  int64_t rows = 1;
  for (int64_t d : ta.getShape().drop_back())
    rows *= d;
  if (ta.getRank() != 2)
    a = n.reshape(a, {rows, k}, "lhs_rows");
  int64_t cols = cast<RankedTensorType>(b.getType()).getDimSize(1);
  auto productType =
      RankedTensorType::get({rows, cols}, ta.getElementType());
  // Named after the node where it yields the node's output.
  bool final = result == n.outputTypes[0];
  bool direct = productType == result;
  Value product = n.op<MatmulOp>(productType, {a, b}, {},
                                 direct && final ? "" : "MatMul");
  return direct ? product
                : n.reshape(product, result.getShape(),
                            final ? "" : "product");
}

namespace {

/// MatMul: matMul of its operands.
bool mapMatMul(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value product = matMul(n, n.input(0), n.input(1), n.outputTypes[0], reason);
  if (!product)
    return false;
  results.push_back(product);
  return true;
}

/// Gemm: gplace.gemm, alpha * op(A) op(B) + beta * C (Decompositions.cpp).
bool mapGemm(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Builder &b = n.builder();
  SmallVector<NamedAttribute> attrs;
  for (const char *name : {"alpha", "beta"})
    if (const onnx::AttributeProto *a = n.attr(name))
      attrs.push_back(n.named(name, b.getF32FloatAttr(a->f())));
  if (n.getInt("transA", 0))
    attrs.push_back(n.named("transpose_a", b.getUnitAttr()));
  if (n.getInt("transB", 0))
    attrs.push_back(n.named("transpose_b", b.getUnitAttr()));
  Operation *gemm = n.opWithOptionalOperands<GemmOp>(
      {n.input(0), n.input(1), n.input(2)}, attrs);
  results.push_back(gemm ? gemm->getResult(0) : Value());
  return true;
}

/// One Einsum operand's dimensions, labelled: a letter's code, or 256 +
/// i for the i-th dimension of the (right-aligned) ellipsis.
using Labels = SmallVector<int64_t>;

/// `term`'s labels for an operand of rank `rank` (-1: the output, whose
/// ellipsis has `ellipsis` dimensions); false if it does not fit.
bool parseTerm(llvm::StringRef term, int64_t rank, int64_t &ellipsis,
               Labels &labels) {
  size_t dots = term.find("...");
  llvm::StringRef before = term, after;
  if (dots != llvm::StringRef::npos) {
    before = term.take_front(dots);
    after = term.drop_front(dots + 3);
  }
  for (llvm::StringRef part : {before, after})
    for (char c : part)
      if (!std::isalpha(static_cast<unsigned char>(c)))
        return false;
  int64_t letters = before.size() + after.size();
  int64_t own = dots == llvm::StringRef::npos ? 0 : rank < 0 ? ellipsis
                                                              : rank - letters;
  if (own < 0 || (rank >= 0 && dots == llvm::StringRef::npos &&
                  letters != rank))
    return false;
  if (rank >= 0)
    ellipsis = std::max(ellipsis, own);
  for (char c : before)
    labels.push_back(c);
  for (int64_t i = 0; i < own; ++i)
    labels.push_back(256 + i - own); // Right-aligned: fixed up by the caller.
  for (char c : after)
    labels.push_back(c);
  return true;
}

Value transposeUnlessIdentity(Node &n, Value v, ArrayRef<int64_t> perm,
                              llvm::StringRef suffix) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i))
      return n.transpose(v, perm, suffix);
  return v;
}

/// `v`'s repeated labels taken as diagonals (a constant gather of the
/// pair's flattened dimensions) and its labels outside `keep` summed.
Value reduceTerm(Node &n, Value v, Labels &labels, ArrayRef<int64_t> keep,
                 const std::string &what) {
  Builder &b = n.builder();
  for (int step = 0;; ++step) {
    int64_t p = -1, q = -1;
    for (size_t i = 0; i < labels.size() && p < 0; ++i)
      for (size_t j = i + 1; j < labels.size(); ++j)
        if (labels[i] == labels[j]) {
          p = i;
          q = j;
          break;
        }
    if (p < 0)
      break;
    auto type = cast<RankedTensorType>(v.getType());
    int64_t size = type.getDimSize(p);
    std::string at = what + "_diagonal_" + std::to_string(step);
    SmallVector<int64_t> perm;
    Labels moved;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != p && d != q) {
        perm.push_back(d);
        moved.push_back(labels[d]);
      }
    int64_t label = labels[p];
    perm.push_back(p);
    perm.push_back(q);
    Value last = transposeUnlessIdentity(n, v, perm, at + "_last");
    SmallVector<int64_t> shape;
    for (int64_t d : ArrayRef<int64_t>(perm).drop_back(2))
      shape.push_back(type.getDimSize(d));
    shape.push_back(size * size);
    Value flat = n.reshape(last, shape, at + "_flat");
    SmallVector<int64_t> indices;
    for (int64_t i = 0; i < size; ++i)
      indices.push_back(i * (size + 1));
    Value index = n.constant(
        DenseElementsAttr::get(RankedTensorType::get({size}, b.getI64Type()),
                               ArrayRef<int64_t>(indices)),
        at + "_indices");
    shape.back() = size;
    v = n.op<GatherOp>(RankedTensorType::get(shape, type.getElementType()),
                       {flat, index},
                       {n.named("axis", b.getI64IntegerAttr(shape.size() - 1))},
                       at);
    moved.push_back(label);
    labels = moved;
  }
  SmallVector<int64_t> summed;
  Labels kept;
  SmallVector<int64_t> keptShape;
  auto type = cast<RankedTensorType>(v.getType());
  for (size_t d = 0; d < labels.size(); ++d) {
    if (llvm::is_contained(keep, labels[d])) {
      kept.push_back(labels[d]);
      keptShape.push_back(type.getDimSize(d));
    } else {
      summed.push_back(d);
    }
  }
  if (summed.empty())
    return v;
  labels = kept;
  return n.op<ReduceSumOp>(
      RankedTensorType::get(keptShape, type.getElementType()), v,
      {n.named("axes", b.getDenseI64ArrayAttr(summed))}, what + "_sum");
}

/// Einsum of one or two operands: each operand's diagonals taken and its
/// labels no one else needs summed (reduceTerm); two operands as one
/// product over the contracted labels, batched by the shared output labels
/// (a matmul, or mul and reduce_sum with a batch); the result transposed
/// to the output's order. Broadcast ellipsis dimensions are refused.
bool mapEinsum(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  std::string equation;
  for (char c : n.getString("equation", ""))
    if (c != ' ')
      equation.push_back(c);
  llvm::StringRef eq(equation);
  auto [lhs, rhs] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  SmallVector<llvm::StringRef> terms;
  lhs.split(terms, ',');
  int64_t count = n.numInputs();
  if (static_cast<int64_t>(terms.size()) != count || count < 1 || count > 2) {
    reason = count > 2 ? "more than two operands"
                       : "an equation with another number of operands";
    return false;
  }
  int64_t ellipsis = 0;
  SmallVector<Labels> labels(count);
  SmallVector<Value> values;
  for (int64_t i = 0; i < count; ++i) {
    RankedTensorType type = n.inputType(i);
    if (!type || !parseTerm(terms[i], type.getRank(), ellipsis, labels[i])) {
      reason = "an equation term that does not fit its operand";
      return false;
    }
    values.push_back(n.input(i));
  }
  // Ellipsis labels right-aligned: 256 + position among `ellipsis`.
  llvm::DenseMap<int64_t, int64_t> sizes;
  for (int64_t i = 0; i < count; ++i) {
    for (int64_t &l : labels[i])
      if (l >= 128 && l < 256)
        l += ellipsis; // 256 + i - own -> 256 + ellipsis - own + i
    auto type = n.inputType(i);
    for (size_t d = 0; d < labels[i].size(); ++d) {
      auto [it, inserted] = sizes.try_emplace(labels[i][d], type.getDimSize(d));
      if (!inserted && it->second != type.getDimSize(d)) {
        reason = "dimensions of one label with different sizes (broadcast)";
        return false;
      }
    }
  }
  Labels out;
  if (explicitOutput) {
    if (!parseTerm(rhs, -1, ellipsis, out)) {
      reason = "an output term that does not fit";
      return false;
    }
    for (int64_t &l : out)
      if (l >= 128 && l < 256)
        l += ellipsis;
  } else {
    for (int64_t e = 0; e < ellipsis; ++e)
      out.push_back(256 + e);
    for (int c = 0; c < 256; ++c) {
      int uses = 0;
      for (const Labels &ls : labels)
        uses += llvm::count(ls, c);
      if (uses == 1)
        out.push_back(c);
    }
  }
  for (int64_t l : out)
    if (!sizes.count(l)) {
      reason = "an output label no operand has";
      return false;
    }
  Type element = n.outputTypes[0].getElementType();
  for (int64_t i = 0; i < count; ++i) {
    Labels keep = out;
    if (count == 2)
      llvm::append_range(keep, labels[1 - i]);
    values[i] = reduceTerm(n, values[i], labels[i], keep,
                           "operand_" + std::to_string(i));
  }
  Value v = values[0];
  Labels have = labels[0];
  if (count == 2) {
    Labels batch, left, right, contracted;
    for (int64_t l : labels[0]) {
      bool other = llvm::is_contained(labels[1], l);
      bool kept = llvm::is_contained(out, l);
      (other ? (kept ? batch : contracted) : left).push_back(l);
    }
    for (int64_t l : labels[1])
      if (!llvm::is_contained(labels[0], l))
        right.push_back(l);
    auto arrange = [&](int64_t i, ArrayRef<Labels> groups,
                       ArrayRef<int64_t> dims, const std::string &what) {
      SmallVector<int64_t> perm;
      for (const Labels &g : groups)
        for (int64_t l : g)
          perm.push_back(llvm::find(labels[i], l) - labels[i].begin());
      Value t = transposeUnlessIdentity(n, values[i], perm, what + "_order");
      return n.reshape(t, dims, what + "_grouped");
    };
    auto product = [&](const Labels &g) {
      int64_t p = 1;
      for (int64_t l : g)
        p *= sizes[l];
      return p;
    };
    int64_t nb = product(batch), nl = product(left), nr = product(right),
            nk = product(contracted);
    Value prod;
    if (nb == 1) {
      Value a = arrange(0, {batch, left, contracted}, {nl, nk}, "operand_0");
      Value b = arrange(1, {batch, contracted, right}, {nk, nr}, "operand_1");
      prod = n.op<MatmulOp>(RankedTensorType::get({nl, nr}, element), {a, b},
                            {}, "matmul");
    } else {
      Value a = arrange(0, {batch, left, contracted}, {nb, nl, nk, 1},
                        "operand_0");
      Value b = arrange(1, {batch, contracted, right}, {nb, 1, nk, nr},
                        "operand_1");
      Value m = n.op<MulOp>(RankedTensorType::get({nb, nl, nk, nr}, element),
                            {a, b}, {}, "products");
      prod = n.op<ReduceSumOp>(
          RankedTensorType::get({nb, nl, nr}, element), m,
          {n.named("axes", n.builder().getDenseI64ArrayAttr({2}))}, "sums");
    }
    have.clear();
    SmallVector<int64_t> shape;
    for (const Labels &g : {batch, left, right})
      for (int64_t l : g) {
        have.push_back(l);
        shape.push_back(sizes[l]);
      }
    v = n.reshape(prod, shape, "ungrouped");
  }
  SmallVector<int64_t> perm;
  for (int64_t l : out)
    perm.push_back(llvm::find(have, l) - have.begin());
  if (have.size() != out.size()) {
    reason = "labels left over";
    return false;
  }
  Value y = transposeUnlessIdentity(n, v, perm, "");
  if (y == v && v.getDefiningOp() && v.getType() == n.outputTypes[0]) {
    // The last op this node made yields the output: named after the node.
    v.getDefiningOp()->setAttr("name", n.builder().getStringAttr(n.name));
    results.push_back(v);
  } else {
    results.push_back(y != v ? y : n.op<IdentityOp>(n.outputTypes[0], v));
  }
  return true;
}

/// Det of 2x2 and 3x3 matrices (batched): the cofactor expansion, with
/// slices, mul, sub and add.
bool mapDet(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  int64_t rank = type.getRank();
  if (rank < 2 || type.getDimSize(rank - 1) != type.getDimSize(rank - 2) ||
      type.getDimSize(rank - 1) < 2 || type.getDimSize(rank - 1) > 3) {
    reason = "matrices other than 2x2 and 3x3 (gplace computes Det by "
             "cofactors)";
    return false;
  }
  int64_t size = type.getDimSize(rank - 1);
  Builder &b = n.builder();
  SmallVector<int64_t> batch(type.getShape().drop_back(2));
  auto batchType = RankedTensorType::get(batch, type.getElementType());
  SmallVector<int64_t> elementShape(batch);
  elementShape.push_back(1);
  elementShape.push_back(1);
  auto at = [&](int64_t i, int64_t j) {
    SmallVector<int64_t> begin(rank, 0);
    begin[rank - 2] = i;
    begin[rank - 1] = j;
    std::string s = "m" + std::to_string(i) + std::to_string(j);
    Value e = n.op<SliceOp>(
        RankedTensorType::get(elementShape, type.getElementType()), n.input(0),
        {n.named("begin", b.getDenseI64ArrayAttr(begin)),
         n.named("size", b.getDenseI64ArrayAttr(elementShape))},
        s);
    return n.reshape(e, batch, s + "_scalar");
  };
  auto mul = [&](Value x, Value y, const std::string &s) {
    return n.op<MulOp>(batchType, {x, y}, {}, s);
  };
  auto minor = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                   const std::string &s, bool last) {
    Value ad = mul(at(r0, c0), at(r1, c1), s + "_ad");
    Value bc = mul(at(r0, c1), at(r1, c0), s + "_bc");
    return n.op<SubOp>(batchType, {ad, bc}, {}, last ? "" : s);
  };
  if (size == 2) {
    results.push_back(minor(0, 1, 0, 1, "det", true));
    return true;
  }
  Value t0 = mul(at(0, 0), minor(1, 2, 1, 2, "minor0", false), "term0");
  Value t1 = mul(at(0, 1), minor(1, 2, 0, 2, "minor1", false), "term1");
  Value t2 = mul(at(0, 2), minor(1, 2, 0, 1, "minor2", false), "term2");
  Value d = n.op<SubOp>(batchType, {t0, t1}, {}, "difference");
  results.push_back(n.op<AddOp>(batchType, {d, t2}));
  return true;
}

} // namespace

void addLinalgMappers(llvm::StringMap<MapFn> &table) {
  table["Det"] = floatInput<mapDet>;
  table["Einsum"] = mapEinsum;
  table["Gemm"] = mapGemm;
  table["MatMul"] = mapMatMul;
}

} // namespace gplace::frontend::onnx_import
