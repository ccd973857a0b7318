//===- Layout.cpp - Grappler's layout optimizer, for the CPU --------------===//
//
// --gplace-layout: layout-sensitive ops (LayoutSensitiveOpInterface) in
// NCHW that can only run on a CPU run NHWC, with transposes at the borders
// of each NCHW region; the transposes then sink through elementwise ops
// and cancel in pairs, as Grappler's GenericLayoutOptimizer does for the
// GPU in the other direction, and one before a flatten into matmuls of
// constant weights goes into those weights (ONNX Runtime's transpose
// optimizer). docs/passes/layout.md.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphBuilders.h"
#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/InterfaceCache.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace gplace {
#define GEN_PASS_DEF_LAYOUTPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {

constexpr int64_t kToNhwc[4] = {0, 2, 3, 1};
constexpr int64_t kToNchw[4] = {0, 3, 1, 2};

/// `type` with its dimensions permuted: dimension i is type's perm[i].
RankedTensorType permuted(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t, 4> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return RankedTensorType::get(shape, type.getElementType());
}

/// The non-unit dimensions of `shape`, in order.
SmallVector<int64_t, 4> nonUnit(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> dims;
  for (int64_t d : shape)
    if (d != 1)
      dims.push_back(d);
  return dims;
}

/// Whether transposing `type` by `perm` keeps its elements in row-major
/// order (it moves only dimensions of size 1): a reshape.
bool isReshape(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t, 4> order;
  for (int64_t p : perm)
    if (type.getDimSize(p) != 1)
      order.push_back(p);
  return llvm::is_sorted(order);
}

