//===- Kernel.cpp - the runtime's kernels and their parameters ------------===//

#include "gplace/Support/Kernel.h"

#include <type_traits>

namespace gplace {

namespace {

struct ParamRow {
  Kernel kernel;
  KernelParamDef def;
};

// The field's C++ type says the kind: a mismatch between the op table and
// KernelParams fails to compile here.
KernelParamDef param(std::string_view name, KernelParamKind kind,
                     bool KernelParams::*field) {
  KernelParamDef def{name, kind};
  def.boolField = field;
  return def;
}
KernelParamDef param(std::string_view name, KernelParamKind kind,
                     int64_t KernelParams::*field) {
  KernelParamDef def{name, kind};
  def.i64Field = field;
  return def;
}
KernelParamDef param(std::string_view name, KernelParamKind kind,
                     std::vector<int64_t> KernelParams::*field) {
  KernelParamDef def{name, kind};
  def.arrayField = field;
  return def;
}

KernelParamDef param(std::string_view name, KernelParamKind kind,
                     double KernelParams::*field) {
  KernelParamDef def{name, kind};
  def.f64Field = field;
  return def;
}

template <KernelParamKind Kind, typename T> constexpr bool fieldMatches() {
  if constexpr (Kind == KernelParamKind::Bool)
    return std::is_same_v<T, bool>;
  else if constexpr (Kind == KernelParamKind::I64)
    return std::is_same_v<T, int64_t>;
  else if constexpr (Kind == KernelParamKind::F64)
    return std::is_same_v<T, double>;
  else
    return std::is_same_v<T, std::vector<int64_t>>;
}

const std::vector<ParamRow> &paramRows() {
  static const std::vector<ParamRow> rows = {
#define GPLACE_KERNEL_PARAM(Kernel_, Name, Kind, Field)                        \
  {Kernel::Kernel_, param(Name, KernelParamKind::Kind, &KernelParams::Field)},
#include "gplace/Dialect/Graph/GraphOpTable.def"
  };
  return rows;
}

#define GPLACE_KERNEL_PARAM(Kernel_, Name, Kind, Field)                        \
  static_assert(fieldMatches<KernelParamKind::Kind,                            \
                             decltype(KernelParams::Field)>(),                 \
                "KernelParams::" #Field " does not hold a " #Kind);
#include "gplace/Dialect/Graph/GraphOpTable.def"

} // namespace

std::optional<Kernel> kernelFromMnemonic(std::string_view mnemonic) {
  for (size_t i = 0; i < kNumKernels; ++i)
    if (detail::kKernelInfos[i].mnemonic == mnemonic)
      return static_cast<Kernel>(i);
  return std::nullopt;
}

const std::vector<KernelParamDef> &kernelParamDefs(Kernel kernel) {
  static const std::vector<std::vector<KernelParamDef>> byKernel = [] {
    std::vector<std::vector<KernelParamDef>> table(kNumKernels);
    for (const ParamRow &row : paramRows())
      table[static_cast<size_t>(row.kernel)].push_back(row.def);
    return table;
  }();
  return byKernel[static_cast<size_t>(kernel)];
}

} // namespace gplace
