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
  // The rows' conditions, per device type: one per backend with a row
  // for the op, none at all where a backend runs it unconditionally.
  for (KernelDef &def : entries_) {
    std::string_view mnemonic =
        def.op.substr(std::string_view("gplace.").size());
    for (DeviceType device : {DeviceType::CPU, DeviceType::GPU}) {
      std::vector<std::string_view> &unless =
          device == DeviceType::GPU ? def.gpuUnless : def.cpuUnless;
      bool unconditional = false;
      for (const Backend &backend : kBackends) {
        if (backend.device != device ||
            !backend.types(mnemonic, isElementwise(mnemonic)))
          continue;
        const BackendKernel *row = backend.find(mnemonic);
        if (!row || row->unless.empty())
          unconditional = true;
        else if (std::find(unless.begin(), unless.end(), row->unless) ==
                 unless.end())
          unless.push_back(row->unless);
      }
      if (unconditional)
        unless.clear();
    }
  }
}

bool KernelRegistry::meets(std::string_view condition,
                           const AttributeLookup &attributes) {
  if (condition.empty())
    return false;
  while (!condition.empty()) {
    size_t comma = condition.find(',');
    std::string_view term = condition.substr(0, comma);
    condition = comma == std::string_view::npos ? std::string_view()
                                                : condition.substr(comma + 1);
    bool negated = !term.empty() && term.front() == '!';
    if (negated)
      term.remove_prefix(1);
    size_t equals = term.find('=');
    std::optional<std::string> value = attributes(term.substr(0, equals));
    bool holds = equals == std::string_view::npos
                     ? value.has_value()
                     : value && *value == term.substr(equals + 1);
    if (holds == negated)
      return false;
  }
  return true;
}

bool KernelRegistry::dependsOnAttributes(std::string_view op) const {
  const KernelDef *def = lookup(op);
  return def && (!def->cpuUnless.empty() || !def->gpuUnless.empty());
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
                               DeviceType device,
                               const AttributeLookup *attributes) const {
  const KernelDef *def = lookup(op);
  if (!def)
    return false;
  if (def->typeless)
    return true;
  if (!type)
    return false;
  const std::vector<ElementType> &types =
      device == DeviceType::GPU ? def->gpu : def->cpu;
  if (std::find(types.begin(), types.end(), *type) == types.end())
    return false;
  const std::vector<std::string_view> &unless =
      device == DeviceType::GPU ? def->gpuUnless : def->cpuUnless;
  if (unless.empty() || !attributes)
    return true;
  return !std::all_of(unless.begin(), unless.end(),
                      [&](std::string_view condition) {
                        return meets(condition, *attributes);
                      });
}

void KernelRegistry::print(std::ostream &os) const {
  auto list = [](const KernelDef &def, DeviceType device) {
    const std::vector<ElementType> &types =
        device == DeviceType::GPU ? def.gpu : def.cpu;
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
    for (std::string_view condition :
         device == DeviceType::GPU ? def.gpuUnless : def.cpuUnless)
      out += "(unless:" + std::string(condition) + ")";
    return out;
  };
  // Columns as wide as their longest entry, plus a space.
  size_t opWidth = 2, tfWidth = 10, cpuWidth = 3;
  for (const KernelDef &def : entries_) {
    opWidth = std::max(opWidth, def.op.size());
    tfWidth = std::max(tfWidth, def.tensorFlowType.size());
    cpuWidth = std::max(cpuWidth, list(def, DeviceType::CPU).size());
  }
  auto width = [](size_t w) { return std::setw(static_cast<int>(w + 1)); };
  os << std::left << width(opWidth) << "op" << width(tfWidth) << "TensorFlow"
     << width(cpuWidth) << "CPU"
     << "GPU\n";
  for (const KernelDef &def : entries_)
    os << width(opWidth) << def.op << width(tfWidth) << def.tensorFlowType
       << width(cpuWidth) << list(def, DeviceType::CPU)
       << list(def, DeviceType::GPU) << "\n";
}

} // namespace gplace
