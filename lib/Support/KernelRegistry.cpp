//===- KernelRegistry.cpp - which ops have CPU and GPU kernels -----------===//

#include "gplace/Support/KernelRegistry.h"

#include <algorithm>
#include <iomanip>

namespace gplace {

namespace {
using T = ElementType;
const std::vector<ElementType> kAll = {T::F32, T::F16, T::BF16, T::F64,
                                       T::I32, T::I64, T::I1};
const std::vector<ElementType> kNumeric = {T::F32, T::F16, T::BF16,
                                           T::F64, T::I32, T::I64};
const std::vector<ElementType> kFloat = {T::F32, T::F16, T::BF16, T::F64};
const std::vector<ElementType> kNone = {};
} // namespace

std::string_view elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F64:
    return "f64";
  case ElementType::I32:
    return "i32";
  case ElementType::I64:
    return "i64";
  case ElementType::I1:
    return "i1";
  }
  return "?";
}

std::optional<ElementType> parseElementType(std::string_view name) {
  for (ElementType type : kAll)
    if (elementTypeName(type) == name)
      return type;
  return std::nullopt;
}

KernelRegistry::KernelRegistry() {
  // GPU kernels exist for floating-point types only: integer and bool ops
  // stay on the host, as TensorFlow's placer sees them (SPEC §3).
  entries_ = {
      {"gplace.constant", kAll, kFloat},
      {"gplace.variable", kAll, kFloat},
      {"gplace.read", kAll, kFloat},
      {"gplace.assign", kAll, kFloat},
      {"gplace.assign_add", kNumeric, kFloat},
      {"gplace.assign_sub", kNumeric, kFloat},
      {"gplace.matmul", kNumeric, kFloat},
      {"gplace.add", kNumeric, kFloat},
      {"gplace.sub", kNumeric, kFloat},
      {"gplace.mul", kNumeric, kFloat},
      {"gplace.div", kNumeric, kFloat},
      {"gplace.maximum", kNumeric, kFloat},
      {"gplace.neg", kNumeric, kFloat},
      {"gplace.relu", kNumeric, kFloat},
      {"gplace.exp", kFloat, kFloat},
      {"gplace.log", kFloat, kFloat},
      {"gplace.tanh", kFloat, kFloat},
      {"gplace.sigmoid", kFloat, kFloat},
      {"gplace.softmax", kFloat, kFloat},
      {"gplace.add_n", kNumeric, kFloat},
      {"gplace.bias_add", kNumeric, kFloat},
      {"gplace.reduce_sum", kNumeric, kFloat},
      {"gplace.reduce_mean", kNumeric, kFloat},
      {"gplace.reduce_max", kNumeric, kFloat},
      // The seeds: "tf.cast only has a CPU implementation".
      {"gplace.cast", kAll, kNone},
      {"gplace.transpose", kAll, kFloat},
      {"gplace.reshape", kAll, kFloat},
      {"gplace.slice", kAll, kFloat},
      {"gplace.concat", kAll, kFloat},
      {"gplace.identity", kAll, kFloat},
      // TensorFlow's NoOp is registered for every device type; a copy
      // runs wherever its destination is.
      {"gplace.group", kNone, kNone, /*typeless=*/true},
      {"gplace.copy", kNone, kNone, /*typeless=*/true},
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

std::vector<DeviceType>
KernelRegistry::deviceTypes(std::string_view op,
                            std::optional<ElementType> type) const {
  std::vector<DeviceType> result;
  for (DeviceType device : {DeviceType::GPU, DeviceType::CPU})
    if (hasKernel(op, type, device))
      result.push_back(device);
  return result;
}

void KernelRegistry::print(
    std::ostream &os,
    const std::function<std::string(std::string_view)> &tensorFlowType) const {
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
  os << std::left << std::setw(20) << "op";
  if (tensorFlowType)
    os << std::setw(21) << "TensorFlow";
  os << std::setw(30) << "CPU"
     << "GPU\n";
  for (const KernelDef &def : entries_) {
    os << std::setw(20) << def.op;
    if (tensorFlowType)
      os << std::setw(21) << tensorFlowType(def.op);
    os << std::setw(30) << list(def, def.cpu) << list(def, def.gpu) << "\n";
  }
}

} // namespace gplace