struct LayoutPass : public gplace::impl::LayoutPassBase<LayoutPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DeviceSet devices = getModuleDevices(module).value_or(
        DeviceSet::localhost(/*numCpus=*/1, /*numGpus=*/0));
    bool changed = false;
    for (auto func : module.getOps<func::FuncOp>())
      changed |= runOnFunction(func, devices);
    if (!changed)
      markAllAnalysesPreserved();
  }

  /// Whether `op` is a layout-sensitive op this pass runs NHWC.
  static bool convertible(LayoutSensitiveOpInterface op,
                          const DeviceSet &devices) {
    if (!op.isChannelsFirst() || !runsOnCpusOnly(op, devices))
      return false;
    auto rank4 = [](Value v) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      return type && type.getRank() == 4 && type.hasStaticShape();
    };
    return llvm::all_of(op.getLayoutOperands(),
                        [&](unsigned i) { return rank4(op->getOperand(i)); }) &&
           llvm::all_of(op.getLayoutResults(),
                        [&](unsigned i) { return rank4(op->getResult(i)); });
  }

  bool runOnFunction(func::FuncOp func, const DeviceSet &devices) {
    SmallVector<LayoutSensitiveOpInterface> ops;
    InterfaceCache<LayoutSensitiveOpInterface> layoutSensitive;
    layoutSensitive.walk(func, [&](LayoutSensitiveOpInterface op) {
      if (convertible(op, devices))
        ops.push_back(op);
    });
    if (ops.empty())
      return false;
    std::vector<std::string> names = getOpNames(func);
    size_t index = 0;
    func->walk<WalkOrder::PreOrder>(
        [&](PlacedOpInterface op) { nameOf[op] = names[index++]; });
    llvm::SetVector<Block *> blocks;
    for (LayoutSensitiveOpInterface op : ops) {
      convert(op);
      blocks.insert(op->getBlock());
    }
    for (Block *block : blocks)
      cleanUp(*block);
    nameOf.clear();
    created.clear();
    toNhwc.clear();
    return true;
  }

  /// The attributes of an op this pass makes next to `like`: `name`, and
  /// `like`'s device request and assignment.
  static SmallVector<NamedAttribute, 4>
  attributesLike(OpBuilder &builder, const std::string &name, Operation *like) {
    SmallVector<NamedAttribute, 4> attrs = {
        builder.getNamedAttr("name", builder.getStringAttr(name))};
    for (StringRef key : {"device", "assigned_device"})
      if (Attribute attr = like->getAttr(key))
        attrs.push_back(builder.getNamedAttr(key, attr));
    return attrs;
  }

  /// The shape an operand of an elementwise op broadcast against NCHW
  /// takes to broadcast the same against NHWC by a reshape: rank 0 or 2 to
  /// 4, made rank 4 and permuted, when its non-unit dimensions keep their
  /// order; else none (it would need a transpose of its own). Rank 1 is
  /// refused, even [1]: numpy broadcasts it along the width, which NHWC
  /// cannot say in rank 1, and bias_add reads it as the last dimension,
  /// which would become the channels.
  static std::optional<SmallVector<int64_t, 4>>
  nhwcBroadcastShape(Type type) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked || ranked.getRank() > 4 || ranked.getRank() == 1)
      return std::nullopt;
    SmallVector<int64_t, 4> nchw(4 - ranked.getRank(), 1);
    llvm::append_range(nchw, ranked.getShape());
    SmallVector<int64_t, 4> nhwc;
    for (int64_t p : kToNhwc)
      nhwc.push_back(nchw[p]);
    if (nonUnit(nchw) != nonUnit(nhwc))
      return std::nullopt;
    return nhwc;
  }

  /// A transpose (or, when it moves only unit dimensions, a reshape) of
  /// `value` by `perm`, at `builder`'s insertion point, named `name`, with
  /// `like`'s device request and assignment.
  Value transpose(OpBuilder &builder, Value value, ArrayRef<int64_t> perm,
                  const std::string &name, Operation *like) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<NamedAttribute, 4> attrs = attributesLike(builder, name, like);
    Operation *op;
    if (isReshape(type, perm)) {
      op = builder.create<ReshapeOp>(like->getLoc(),
                                     TypeRange{permuted(type, perm)},
                                     ValueRange{value}, attrs);
    } else {
      attrs.push_back(
          builder.getNamedAttr("perm", builder.getDenseI64ArrayAttr(perm)));
      op = buildOp<TransposeOp>(builder, like->getLoc(), ValueRange{value},
                                attrs);
    }
    created.insert(op);
    nameOf[op] = name;
    return op->getResult(0);
  }

  /// Runs `op` NHWC between transposes.
  void convert(LayoutSensitiveOpInterface op) {
    OpBuilder builder(op);
    std::string name = nameOf[op]; // nameOf grows below.
    for (unsigned i : op.getLayoutOperands()) {
      // One transpose of a value per device request, for every op after it
      // in its block (three convolutions of one input share it).
      Value input = op->getOperand(i);
      auto key = std::make_tuple(input, op->getAttr("device"),
                                 op->getAttr("assigned_device"));
      Value &nhwc = toNhwc[key];
      Operation *def = nhwc ? nhwc.getDefiningOp() : nullptr;
      if (!def || def->getBlock() != op->getBlock() ||
          !def->isBeforeInBlock(op))
        nhwc = transpose(builder, input, kToNhwc,
                         name + "-" + std::to_string(i) +
                             "-TransposeNCHWToNHWC-LayoutOptimizer",
                         op);
      op->setOperand(i, nhwc);
    }
    op.setChannelsFirst(false);
    builder.setInsertionPointAfter(op);
    for (unsigned i : op.getLayoutResults()) {
      Value result = op->getResult(i);
      result.setType(
          permuted(cast<RankedTensorType>(result.getType()), kToNhwc));
      Value back = transpose(builder, result, kToNchw,
                             name + "-" + std::to_string(i) +
                                 "-TransposeNHWCToNCHW-LayoutOptimizer",
                             op);
      result.replaceAllUsesExcept(back, back.getDefiningOp());
    }
  }

  /// The NHWC value `value` is the NCHW transpose of, if a transpose this
  /// pass made gives it.
  Value nhwcSource(Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || !created.contains(def))
      return nullptr;
    if (auto t = dyn_cast<TransposeOp>(def))
      return t.getPerm() == ArrayRef<int64_t>(kToNchw) ? t.getInput() : nullptr;
    // A reshape standing for such a transpose.
    auto in = cast<RankedTensorType>(def->getOperand(0).getType());
    return in.getRank() == 4 &&
                   permuted(in, kToNchw) == def->getResult(0).getType()
               ? def->getOperand(0)
               : nullptr;
  }

  /// Removes the transposes (and reshapes) this pass made in `block` that
  /// undo one another, after moving NHWC-to-NCHW ones below elementwise
  /// ops, in one walk in program order.
  void cleanUp(Block &block) {
    for (Operation *op = &block.front(); op;) {
      Operation *next = op->getNextNode();
      if (created.contains(op) && op->getNumOperands() == 1) {
        // NCHW→NHWC of an NHWC→NCHW: the original NHWC value.
        Value source = nhwcSource(op->getOperand(0));
        if (source && source.getType() == op->getResult(0).getType()) {
          Operation *producer = op->getOperand(0).getDefiningOp();
          op->getResult(0).replaceAllUsesWith(source);
          erase(op);
          if (producer->use_empty())
            erase(producer);
        }
      } else if (auto elementwise = dyn_cast<ElementwiseOpInterface>(op)) {
        if (Operation *back = sink(elementwise))
          next = back;
      } else if (auto reshape = dyn_cast<ReshapeOp>(op)) {
        // It may erase a weight right after it.
        if (foldIntoWeights(reshape))
          next = op->getNextNode();
      }
      op = next;
    }
  }

  void erase(Operation *op) {
    created.remove(op);
    nameOf.erase(op);
    op->erase();
  }

  /// Moves an NHWC→NCHW transpose on `op`'s operands below it: `op` runs
  /// on the NHWC values (other operands reshaped to match) and one
  /// transpose follows. Only when every data operand is such a transpose
  /// used by `op` alone, a tensor of rank 0 or 2 to 4 of ones-only shape,
  /// or one that broadcasts so that a reshape makes it NHWC (never rank
  /// 1); returns the transpose made, or null.
  Operation *sink(ElementwiseOpInterface op) {
    if (op->getNumResults() != 1)
      return nullptr;
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || resultType.getRank() != 4)
      return nullptr;
    unsigned arity = op.getArity();
    SmallVector<Value, 2> sources(arity);
    SmallVector<SmallVector<int64_t, 4>, 2> reshapes(arity);
    bool anyTransposed = false;
    for (unsigned i = 0; i < arity; ++i) {
      Value operand = op->getOperand(i);
      Value source = nhwcSource(operand);
      if (source && operand.getType() == resultType &&
          llvm::all_of(operand.getUsers(),
                       [&](Operation *user) { return user == op; })) {
        sources[i] = source;
        anyTransposed = true;
        continue;
      }
      std::optional<SmallVector<int64_t, 4>> shape =
          nhwcBroadcastShape(operand.getType());
      if (!shape)
        return nullptr;
      reshapes[i] = std::move(*shape);
    }
    if (!anyTransposed)
      return nullptr;
    OpBuilder builder(op);
    std::string name = nameOf[op]; // nameOf grows below.
    for (unsigned i = 0; i < arity; ++i) {
      if (sources[i])
        continue;
      Value operand = op->getOperand(i);
      auto type = cast<RankedTensorType>(operand.getType());
      if (llvm::all_of(type.getShape(), [](int64_t d) { return d == 1; })) {
        sources[i] = operand; // Broadcasts the same either way.
        continue;
      }
      std::string reshapeName =
          name + "-" + std::to_string(i) + "-ReshapeNCHWToNHWC-LayoutOptimizer";
      Operation *reshape = builder.create<ReshapeOp>(
          op->getLoc(),
          TypeRange{RankedTensorType::get(reshapes[i], type.getElementType())},
          ValueRange{operand}, attributesLike(builder, reshapeName, op));
      nameOf[reshape] = reshapeName;
      sources[i] = reshape->getResult(0);
    }
    // Each transpose once, even when `op` reads it twice (mul %t, %t).
    llvm::SetVector<Operation *> dead;
    for (unsigned i = 0; i < arity; ++i) {
      Operation *def = op->getOperand(i).getDefiningOp();
      if (def && created.contains(def) && sources[i] != op->getOperand(i))
        dead.insert(def);
      op->setOperand(i, sources[i]);
    }
    op->getResult(0).setType(permuted(resultType, kToNhwc));
    builder.setInsertionPointAfter(op);
    Value back =
        transpose(builder, op->getResult(0), kToNchw,
                  name + "-0-TransposeNHWCToNCHW-LayoutOptimizer", op);
    op->getResult(0).replaceAllUsesExcept(back, back.getDefiningOp());
    for (Operation *def : dead)
      if (def->use_empty())
        erase(def);
    return back.getDefiningOp();
  }

  /// `weight`, the B of a matmul whose A is [N, C*H*W] flattened from an
  /// NCHW tensor of type `nchw`, for an A flattened from that tensor's NHWC
  /// transpose instead: its rows (its columns where `transposed`: B is then
  /// [M, C*H*W]) reordered from (c, h, w) to (h, w, c), by TransposeOp's
  /// fold. Null where that does not fold (a B over Grappler's 10 MB).
  static DenseElementsAttr permuteWeight(DenseElementsAttr weight,
                                         RankedTensorType nchw,
                                         bool transposed) {
    auto type = cast<RankedTensorType>(weight.getType());
    int64_t c = nchw.getDimSize(1), h = nchw.getDimSize(2),
            w = nchw.getDimSize(3);
    if (type.getRank() != 2 ||
        type.getDimSize(transposed ? 1 : 0) != c * h * w)
      return {};
    int64_t m = type.getDimSize(transposed ? 0 : 1);
    SmallVector<int64_t, 4> shape =
        transposed ? SmallVector<int64_t, 4>{m, c, h, w}
                   : SmallVector<int64_t, 4>{c, h, w, m};
    SmallVector<int64_t, 4> perm = transposed
                                       ? SmallVector<int64_t, 4>{0, 2, 3, 1}
                                       : SmallVector<int64_t, 4>{1, 2, 0, 3};
    DenseElementsAttr expanded = weight.reshape(
        RankedTensorType::get(shape, type.getElementType()));
    // The fold of a transpose made for it alone, in no block.
    OpBuilder builder(type.getContext());
    Location loc = builder.getUnknownLoc();
    Operation *input = buildConstant(builder, loc, expanded);
    Operation *transpose = buildOp<TransposeOp>(
        builder, loc, input->getResults(),
        {builder.getNamedAttr("perm", builder.getDenseI64ArrayAttr(perm))});
    SmallVector<OpFoldResult, 1> results;
    DenseElementsAttr folded;
    if (transpose && succeeded(transpose->fold({expanded}, results)) &&
        results.size() == 1)
      folded = dyn_cast_if_present<DenseElementsAttr>(
          dyn_cast<Attribute>(results[0]));
    if (transpose)
      transpose->destroy();
    input->destroy();
    return folded ? folded.reshape(type) : DenseElementsAttr();
  }

  /// Moves an NHWC→NCHW transpose made here into the constant weights of
  /// the matmuls that read a flatten of its result (ONNX's Flatten before
  /// Gemm): `reshape` flattens the NHWC value instead, and each matmul
  /// reads a constant with its weight's rows permuted to match
  /// (permuteWeight), folded here. Only when the transpose is read by
  /// `reshape` alone, `reshape` makes [N, C*H*W] of [N, C, H, W], and each
  /// reader of `reshape` is a matmul in its block taking it as its A, not
  /// transposed, with a B that is a constant without control dependencies
  /// and whose permutation folds; a B read from a variable (a trainable weight)
  /// keeps the transpose. The weight is erased where nothing else reads it
  /// and it has a name (erasing an unnamed one would renumber the default
  /// names after it). Returns whether it changed the IR.
  bool foldIntoWeights(ReshapeOp reshape) {
    auto transpose = reshape.getInput().getDefiningOp<TransposeOp>();
    if (!transpose || !created.contains(transpose) ||
        transpose.getPerm() != ArrayRef<int64_t>(kToNchw) ||
        !transpose->hasOneUse())
      return false;
    auto nchw = cast<RankedTensorType>(transpose.getType());
    auto flat = cast<RankedTensorType>(reshape.getType());
    if (flat.getRank() != 2 || flat.getDimSize(0) != nchw.getDimSize(0) ||
        reshape->use_empty())
      return false;
    // Every weight's permutation first, so that a refusal changes nothing.
    DenseMap<std::pair<Operation *, unsigned>, DenseElementsAttr> permuted;
    for (OpOperand &use : reshape->getUses()) {
      auto matmul = dyn_cast<MatmulOp>(use.getOwner());
      if (!matmul || use.getOperandNumber() != 0 || matmul.getTransposeA() ||
          matmul->getBlock() != reshape->getBlock())
        return false;
      auto weight = matmul.getRhs().getDefiningOp<ConstantOp>();
      if (!weight || !weight.getControlDeps().empty())
        return false;
      DenseElementsAttr &value =
          permuted[{weight.getOperation(), matmul.getTransposeB()}];
      if (value)
        continue;
      auto elements = dyn_cast<DenseElementsAttr>(weight.getValue());
      value = elements ? permuteWeight(elements, nchw, matmul.getTransposeB())
                       : DenseElementsAttr();
      if (!value)
        return false;
    }
    // One permuted constant per weight (and transpose_b), before the first
    // matmul that reads it.
    DenseMap<std::pair<Operation *, unsigned>, Value> made;
    SmallVector<MatmulOp, 2> matmuls;
    for (Operation *user : reshape->getUsers())
      matmuls.push_back(cast<MatmulOp>(user));
    llvm::sort(matmuls, [](MatmulOp a, MatmulOp b) {
      return a->isBeforeInBlock(b);
    });
    for (MatmulOp matmul : matmuls) {
      auto weight = matmul.getRhs().getDefiningOp<ConstantOp>();
      std::pair<Operation *, unsigned> key = {weight.getOperation(),
                                              matmul.getTransposeB()};
      Value &constant = made[key];
      if (!constant) {
        OpBuilder builder(matmul);
        std::string name =
            nameOf[matmul] + "-1-PermuteNCHWToNHWC-LayoutOptimizer";
        ConstantOp op = buildConstant(builder, weight.getLoc(), permuted[key],
                                      attributesLike(builder, name, weight));
        nameOf[op] = name;
        constant = op.getResult();
      }
      matmul.getRhsMutable().assign(constant);
      if (weight->use_empty() && weight->hasAttr("name")) {
        nameOf.erase(weight);
        weight->erase();
      }
    }
    reshape.getInputMutable().assign(transpose.getInput());
    erase(transpose);
    return true;
  }

  /// The NCHW-to-NHWC transposes made, by input, device and assignment.
  DenseMap<std::tuple<Value, Attribute, Attribute>, Value> toNhwc;
  /// Every graph op's name (as logs print it), and the ops made here.
  DenseMap<Operation *, std::string> nameOf;
  llvm::SetVector<Operation *> created;
};

} // namespace
