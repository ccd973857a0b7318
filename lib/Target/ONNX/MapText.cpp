//===- MapText.cpp - TfIdfVectorizer ---------------------------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h. Text features over integer
// token ids (gplace has no string tensors: pool_strings and string inputs
// are refused):
// - TfIdfVectorizer: the n-gram counts of each row by comparisons with the
//   pool, as ONNX Runtime counts them (see mapTfIdfVectorizer).
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

namespace {

/// The comparisons (rows x windows x pool n-grams) above which one n-gram
/// length and skip is refused: its intermediate tensors hold that many
/// elements.
constexpr int64_t kMaxTfIdfComparisons = int64_t(1) << 26;

/// TfIdfVectorizer (opset 9) of integer token ids x, [L] or [N, L], as
/// ONNX Runtime computes it: for each n-gram length n in [min_gram_length,
/// max_gram_length] and each skip s (0 to max_skip_count; 1-grams once),
/// the n-grams x[i], x[i + s + 1], ..., x[i + (n - 1)(s + 1)] of each row
/// are compared with the pool's n-grams of that length (`slice` of the
/// rows per position, `equal` with the pool's tokens at that position,
/// `logical_and` over the positions, `select` of 1 or 0, `reduce_sum`
/// over the windows) and the counts summed over the skips. Mode "TF" keeps
/// the counts; "IDF" takes the n-gram's weight where its count is positive
/// (`greater`, `select`; 1 without weights), "TFIDF" the count times the
/// weight (`mul`), the weights in the pool's order. A `matmul` with a
/// constant 0/1 matrix moves them to their output coordinates
/// (ngram_indexes). The output is float, [C] or [N, C] with C =
/// max(ngram_indexes) + 1.
bool mapTfIdfVectorizer(Node &n, SmallVectorImpl<Value> &results,
                        std::string &reason) {
  RankedTensorType type = n.inputType(0);
  RankedTensorType outType = n.outputTypes[0];
  if (!type || !outType || (type.getRank() != 1 && type.getRank() != 2) ||
      !isa<IntegerType>(type.getElementType()) ||
      type.getElementType().isInteger(1)) {
    reason = "an input that is not integer token ids of rank 1 or 2";
    return false;
  }
  if (n.attr("pool_strings")) {
    reason = "pool_strings (gplace has no string tensors)";
    return false;
  }
  std::string mode = n.getString("mode", "");
  int64_t minGram = n.getInt("min_gram_length", 0);
  int64_t maxGram = n.getInt("max_gram_length", 0);
  int64_t maxSkip = n.getInt("max_skip_count", 0);
  SmallVector<int64_t> counts = n.getInts("ngram_counts").value_or(
      SmallVector<int64_t>{});
  SmallVector<int64_t> indexes = n.getInts("ngram_indexes").value_or(
      SmallVector<int64_t>{});
  SmallVector<int64_t> pool = n.getInts("pool_int64s").value_or(
      SmallVector<int64_t>{});
  SmallVector<float> weights;
  if (const onnx::AttributeProto *w = n.attr("weights"))
    weights.assign(w->floats().begin(), w->floats().end());
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") {
    reason = "a mode other than TF, IDF and TFIDF";
    return false;
  }
  if (minGram < 1 || maxGram < minGram || maxSkip < 0 || counts.empty() ||
      counts[0] != 0) {
    reason = "n-gram lengths or ngram_counts out of range (1 <= "
             "min_gram_length <= max_gram_length, max_skip_count >= 0, "
             "ngram_counts starting at 0)";
    return false;
  }
  // Each length's n-grams in the pool: [start, end) of pool_int64s.
  int64_t levels = static_cast<int64_t>(counts.size());
  SmallVector<int64_t> firstNgram(levels + 1, 0);
  for (int64_t level = 0; level < levels; ++level) {
    int64_t start = counts[level];
    int64_t end = level + 1 < levels ? counts[level + 1]
                                     : static_cast<int64_t>(pool.size());
    if (end < start || end > static_cast<int64_t>(pool.size()) ||
        (end - start) % (level + 1) != 0) {
      reason = "ngram_counts that do not cut pool_int64s into n-grams";
      return false;
    }
    firstNgram[level + 1] = firstNgram[level] + (end - start) / (level + 1);
  }
  int64_t ngrams = firstNgram[levels];
  int64_t columns = 0;
  for (int64_t c : indexes)
    columns = std::max(columns, c + 1);
  if (static_cast<int64_t>(indexes.size()) != ngrams ||
      llvm::any_of(indexes, [](int64_t c) { return c < 0; }) ||
      outType.getShape().back() != columns ||
      (!weights.empty() && static_cast<int64_t>(weights.size()) != ngrams) ||
      !outType.getElementType().isF32()) {
    reason = "ngram_indexes or weights that do not match the pool's "
             "n-grams and the output";
    return false;
  }

