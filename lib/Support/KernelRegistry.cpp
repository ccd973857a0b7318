//===- KernelRegistry.cpp - which ops have CPU and GPU kernels ------------===//

#include "gplace/Support/KernelRegistry.h"
#include "gplace/Support/Backends.h"
#include "gplace/Support/Kernel.h"

#include <algorithm>
#include <iomanip>

namespace gplace {

namespace {
/// True if `gplace.<mnemonic>` runs an elementwise kernel.
bool isElementwise(std::string_view mnemonic) {
  std::optional<Kernel> kernel = kernelFromMnemonic(mnemonic);
  return kernel && isElementwiseKernel(*kernel);
}

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
#define GPLACE_OP(Mnemonic, TensorFlowType, Typeless)                          \
  {"gplace." Mnemonic, TensorFlowType,                                         \
   typesOf(registeredTypes(Mnemonic, isElementwise(Mnemonic),                  \
                           DeviceType::CPU)),                                  \
   typesOf(registeredTypes(Mnemonic, isElementwise(Mnemonic),                  \
                           DeviceType::GPU)),                                  \
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
  // Columns as wide as their longest entry, plus a space.
  size_t opWidth = 2, tfWidth = 10, cpuWidth = 3;
  for (const KernelDef &def : entries_) {
    opWidth = std::max(opWidth, def.op.size());
    tfWidth = std::max(tfWidth, def.tensorFlowType.size());
    cpuWidth = std::max(cpuWidth, list(def, def.cpu).size());
  }
  auto width = [](size_t w) { return std::setw(static_cast<int>(w + 1)); };
  os << std::left << width(opWidth) << "op" << width(tfWidth) << "TensorFlow"
     << width(cpuWidth) << "CPU"
     << "GPU\n";
  for (const KernelDef &def : entries_)
    os << width(opWidth) << def.op << width(tfWidth) << def.tensorFlowType
       << width(cpuWidth) << list(def, def.cpu) << list(def, def.gpu) << "\n";
}

} // namespace gplace
