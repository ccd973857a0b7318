//===- KernelRegistry.cpp - which ops have CPU and GPU kernels ------------===//

#include "gplace/Support/KernelRegistry.h"

#include <algorithm>
#include <iomanip>

namespace gplace {

namespace {
std::vector<ElementType> typesOf(unsigned mask) {
  std::vector<ElementType> types;
  for (int i = 0; i < kNumElementTypes; ++i)
    if (mask & (1u << i))
      types.push_back(static_cast<ElementType>(i));
  return types;
}
} // namespace

KernelRegistry::KernelRegistry() {
  entries_ = {
#define GPLACE_OP(Mnemonic, TensorFlowType, CpuTypes, GpuTypes, Typeless)      \
  {"gplace." Mnemonic, TensorFlowType, typesOf(CpuTypes), typesOf(GpuTypes),   \
   Typeless},
#include "gplace/Dialect/Graph/GraphOpTable.def"
  };
  std::sort(entries_.begin(), entries_.end(),
            [](const KernelDef &a, const KernelDef &b) { return a.op < b.op; });
}

const KernelRegistry &KernelRegistry::global() {
  static const KernelRegistry registry;
  return registry;
}

const KernelDef *KernelRegistry::lookup(std::string_view op) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), op,
                             [](const KernelDef &def, std::string_view name) {
                               return def.op < name;
                             });
  return it != entries_.end() && it->op == op ? &*it : nullptr;
}

bool KernelRegistry::hasKernel(std::string_view op,
                               std::optional<ElementType> type,
                               DeviceType device) const {
  const KernelDef *def = lookup(op);
  if (!def)
    return false;
  if (def->typeless)
    return true;
  if (!type)
    return false;
  const std::vector<ElementType> &types =
      device == DeviceType::GPU ? def->gpu : def->cpu;
  return std::find(types.begin(), types.end(), *type) != types.end();
}

void KernelRegistry::print(std::ostream &os) const {
  auto list = [](const KernelDef &def, const std::vector<ElementType> &types) {
    if (def.typeless)
      return std::string("any");
    if (types.empty())
      return std::string("-");
    std::string out;
    for (ElementType type : types) {
      if (!out.empty())
        out += ",";
      out += elementTypeName(type);
    }
    return out;
  };
  os << std::left << std::setw(20) << "op" << std::setw(21) << "TensorFlow"
     << std::setw(30) << "CPU"
     << "GPU\n";
  for (const KernelDef &def : entries_)
    os << std::setw(20) << def.op << std::setw(21) << def.tensorFlowType
       << std::setw(30) << list(def, def.cpu) << list(def, def.gpu) << "\n";
}

} // namespace gplace