  Builder &b = n.builder();
  Type element = outType.getElementType();
  Type i64 = b.getIntegerType(64);
  Type i1 = b.getI1Type();
  int64_t rows = type.getRank() == 2 ? type.getDimSize(0) : 1;
  int64_t length = type.getShape().back();
  Value x = n.input(0);
  if (type.getRank() == 1)
    x = n.reshape(x, {rows, length}, "rows");
  if (!type.getElementType().isInteger(64))
    x = n.op<CastOp>(RankedTensorType::get({rows, length}, i64), x, {},
                     "ids");
  auto rowsType = RankedTensorType::get({rows, columns}, element);
  Value total;
  for (int64_t gram = minGram; gram <= std::min(maxGram, levels); ++gram) {
    int64_t start = counts[gram - 1];
    int64_t size = firstNgram[gram] - firstNgram[gram - 1];
    if (size == 0)
      continue;
    std::string level = "gram" + std::to_string(gram);
    // The pool's n-grams of this length to their output coordinates.
    SmallVector<float> place(size * columns, 0.0f);
    for (int64_t p = 0; p < size; ++p)
      place[p * columns + indexes[firstNgram[gram - 1] + p]] = 1.0f;
    Value counted;
    for (int64_t skip = 0; skip <= (gram == 1 ? 0 : maxSkip); ++skip) {
      int64_t windows = length - (gram - 1) * (skip + 1);
      if (windows <= 0)
        break;
      if (rows * windows * size > kMaxTfIdfComparisons) {
        reason = "more than 2^26 comparisons of windows with the pool";
        return false;
      }
      std::string s = level + "_skip" + std::to_string(skip);
      auto matchType = RankedTensorType::get({rows, windows, size}, i1);
      Value match;
      for (int64_t k = 0; k < gram; ++k) {
        std::string at = s + "_" + std::to_string(k);
        SmallVector<int64_t> begin{0, k * (skip + 1)}, extent{rows, windows};
        Value tokens = n.op<SliceOp>(
            RankedTensorType::get(extent, i64), x,
            {n.named("begin", b.getDenseI64ArrayAttr(begin)),
             n.named("size", b.getDenseI64ArrayAttr(extent))},
            at + "_tokens");
        tokens = n.reshape(tokens, {rows, windows, 1}, at + "_column");
        SmallVector<int64_t> poolTokens;
        for (int64_t p = 0; p < size; ++p)
          poolTokens.push_back(pool[start + p * gram + k]);
        Value expected = n.constant(
            DenseElementsAttr::get(RankedTensorType::get({size}, i64),
                                   ArrayRef<int64_t>(poolTokens)),
            at + "_pool");
        Value equal =
            n.op<EqualOp>(matchType, {tokens, expected}, {}, at + "_equal");
        match = match ? n.op<LogicalAndOp>(matchType, {match, equal}, {},
                                           at + "_match")
                      : equal;
      }
      Value ones = n.op<SelectOp>(
          RankedTensorType::get({rows, windows, size}, element),
          {match, n.scalar(element, 1, s + "_one"),
           n.scalar(element, 0, s + "_zero")},
          {}, s + "_ones");
      Value found = n.op<ReduceSumOp>(
          RankedTensorType::get({rows, size}, element), ones,
          {n.named("axes", b.getDenseI64ArrayAttr({1}))}, s + "_counts");
      counted = counted ? n.op<AddOp>(found.getType(), {counted, found}, {},
                                      s + "_sum")
                        : found;
    }
    if (!counted)
      continue;
    if (mode != "TF") {
      SmallVector<float> w(size, 1.0f);
      if (!weights.empty())
        for (int64_t p = 0; p < size; ++p)
          w[p] = weights[firstNgram[gram - 1] + p];
      auto countsType = cast<RankedTensorType>(counted.getType());
      Value weightRow = n.constant(
          DenseElementsAttr::get(RankedTensorType::get({size}, element),
                                 ArrayRef<float>(w)),
          level + "_weights");
      if (mode == "IDF") {
        Value seen = n.op<GreaterOp>(
            RankedTensorType::get(countsType.getShape(), i1),
            {counted, n.scalar(element, 0, level + "_zero")}, {},
            level + "_seen");
        counted = n.op<SelectOp>(
            countsType, {seen, weightRow, n.scalar(element, 0, level + "_none")},
            {}, level + "_idf");
      } else {
        counted =
            n.op<MulOp>(countsType, {counted, weightRow}, {}, level + "_tfidf");
      }
    }
    Value placeMatrix = n.constant(
        DenseElementsAttr::get(RankedTensorType::get({size, columns}, element),
                               ArrayRef<float>(place)),
        level + "_places");
    Value placed = n.op<MatmulOp>(rowsType, {counted, placeMatrix}, {},
                                  level + "_placed");
    total = total ? n.op<AddOp>(rowsType, {total, placed}, {}, level + "_total")
                  : placed;
  }
  if (!total)
    total = n.constant(DenseElementsAttr::get(rowsType, 0.0f), "no_ngrams");
  results.push_back(type.getRank() == 1 ? n.reshape(total, {columns})
                                        : n.op<IdentityOp>(rowsType, total));
  return true;
}

} // namespace

void addTextMappers(llvm::StringMap<MapFn> &table) {
  table["TfIdfVectorizer"] = mapTfIdfVectorizer;
}

} // namespace gplace::frontend::onnx_import
